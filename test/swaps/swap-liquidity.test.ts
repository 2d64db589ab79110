/**
 * Private swaps, quote and order rules on a simulated Hush (test/support/sim-hush.ts: its API, worker, store and
 * local chain on a clock that runs only as the test waits):
 * - docs/spec.md §4 cross-asset fee arithmetic: fees in the source asset, amountOut = floor(convert(amountIn − fee))
 *   at the reference prices less the configured spread, checked against an independent computation;
 * - exact_out cross-asset → 400 UNSUPPORTED_MODE; below the source minimum → AMOUNT_TOO_LOW;
 * - the live max of a pair: the source's configured max binds while the destination pools are deep, and
 *   once the SOL pools are drained (direct transfers signed with the pool keys) details.max is the pools'
 *   free SOL, rounded down to two significant digits, converted back to USDC; the reservation of an open
 *   order lowers it again for its account;
 * - order-time re-check: 503 INSUFFICIENT_LIQUIDITY with Retry-After when another order reserved the
 *   inventory first, and when the pools were lowered between quote and order; no order is created;
 * - an asset marked not swappable (USDT here, in this Hush's assets file) may be sent but never swapped to or
 *   from: 400 PAIR_NOT_SUPPORTED both ways.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { expectError, expectOk } from '../support/api-responses.ts';
import { simOrderCount } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimAccount, SimHush } from '../support/sim-hush.ts';
import { startSettlementSim, type SimChain } from '../support/sim-settlement.ts';

/** Transcribed from config/assets.json and the defaults of SPEC/README (independent of src). */
const SPREAD_BPS = 50n;
const SERVICE_FEE_BPS = 30n;
const SOL_POOL_RESERVE = 10_000_000n;
const USDC_MAX = 100_000_000_000n;
const USDC_MIN = 1_000_000n;
const PRICE = { sol: [150n, 1n], usdc: [1n, 1n], bonk: [2n, 100_000n] } as const;
const DECIMALS = { sol: 9n, usdc: 6n, bonk: 5n } as const;
type Id = keyof typeof PRICE;

/** floor(x × pFrom/pTo × 10^(dTo−dFrom) × (10000 − spread)/10000), exactly. */
function convert(x: bigint, from: Id, to: Id, spreadBps = SPREAD_BPS): bigint {
  const [fn, fd] = PRICE[from];
  const [tn, td] = PRICE[to];
  return (x * fn * td * 10n ** DECIMALS[to] * (10_000n - spreadBps)) / (fd * tn * 10n ** DECIMALS[from] * 10_000n);
}

/** docs/spec.md §4, §9: swap payouts are rounded down to the destination's grid (config/assets.json swapGrid, transcribed). */
const SWAP_GRID: Record<string, bigint> = { sol: 100_000n, usdc: 10_000n, usdt: 10_000n, bonk: 100_000_000n };
const onGrid = (x: bigint, to: Id) => (x / SWAP_GRID[to]!) * SWAP_GRID[to]!;

/** Rounded down to two significant digits: no public figure gives exact pool balances (docs/spec.md §4). */
function twoDigits(x: bigint): bigint {
  const s = x.toString();
  return s.length <= 2 ? x : BigInt(s.slice(0, 2) + '0'.repeat(s.length - 2));
}

/** The USDC→SOL max: the SOL pools' free lamports (two significant digits) at $150, then two significant digits again in USDC, the configured max permitting. */
function usdcMaxFor(freeLamports: bigint): bigint {
  const m = twoDigits((twoDigits(freeLamports) * 150n * 10n ** 6n) / 10n ** 9n);
  return m < USDC_MAX ? m : USDC_MAX;
}

let h: SimHush;
let acct: SimAccount;
let cs: SimChain;
let sender: Address;
let recipient: Address;
let sink: Address;

/** config/assets.json with USDT not swappable: no check below quotes USDT but the PAIR_NOT_SUPPORTED one. */
const assetsDir = mkdtempSync(join(tmpdir(), 'hush-assets-'));

