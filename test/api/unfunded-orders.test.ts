/**
 * Unfunded orders must not lock pool liquidity (docs/spec.md §4 "Liquidity"), on a simulated Hush
 * (test/support/sim-hush.ts: API and worker, PGlite, the local chain on its clock):
 * - one account places ten orders at the USDC maximum and funds none (the flood that, on the old code, took
 *   all but ~3,000 of the pools' ~1,000,000 USDC for the orders' 30 minutes); another account's `max` stays
 *   what it was, and its quote and order at the maximum go through, before and after the inventory re-reads
 *   the orders from the store;
 * - the flooding account's own promises count in full against it (its next large order fails fast);
 * - no public figure gives the exact free balance: the `max` it is shown (AMOUNT_TOO_HIGH details, the
 *   quote, GET /tokens) is the exact figure rounded down to two significant digits, never the figure itself.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expectError, expectOk } from '../support/api-responses.ts';
import { simOrderCount, startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimAccount, SimHush } from '../support/sim-hush.ts';

/** config/assets.json, transcribed. */
const USDC_MAX = 100_000_000_000n;
/** Inventory refresh period (src/services/inventory.ts). */
const REFRESH_MS = 2_000;

/** Rounded down to two significant digits, written independently of src/domain/coarse-amount.ts. */
function twoDigits(x: bigint): bigint {
  const s = x.toString();
  return s.length <= 2 ? x : BigInt(s.slice(0, 2) + '0'.repeat(s.length - 2));
}

let h: SimHush;
let flooder: SimAccount;
let other: SimAccount;
let sender: string;
let recipient: string;

before(async () => {
  // No rebalancer: the pools hold what they were funded with for the whole test.
  h = await startApiSim({ seed: 2, env: { HUSH_REBALANCER: 'off' } });
  flooder = await h.createAccount();
  other = await h.createAccount();
  sender = h.address();
  recipient = h.address();
});
after(() => closeSim(h));

const usdc = (amount: bigint) => ({ amount: amount.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender, recipientAddress: recipient });

async function tokensMax(a: SimAccount): Promise<bigint> {
  const tokens = expectOk(await a.client.tokens()).tokens as { assetId: string; max: string }[];
  return BigInt(tokens.find((x) => x.assetId === 'usdc')!.max);
}

/** What the USDC pools hold at `confirmed` (no payout is pending in this test). */
async function usdcPools(): Promise<bigint> {
  let total = 0n;
  for (const p of h.hush.treasury.pools('usdc')) total += await h.drive(h.chain.tokens(p.holding));
  return total;
}

async function placeOrder(a: SimAccount, amount: bigint): Promise<bigint> {
  const q = expectOk(await a.client.quote(usdc(amount))).quote;
  expectOk(await a.client.order({ quote: q, senderAddress: sender, recipientAddress: recipient }));
  return BigInt(q.amountOut);
}

test('an unfunded-order flood from one account leaves another account its max; its own promises count against it in full; the max shown is coarse', async () => {
  const pools = await usdcPools();
  assert.equal(await tokensMax(other), USDC_MAX, 'deep pools: the configured maximum binds');

  let promised = 0n;
  for (let i = 0; i < 10; i++) promised += await placeOrder(flooder, USDC_MAX);
  assert.ok(pools - promised < USDC_MAX / 10n, `the flood promised all but ${pools - promised} of ${pools}: on the old code no other order of size fits`);

  // Another account, at once (the flood's reservations in memory) and after a refresh has read the orders
  // from the store (one period and a margin of simulated time).
  assert.equal(await tokensMax(other), USDC_MAX, 'its max right after the flood');
  await h.advance(REFRESH_MS + 700);
  assert.equal(await tokensMax(other), USDC_MAX, 'its max once the inventory re-read the store');
  // The flooder sees its own promises in full: its next large order fails fast. What it is shown is coarse.
  const exact = pools - promised;
  const e = expectError(await flooder.client.quote(usdc(USDC_MAX)), 400, 'AMOUNT_TOO_HIGH');
  assert.equal(e.details.max, twoDigits(exact).toString(), `max = ${exact} rounded down to two significant digits`);
  assert.notEqual(e.details.max, exact.toString(), 'never the exact free balance');
  assert.ok(BigInt(e.details.max) * 10n > exact * 9n, 'within 10 % of it');
  assert.equal(await tokensMax(flooder), twoDigits(exact), 'GET /tokens shows the same coarse figure');
  const small = expectOk(await flooder.client.quote(usdc(1_000_000n))).quote;
  assert.equal(small.max, twoDigits(exact).toString(), "and so does a quote's max");

  // The other account's quote and order at the maximum go through.
  const before = await simOrderCount(h);
  await placeOrder(other, USDC_MAX);
  assert.equal(await simOrderCount(h), before + 1, 'its order at the maximum is created');
});
