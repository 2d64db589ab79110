/**
 * The quote's networkFee follows the live SOL and source prices: it is remembered per settlement shape
 * only while the prices it was converted at are the current ones.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { loadConfig } from '../../src/config/config.ts';
import { DEFAULT_NETWORK_COST, settlementLamports } from '../../src/domain/network-cost.ts';
import { convertCeil, parsePrice, type Price } from '../../src/domain/price.ts';
import type { SwapPricing } from '../../src/prices/swap-pricing.ts';
import { QuoteService } from '../../src/services/quote-service.ts';
import type { AccountRecord } from '../../src/store/accounts-store.ts';

describe('quote service: networkFee at the current prices', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'hush-quote-service-'));
  after(() => rmSync(dataDir, { recursive: true, force: true }));

  it('converts the settlement cost at each new price, and gives the same fee while prices stand', async () => {
    const config = loadConfig({ DATA_DIR: dataDir, SOLANA_RPC_URL: 'http://127.0.0.1:9' });
    // No RPC in this unit test: the recipient's token account is known to exist (the chain cache's answer).
    const chain = new SolanaChain('http://127.0.0.1:9');
    chain.accountExistsPeek = () => true;
    const live = new Map<string, Price>([['sol', parsePrice('150')], ['usdc', parsePrice('1')]]);
    const swaps = { freshPrice: (assetId: string) => live.get(assetId) ?? null } as unknown as SwapPricing;
    const service = new QuoteService(config, chain, new Uint8Array(32).fill(3), undefined, swaps);
    const account = { id: 'acc_quote_service', feeCapBps: 100, feeRecipients: [], status: 'active', rateLimits: null } as unknown as AccountRecord;
    const request = {
      amount: '5000000',
      sourceAssetId: 'usdc',
      destinationAssetId: 'usdc',
      senderAddress: (await generateKeyPairSigner()).address,
      recipientAddress: (await generateKeyPairSigner()).address,
    };
    const lamports = settlementLamports(
      { ...DEFAULT_NETWORK_COST, computeUnitLimit: config.computeUnitLimit, computeUnitPriceMicroLamports: config.computeUnitPriceMicroLamports },
      { destinationNative: false, recipientTokenAccountMissing: false, payoutCount: 1 },
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