before(async () => {
  const assets = JSON.parse(readFileSync(new URL('../../config/assets.json', import.meta.url), 'utf8')) as { assets: { assetId: string; swappable: boolean }[] };
  for (const a of assets.assets) if (a.assetId === 'usdt') a.swappable = false;
  const file = join(assetsDir, 'assets.json');
  writeFileSync(file, JSON.stringify(assets));
  ({ h, cs } = await startSettlementSim(71, { HUSH_REBALANCER: 'off', HUSH_PRICE_REFRESH_S: '1', HUSH_PRICE_MAX_AGE_S: '5', HUSH_ASSETS_FILE: file }));
  acct = await h.createAccount({ feeCapBps: 200 });
  sender = h.address();
  recipient = h.address();
  sink = h.address();
});
after(async () => {
  await closeSim(h);
  rmSync(assetsDir, { recursive: true, force: true });
});

function swapReq(amount: bigint, source: Id, destination: Id, extra: Record<string, unknown> = {}) {
  return { amount: amount.toString(), sourceAssetId: source, destinationAssetId: destination, senderAddress: sender, recipientAddress: recipient, ...extra };
}

/** Free SOL of the pools as Inventory defines it: each pool's confirmed lamports less its rent reserve. */
async function freeSolLamports(): Promise<bigint> {
  let free = 0n;
  for (const p of h.hush.treasury.pools('sol')) {
    const held = (await cs.lamports(p.holding)) - SOL_POOL_RESERVE;
    if (held > 0n) free += held;
  }
  return free;
}

/** Moves SOL out of every SOL pool (signed with the pool's own key) so that each keeps `keep` free lamports. */
async function drainSolPools(keep: bigint): Promise<void> {
  const sigs = [];
  for (const p of h.hush.signing!.pools('sol')) {
    const balance = await cs.lamports(p.holding);
    const amount = balance - SOL_POOL_RESERVE - keep - 5000n; // the pool pays its own 5000-lamport fee
    if (amount <= 0n) continue;
    const { wire } = await cs.tx(p.signer, [getTransferSolInstruction({ source: p.signer, destination: sink, amount })]);
    sigs.push(await cs.send(wire));
  }
  await cs.succeeded(sigs);
}

/** Asks a USDC→SOL quote above any possible max until details.max equals `expected` (the inventory refreshes every 2 s). */
async function waitForUsdcSolMax(expected: bigint, what: string): Promise<void> {
  let last: unknown = null;
  await h.until(
    `${what}: details.max = ${expected}`,
    async () => {
      const res = await acct.client.quote(swapReq(USDC_MAX + 1n, 'usdc', 'sol'));
      last = res.body?.error?.details ?? res.body;
      return res.status === 400 && res.body.error.code === 'AMOUNT_TOO_HIGH' && res.body.error.details.max === expected.toString();
    },
    20_000,
  ).catch((e) => {
    throw new Error(`${(e as Error).message}; last: ${JSON.stringify(last)}`);
  });
}

