/**
 * The quote's networkFee follows the live SOL and source prices: a fee remembered per settlement shape (a
 * speed-up, not observable here) is never served once either price has changed. Bounds the pools cannot meet, or cannot
 * be read, are answered as the service's 503s, not as the client's 400.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { loadConfig } from '../../src/config/config.ts';
import { httpStatusOf, type HushError } from '../../src/domain/errors.ts';
import { DEFAULT_NETWORK_COST, settlementLamports } from '../../src/domain/network-cost.ts';
import { convertCeil, parsePrice, type Price } from '../../src/domain/price.ts';
import type { SwapPricing } from '../../src/prices/swap-pricing.ts';
import { QuoteService } from '../../src/services/quote-service.ts';
import type { AccountRecord } from '../../src/store/accounts-store.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hush-quote-service-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));

/** Config and an account: no RPC in these unit tests (the flat network fee reads nothing on chain). */
function fixture() {
  const config = loadConfig({ DATA_DIR: dataDir, SOLANA_RPC_URL: 'http://127.0.0.1:9' });
  const account = { id: 'acc_quote_service', feeCapBps: 100, feeRecipients: [], status: 'active', rateLimits: null } as unknown as AccountRecord;
  return { config, account };
}

describe('quote service: networkFee at the current prices', () => {
  it('converts the settlement cost at each new price, and gives the same fee while prices stand', async () => {
    const { config, account } = fixture();
    const live = new Map<string, Price>([['sol', parsePrice('150')], ['usdc', parsePrice('1')]]);
    const swaps = { freshPrice: (assetId: string) => live.get(assetId) ?? null } as unknown as SwapPricing;
    const service = new QuoteService(config, new Uint8Array(32).fill(3), systemClock, systemRandom, undefined, swaps);
    const request = {
      amount: '5000000',
      sourceAssetId: 'usdc',
      destinationAssetId: 'usdc',
      senderAddress: (await generateKeyPairSigner()).address,
      recipientAddress: (await generateKeyPairSigner()).address,
    };
    const lamports = settlementLamports(
      { ...DEFAULT_NETWORK_COST, computeUnitLimit: config.computeUnitLimit, computeUnitPriceMicroLamports: config.computeUnitPriceMicroLamports },
      { destinationNative: false, tokenAccountRentBps: config.newTokenAccountShareBps, payoutCount: 1 },
    );
    const expected = () => convertCeil(lamports, { price: live.get('sol')!, decimals: 9 }, { price: live.get('usdc')!, decimals: 6 }).toString();

    const first = await service.quote(account, request);
    assert.equal(first.networkFee, expected());
    assert.equal((await service.quote(account, request)).networkFee, first.networkFee, 'same prices, same fee');

    live.set('sol', parsePrice('300')); // a refresh brings new price objects
    const dearer = await service.quote(account, request);
    assert.equal(dearer.networkFee, expected());
    assert.ok(BigInt(dearer.networkFee) > BigInt(first.networkFee), 'SOL doubled: the same lamports cost more USDC');

    live.set('usdc', parsePrice('2'));
    assert.equal((await service.quote(account, request)).networkFee, expected(), 'a new source price counts too');
  });
});

describe("quote service: bounds it cannot vouch for are the service's problem, not the client's", () => {
  it('pools that cannot pay the minimum → 503 INSUFFICIENT_LIQUIDITY; unreadable bounds → 503 by side; above a real max → 400', async () => {
    const { config, account } = fixture();
    const usdc = config.assets.get('usdc')!;
    let free = usdc.min * 10n;
    let unreadable: 'chain' | 'store' | null = null;
    const live = { bounds: () => ({ min: usdc.min, max: free }), unreadable: () => unreadable };
    const service = new QuoteService(config, new Uint8Array(32).fill(4), systemClock, systemRandom, live);
    const request = (amount: bigint) => ({
      amount: amount.toString(),
      sourceAssetId: 'usdc',
      destinationAssetId: 'usdc',
      senderAddress: 'CUAXnfVmcD2VauwcVV6jEGak8ysNmm3JrfX12bwQJ3z7',
      recipientAddress: '2heXAxV7qCY6iztnWpooQoUsXjDQ5zG2QkcwvxgGzj9y',
    });
    const code = (amount: bigint) => service.quote(account, request(amount)).then(() => 'ok', (e: HushError) => `${e.code} ${httpStatusOf(e.code)}`);

    assert.equal(await code(usdc.min * 2n), 'ok');
    assert.equal(await code(usdc.min * 11n), 'AMOUNT_TOO_HIGH 400', 'a smaller amount would do');
    free = usdc.min - 1n;
    for (const amount of [usdc.min, usdc.min - 1n, 1n]) assert.equal(await code(amount), 'INSUFFICIENT_LIQUIDITY 503', `no amount would do (${amount})`);
    free = 0n;
    assert.equal(await code(usdc.min), 'INSUFFICIENT_LIQUIDITY 503');
    free = usdc.min * 10n;
    unreadable = 'chain';
    assert.equal(await code(usdc.min), 'CHAIN_UNAVAILABLE 503');
    unreadable = 'store';
    assert.equal(await code(usdc.min), 'SERVICE_UNAVAILABLE 503');
  });
});