describe('cross-asset quotes (docs/spec.md §4)', () => {
  test('exact_out across assets → 400 UNSUPPORTED_MODE; below the source minimum → AMOUNT_TOO_LOW', async () => {
    const e = expectError(await acct.client.quote(swapReq(1_000_000n, 'usdc', 'sol', { mode: 'exact_out' })), 400, 'UNSUPPORTED_MODE');
    assert.equal(e.details?.mode, 'exact_out');
    // exact_out is fine for a same-asset send (the mode itself is not refused).
    expectOk(await acct.client.quote(swapReq(5_000_000n, 'usdc', 'usdc', { mode: 'exact_out' })));
    const low = expectError(await acct.client.quote(swapReq(USDC_MIN - 1n, 'usdc', 'sol')), 400, 'AMOUNT_TOO_LOW');
    assert.equal(low.details.min, USDC_MIN.toString());
  });

  for (const [source, destination, amount, feeBps] of [
    ['sol', 'usdc', 1_000_000_000n, 0],
    ['sol', 'usdc', 1_234_567_891n, 75],
    ['usdc', 'sol', 250_000_000n, 100],
    ['usdc', 'bonk', 50_000_000n, 0],
    ['bonk', 'usdc', 12_345_678_901_234n, 30],
  ] as const) {
    test(`${source}→${destination} ${amount}${feeBps ? ` with a ${feeBps} bps partner fee` : ''}: fees in ${source}, amountOut = grid(floor(convert(amountIn − fee)))`, async () => {
      const extra = feeBps ? { feeBps, feeRecipientAddress: acct.feeRecipients[0] } : {};
      const q = expectOk(await acct.client.quote(swapReq(amount, source, destination, extra))).quote;
      assert.equal(q.sourceAssetId, source);
      assert.equal(q.destinationAssetId, destination);
      assert.equal(q.mode, 'exact_in');
      const amountIn = BigInt(q.amountIn);
      assert.equal(amountIn, amount, 'exact_in: amountIn = amount');
      const serviceFee = (amountIn * SERVICE_FEE_BPS) / 10_000n;
      const partnerFee = (amountIn * BigInt(feeBps)) / 10_000n;
      const networkFee = BigInt(q.networkFee);
      assert.deepEqual(q.feeBreakdown, { serviceFee: serviceFee.toString(), partnerFee: partnerFee.toString(), networkFee: networkFee.toString(), depositAccountRent: '2039280' });
      assert.equal(BigInt(q.protocolFee), serviceFee + partnerFee);
      assert.equal(BigInt(q.fee), serviceFee + partnerFee + networkFee);
      assert.ok(networkFee > 0n, 'Hush charges its transaction costs, in the source asset');
      // networkFee is lamports converted to the source asset and rounded up: below 0.05 SOL worth.
      assert.ok(networkFee <= convert(50_000_000n, 'sol', source, 0n) + 1n, `networkFee ${networkFee} is a few transactions' worth`);
      assert.equal(BigInt(q.amountOut), onGrid(convert(amountIn - BigInt(q.fee), source, destination), destination), 'amountOut = grid(floor(convert(amountIn − fee))) at reference prices less the spread');
      assert.equal(Date.parse(q.expiresAt) - Date.parse(q.issuedAt), 60_000, 'default quote life');
    });
  }
});

describe('PAIR_NOT_SUPPORTED', () => {
  // An asset marked not swappable may be sent but never swapped to or from.
  test('a pair with a non-swappable side is refused, both directions; sends and other swaps still quote', async () => {
    const quote = (sourceAssetId: string, destinationAssetId: string, amount: string) =>
      acct.client.quote({ amount, sourceAssetId, destinationAssetId, senderAddress: sender, recipientAddress: recipient });
    for (const [src, dst] of [['sol', 'usdt'], ['usdt', 'usdc']] as const) {
      const r = await quote(src, dst, src === 'sol' ? '1000000000' : '10000000');
      assert.equal(r.status, 400);
      assert.equal(r.body.error.code, 'PAIR_NOT_SUPPORTED');
      assert.deepEqual(r.body.error.details, { sourceAssetId: src, destinationAssetId: dst });
    }
    assert.equal((await quote('usdt', 'usdt', '10000000')).status, 200);
    assert.equal((await quote('sol', 'usdc', '1000000000')).status, 200);
  });
});

describe('live bounds of a pair (destination inventory)', () => {
  test('deep SOL pools: the configured USDC max binds (details.max = configured max)', async () => {
    const free = await freeSolLamports();
    assert.ok(usdcMaxFor(free) === USDC_MAX && (free * 150n * 10n ** 6n) / 10n ** 9n > USDC_MAX, 'the SOL pools are worth more than the USDC max');
    const e = expectError(await acct.client.quote(swapReq(USDC_MAX + 1n, 'usdc', 'sol')), 400, 'AMOUNT_TOO_HIGH');
    assert.equal(e.details.max, USDC_MAX.toString());
    assert.equal(e.details.min, USDC_MIN.toString());
  });

  let liveMax = 0n;
  test('drained SOL pools: USDC→SOL max = the pools\u2019 free SOL converted back; max+1 → AMOUNT_TOO_HIGH, max → quoted within inventory', async () => {
    await drainSolPools(5n * 1_000_000_000n);
    const free = await freeSolLamports();
    assert.equal(free, 4n * 5n * 1_000_000_000n, 'each of the 4 SOL pools keeps 5 free SOL');
    liveMax = usdcMaxFor(free);
    assert.ok(liveMax < USDC_MAX, 'the inventory bound is now tighter than the configured max');
    await waitForUsdcSolMax(liveMax, 'after the drain');
    const e = expectError(await acct.client.quote(swapReq(liveMax + 1n, 'usdc', 'sol')), 400, 'AMOUNT_TOO_HIGH');
    assert.equal(e.details.max, liveMax.toString());
    const q = expectOk(await acct.client.quote(swapReq(liveMax, 'usdc', 'sol'))).quote;
    assert.equal(q.max, liveMax.toString(), 'the quote carries the live max');
    assert.ok(BigInt(q.amountOut) <= free, 'a quote at the max never promises more than the pools hold');
    // Same-asset sends of SOL see the same inventory (their own bound, in SOL).
    const s = expectError(await acct.client.quote(swapReq(free + 1n, 'sol', 'sol')), 400, 'AMOUNT_TOO_HIGH');
    assert.equal(s.details.max, twoDigits(free).toString());
    // The other direction is untouched: USDC pools are still deep.
    expectOk(await acct.client.quote(swapReq(100n * 1_000_000_000n, 'sol', 'usdc')));
  });

  test('an open order reserves its amountOut for its account: the live max drops by that much (coarse)', async () => {
    const q = expectOk(await acct.client.quote(swapReq(liveMax / 4n, 'usdc', 'sol'))).quote;
    expectOk(await acct.client.order({ quote: q, senderAddress: sender, recipientAddress: recipient }));
    const free = (await freeSolLamports()) - BigInt(q.amountOut);
    liveMax = usdcMaxFor(free);
    await waitForUsdcSolMax(liveMax, 'after the reservation');
  });

  test('order-time re-check: another order reserved the inventory first → 503 INSUFFICIENT_LIQUIDITY with Retry-After', async () => {
    const amount = (liveMax * 6n) / 10n;
    const q1 = expectOk(await acct.client.quote(swapReq(amount, 'usdc', 'sol'))).quote;
    const q2 = expectOk(await acct.client.quote(swapReq(amount, 'usdc', 'sol'))).quote;
    const before = await simOrderCount(h);
    expectOk(await acct.client.order({ quote: q1, senderAddress: sender, recipientAddress: recipient }));
    // Immediately: the first order's reservation must count, not the inventory read before it.
    const res = await acct.client.order({ quote: q2, senderAddress: sender, recipientAddress: recipient });
    const e = expectError(res, 503, 'INSUFFICIENT_LIQUIDITY');
    assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/);
    assert.equal(e.details?.assetId, 'sol');
    assert.equal(await simOrderCount(h), before + 1, 'the refused order was not created');
    // Still refused once the inventory snapshot has caught up (nothing was freed): a refresh now, not its period.
    await h.drive(h.hush.inventory.refresh());
    expectError(await acct.client.order({ quote: q2, senderAddress: sender, recipientAddress: recipient }), 503, 'INSUFFICIENT_LIQUIDITY');
    assert.equal(await simOrderCount(h), before + 1);
  });

  test('order-time re-check: pools lowered between quote and order → 503 INSUFFICIENT_LIQUIDITY', async () => {
    const available = await currentUsdcSolMax();
    const q = expectOk(await acct.client.quote(swapReq((available * 9n) / 10n, 'usdc', 'sol'))).quote;
    const before = await simOrderCount(h);
    await drainSolPools(0n);
    // Wait until the service has seen the drain (its quotes' max drops below this order's need).
    await h.until('the drain to be seen', async () => (await currentUsdcSolMax()) < BigInt(q.amountIn), 20_000);
    const res = await acct.client.order({ quote: q, senderAddress: sender, recipientAddress: recipient });
    expectError(res, 503, 'INSUFFICIENT_LIQUIDITY');
    assert.equal(await simOrderCount(h), before, 'no order was created');
  });
});

/** The live USDC→SOL max the service answers now; 0 while the pools cannot pay even the minimum (503). */
async function currentUsdcSolMax(): Promise<bigint> {
  const res = await acct.client.quote(swapReq(USDC_MAX + 1n, 'usdc', 'sol'));
  if (res.status === 503) {
    expectError(res, 503, 'INSUFFICIENT_LIQUIDITY');
    return 0n;
  }
  const e = expectError(res, 400, 'AMOUNT_TOO_HIGH');
  return BigInt(e.details.max);
}
