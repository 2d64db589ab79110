/**
 * Private swaps end to end on a simulated Hush (test/support/sim-hush.ts: its API, worker, class release, store
 * and local chain on a clock that runs only as the test waits), senders that sign their own deposit, and the
 * embedded prices moved at runtime through HUSH_PRICE_OVERRIDES_FILE (refreshed every simulated second).
 *
 * - SOL→USDC (with and without a partner fee), USDC→SOL (with), USDC→BONK (without): the quote follows
 *   docs/spec.md §4 at the reference prices; the swap order's deadline is HUSH_SWAP_ORDER_TTL_S; the order goes
 *   awaiting_deposit → deposit_detected → deposit_confirmed → swapping → sending → completed; the
 *   recipient holds exactly amountOut of the destination asset, the sender was debited exactly amountIn of
 *   the source asset; the swapping step wrote one 'swap' movement with a source and a destination leg; the
 *   fees (partner fee included) were booked in the source asset.
 * - Firmness and the operator's opt-in drift limit (HUSH_SWAP_MAX_DRIFT_BPS = 200 here): a move against
 *   Hush within the limit before the deposit is absorbed (exactly amountOut); beyond it the deposit is
 *   refunded (reason "price_moved", the sender gets back deposit − networkFee, nothing is swapped or paid
 *   out); without the setting (the default) the same move is absorbed too; a move after the swap was booked
 *   does not matter, the rate was fixed at confirmation (the privacy delay comes after the swap).
 * - After everything settled, the ledger reconciles with the chain.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { expectOk } from '../support/api-responses.ts';
import { simQuery } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimAccount, SimHush } from '../support/sim-hush.ts';
import { cleanReconcile, startSettlementSim, type SimChain } from '../support/sim-settlement.ts';
import { ASSETS, assertHistory, assertPaidOnce, chainTxRows, lamportDelta, placeOrder, type AssetId, type PlacedOrder } from '../support/settlement.ts';

const DELAY_S = 3;
const SWAP_TTL_S = 120;
const SPREAD_BPS = 50n;
const SERVICE_FEE_BPS = 30n;
const SOL = 1_000_000_000n;
/** USD per whole token: config/assets.json reference prices, as [numerator, denominator]. */
type Prices = Record<AssetId, [bigint, bigint]>;
const REFERENCE: Prices = { sol: [150n, 1n], usdc: [1n, 1n], bonk: [2n, 100_000n] };

/** floor(x × pFrom/pTo × 10^(dTo−dFrom) × (10000 − spread)/10000) at the given prices, exactly. */
function convert(x: bigint, from: AssetId, to: AssetId, prices: Prices = REFERENCE): bigint {
  const [fn, fd] = prices[from];
  const [tn, td] = prices[to];
  return (x * fn * td * 10n ** BigInt(ASSETS[to].decimals) * (10_000n - SPREAD_BPS)) / (fd * tn * 10n ** BigInt(ASSETS[from].decimals) * 10_000n);
}

/** docs/spec.md §4, §9: swap payouts are rounded down to the destination's grid (config/assets.json swapGrid, transcribed). */
const SWAP_GRID: Record<string, bigint> = { sol: 100_000n, usdc: 10_000n, usdt: 10_000n, bonk: 100_000_000n };
const onGrid = (x: bigint, to: AssetId) => (x / SWAP_GRID[to]!) * SWAP_GRID[to]!;

const overridesDir = mkdtempSync(join(tmpdir(), 'hush-swap-prices-'));
const OVERRIDES = join(overridesDir, 'prices.json');
let h: SimHush;
let acct: SimAccount;
let cs: SimChain;
let ataRent: bigint;
const completed: string[] = [];

before(async () => {
  ({ h, cs, ataRent } = await startSettlementSim(67, {
    HUSH_PAYOUT_DELAY_S: `${DELAY_S}-${DELAY_S}`,
    HUSH_PRICE_REFRESH_S: '1',
    HUSH_PRICE_MAX_AGE_S: '5',
    HUSH_PRICE_OVERRIDES_FILE: OVERRIDES,
    HUSH_SWAP_ORDER_TTL_S: String(SWAP_TTL_S),
    HUSH_SWAP_MAX_DRIFT_BPS: '200',
    HUSH_REBALANCER: 'off',
  }));
  acct = await h.createAccount({ feeCapBps: 200 });
});
after(async () => {
  await closeSim(h);
  rmSync(overridesDir, { recursive: true, force: true });
});

interface Movement {
  account: string;
  asset_id: string;
  amount: string;
  kind: string;
}

function movement(name: string): Promise<Movement[]> {
  return simQuery<Movement>(h, `SELECT account, asset_id, amount::text AS amount, kind FROM ledger_entries WHERE movement = $1 ORDER BY account, asset_id`, [name]);
}

function legs(rows: Movement[]): string[] {
  return rows.map((r) => `${r.account}|${r.asset_id}|${r.amount}`).sort();
}

/** Places a swap, signs and submits the deposit; returns everything needed to check the outcome. */
async function depositSwap(source: AssetId, destination: AssetId, amount: bigint, opts: { feeBps?: number; hint?: boolean; beforeDeposit?: (p: PlacedOrder) => Promise<void> } = {}) {
  const sender = await cs.fundSender(source, amount);
  const recipient = h.address();
  const fee = opts.feeBps ? { feeBps: opts.feeBps, feeRecipientAddress: acct.feeRecipients[0]! } : {};
  const placed = await placeOrder(acct.client, { amount: amount.toString(), sourceAssetId: source, destinationAssetId: destination, senderAddress: sender.address as Address, recipientAddress: recipient, ...fee } as never);
  await opts.beforeDeposit?.(placed);
  const before = { lamports: await cs.lamports(sender.address), source: (await cs.balance(sender.address, ASSETS[source])) ?? 0n, destination: await cs.balance(sender.address, ASSETS[destination]) };
  // Signed and sent, then waited for at `confirmed` (as the hint below needs).
  const signature = await h.deposit(placed.order, sender);
  if (opts.hint) {
    const body = expectOk(await acct.client.deposit({ trackingId: placed.trackingId, signature }), 200);
    assert.equal(body.order.deposit.signature, signature);
  }
  return { placed, sender, recipient, signature, before };
}

/** The sender paid exactly amountIn of the source asset (plus, in SOL, its own fee and the deposit account rent). */
async function assertSenderDebit(d: Awaited<ReturnType<typeof depositSwap>>, source: AssetId, destination: AssetId): Promise<void> {
  const tx = await cs.landed(d.signature);
  assert.equal(tx.err, null);
  const native = ASSETS[source].native;
  const rent = lamportDelta(tx, d.placed.depositAccount) - (native ? d.placed.amountIn : 0n);
  assert.equal(rent, ataRent, 'the deposit account is a rent-exempt token account');
  const lamportsSpent = d.before.lamports - (await cs.lamports(d.sender.address));
  if (native) assert.equal(lamportsSpent, d.placed.amountIn + tx.fee + rent, 'SOL sender debited exactly amountIn (+ own fee and deposit rent)');
  else {
    assert.equal(lamportsSpent, tx.fee + rent, 'SPL sender pays only its own fee and the deposit rent in SOL');
    assert.equal(d.before.source - ((await cs.balance(d.sender.address, ASSETS[source])) ?? 0n), d.placed.amountIn, 'sender debited exactly amountIn');
  }
  if (!ASSETS[destination].native) assert.equal(await cs.balance(d.sender.address, ASSETS[destination]), d.before.destination, 'the sender holds no more of the destination asset');
}

/** The swap movement: one source leg pair (net of fees) and one destination leg pair (amountOut). */
async function assertSwapLegs(p: PlacedOrder, source: AssetId, destination: AssetId): Promise<void> {
  const rows = await movement(`swap:${p.trackingId}`);
  assert.ok(rows.every((r) => r.kind === 'swap'));
  const net = p.amountIn - BigInt(p.quote.fee);
  assert.deepEqual(
    legs(rows),
    [`swaps:book|${destination}|${p.amountOut}`, `swaps:book|${source}|${-net}`, `swaps:owed|${destination}|${-p.amountOut}`, `swaps:received|${source}|${net}`].sort(),
    'the swapping step moved net source in and amountOut destination out, balanced per asset',
  );
  const ids = await simQuery<{ n: string | number }>(
    h,
    `SELECT count(DISTINCT l.order_id) AS n FROM ledger_entries l JOIN orders o ON o.id = l.order_id WHERE l.movement = $1 AND o.tracking_id = $2`,
    [`swap:${p.trackingId}`, p.trackingId],
  );
  assert.equal(Number(ids[0]!.n), 1, 'the swap legs belong to the order');
}

// Side by side on the one simulated clock, as before beside each other on a live Hush.
describe('swaps end to end (reference prices)', { concurrency: true }, () => {
  for (const [source, destination, amount, feeBps, hint] of [
    ['sol', 'usdc', 2n * SOL, 0, false],
    ['sol', 'usdc', SOL / 2n, 50, true],
    ['usdc', 'sol', 300_000_000n, 100, false],
    ['usdc', 'bonk', 40_000_000n, 0, true],
  ] as const) {
    test(`${source}→${destination}${feeBps ? ` with a ${feeBps} bps partner fee` : ' without a partner fee'}${hint ? ', deposit hint' : ''}`, async () => {
      const d = await depositSwap(source, destination, amount, { feeBps, hint });
      const { placed } = d;
      const q = placed.quote;
      // docs/spec.md §4 at the reference prices, fees in the source asset.
      const serviceFee = (amount * SERVICE_FEE_BPS) / 10_000n;
      const partnerFee = (amount * BigInt(feeBps)) / 10_000n;
      assert.deepEqual(q.feeBreakdown, { serviceFee: serviceFee.toString(), partnerFee: partnerFee.toString(), networkFee: q.networkFee, depositAccountRent: '2039280' });
      assert.equal(BigInt(q.fee), serviceFee + partnerFee + placed.networkFee);
      assert.equal(placed.amountOut, onGrid(convert(amount - BigInt(q.fee), source, destination), destination));
      // The swap deadline, not the send deadline.
      const rec = await h.waitForOrder(acct.client, placed.trackingId, ['completed'], 90_000);
      assert.equal(Date.parse(rec.expiration) - Date.parse(rec.createdAt), SWAP_TTL_S * 1000, 'a swap order lives HUSH_SWAP_ORDER_TTL_S');
      assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'swapping', 'sending', 'completed']);
      assert.equal(rec.sourceAssetId, source);
      assert.equal(rec.destinationAssetId, destination);
      assert.equal(rec.deposit.amount, placed.amountIn.toString());
      assert.equal(rec.refund, null);
      assert.equal(rec.payouts.reduce((s: bigint, p: any) => s + BigInt(p.amount), 0n), placed.amountOut);
      // The recipient (a fresh wallet) holds exactly amountOut of the destination asset.
      assert.equal(await cs.balance(d.recipient, ASSETS[destination]), placed.amountOut, 'recipient holds exactly amountOut');
      if (!ASSETS[destination].native) assert.equal(await cs.lamports(d.recipient), 0n, 'the recipient paid nothing');
      await assertSenderDebit(d, source, destination);
      // Paid once, from the destination asset's pools.
      const rows = await h.drive(assertPaidOnce(h.db, placed.trackingId, 'payout', placed.amountOut));
      const destPools = new Set(h.hush.treasury.pools(destination).map((p) => p.holding as string));
      assert.ok(rows.every((r) => destPools.has(r.source)), 'payouts leave from the destination asset pools');
      await assertSwapLegs(placed, source, destination);
      // Fees booked in the source asset, the partner's share owed to its fee recipient.
      const fees = legs(await movement(`fees:${placed.trackingId}`));
      assert.ok(fees.includes(`income:service|${source}|${-serviceFee}`), JSON.stringify(fees));
      assert.ok(fees.includes(`income:network_fee|${source}|${-placed.networkFee}`), JSON.stringify(fees));
      if (feeBps) assert.ok(fees.includes(`payable:partner:${acct.id}:${acct.feeRecipients[0]}|${source}|${-partnerFee}`), JSON.stringify(fees));
      else assert.ok(!fees.some((f) => f.startsWith('payable:')), 'no partner fee owed');
      completed.push(placed.trackingId);
    });
  }
});

/** Writes the price overrides (USD decimal strings) and waits until a USDC→SOL quote is priced at them. */
async function setSolPrice(usd: string | null): Promise<void> {
  if (usd === null) {
    try {
      unlinkSync(OVERRIDES);
    } catch {
      /* already gone */
    }
  } else writeFileSync(OVERRIDES, JSON.stringify({ sol: usd }));
  const [i, f = ''] = (usd ?? '150').split('.');
  const prices: Prices = { ...REFERENCE, sol: [BigInt(i! + f), 10n ** BigInt(f.length)] };
  const probe = h.address();
  await h.until(
    `quotes priced at SOL = ${usd ?? 'reference'}`,
    async () => {
      const q = expectOk(await acct.client.quote({ amount: '100000000', sourceAssetId: 'usdc', destinationAssetId: 'sol', senderAddress: probe, recipientAddress: probe })).quote;
      return BigInt(q.amountOut) === onGrid(convert(100_000_000n - BigInt(q.fee), 'usdc', 'sol', prices), 'sol');
    },
    20_000,
  );
}

async function liveQuoteOut(p: PlacedOrder): Promise<bigint> {
  const { sourceAssetId, destinationAssetId, amount, senderAddress, recipientAddress } = p.req;
  return BigInt(expectOk(await acct.client.quote({ amount, sourceAssetId, destinationAssetId, senderAddress, recipientAddress })).quote.amountOut);
}

describe('firm quotes and the drift limit (HUSH_SWAP_MAX_DRIFT_BPS = 200)', () => {
  test('a move against Hush within the limit before the deposit: still exactly the quoted amountOut', async () => {
    let live = 0n;
    const d = await depositSwap('usdc', 'sol', 100_000_000n, {
      beforeDeposit: async (p) => {
        await setSolPrice('151.5'); // +1 %: Hush would now deliver ~1 % less
        live = await liveQuoteOut(p);
        assert.ok(live < p.amountOut, `the market moved against Hush (live ${live} < quoted ${p.amountOut})`);
        assert.ok(live * 10_000n >= p.amountOut * 9_800n, 'but within 200 bps');
      },
    });
    const rec = await h.waitForOrder(acct.client, d.placed.trackingId, ['completed'], 90_000);
    assert.equal(rec.amountOut, d.placed.amountOut.toString());
    assert.equal(await cs.lamports(d.recipient), d.placed.amountOut, 'the recipient got the quoted amount, not the live one');
    await assertSenderDebit(d, 'usdc', 'sol');
    await assertSwapLegs(d.placed, 'usdc', 'sol');
    completed.push(d.placed.trackingId);
  });

  test('beyond the limit before the deposit is confirmed: refunded with reason "price_moved", deposit − networkFee back', async () => {
    await setSolPrice(null);
    const d = await depositSwap('usdc', 'sol', 100_000_000n, {
      beforeDeposit: async (p) => {
        await setSolPrice('160'); // +6.7 %: Hush would deliver 6.25 % less than quoted
        assert.ok((await liveQuoteOut(p)) * 10_000n < p.amountOut * 9_800n, 'the live rate is worse than the quote by more than 200 bps');
      },
    });
    const { placed } = d;
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['refunded'], 90_000);
    assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'refunding', 'refunded']);
    assert.equal(rec.failureReason, 'price_moved');
    assert.equal(rec.refund.reason, 'price_moved');
    assert.equal(BigInt(rec.refund.amount), placed.amountIn - placed.networkFee, 'refund = deposit − networkFee');
    assert.deepEqual(rec.payouts, []);
    await h.drive(assertPaidOnce(h.db, placed.trackingId, 'refund', placed.amountIn - placed.networkFee));
    assert.deepEqual(await h.drive(chainTxRows(h.db, placed.trackingId, 'payout')), [], 'nothing was paid out');
    assert.deepEqual(await movement(`swap:${placed.trackingId}`), [], 'nothing was swapped in the ledger');
    // The sender is back to its balance less the network fee; the recipient got nothing.
    assert.equal(d.before.source - ((await cs.balance(d.sender.address, ASSETS.usdc)) ?? 0n), placed.networkFee, 'the sender lost exactly networkFee');
    assert.equal(await cs.lamports(d.recipient), 0n);
    completed.push(placed.trackingId);
  });

  test('with HUSH_SWAP_MAX_DRIFT_BPS unset (the default) the quote is firm: a move far beyond 200 bps still delivers exactly amountOut', async () => {
    await setSolPrice(null);
    // The running worker's settings, as a Hush started without the variable has them.
    const config = h.hush.config as { swapMaxDriftBps: number | null };
    config.swapMaxDriftBps = null;
    try {
      const d = await depositSwap('usdc', 'sol', 100_000_000n, {
        beforeDeposit: async (p) => {
          await setSolPrice('160');
          assert.ok((await liveQuoteOut(p)) * 10_000n < p.amountOut * 9_800n, 'the live rate is worse than the quote by more than 200 bps');
        },
      });
      const rec = await h.waitForOrder(acct.client, d.placed.trackingId, ['completed', 'refunded'], 90_000);
      assert.equal(rec.status, 'completed', JSON.stringify(rec.refund));
      assert.equal(await cs.lamports(d.recipient), d.placed.amountOut, 'exactly the quoted amount');
      await assertSwapLegs(d.placed, 'usdc', 'sol');
      completed.push(d.placed.trackingId);
    } finally {
      config.swapMaxDriftBps = 200;
      await setSolPrice(null);
    }
  });

  test('a move after the deposit is confirmed and the swap booked does not matter: the rate is fixed at confirmation, before the privacy delay', async () => {
    await setSolPrice(null);
    const d = await depositSwap('usdc', 'sol', 100_000_000n);
    // The move comes once the rate is booked (swapping) and before the payout: 'completed' here fails the wait.
    await h.waitForOrder(acct.client, d.placed.trackingId, ['swapping', 'sending'], 60_000);
    await setSolPrice('200'); // +33 %: far beyond the limit, but after confirmation
    const rec = await h.waitForOrder(acct.client, d.placed.trackingId, ['completed'], 90_000);
    assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'swapping', 'sending', 'completed']);
    const at = (s: string) => Date.parse(rec.history.find((x: any) => x.status === s).at);
    assert.ok(at('swapping') - at('deposit_confirmed') < DELAY_S * 1000, `swapping ${at('swapping') - at('deposit_confirmed')} ms after confirmation: the drift check belongs to confirmation, not to the payout ${DELAY_S} s later`);
    assert.equal(await cs.lamports(d.recipient), d.placed.amountOut);
    await assertSwapLegs(d.placed, 'usdc', 'sol');
    completed.push(d.placed.trackingId);
    await setSolPrice(null);
  });
});

describe('ledger', () => {
  test('after settlement the ledger reconciles with the chain (ok: true, nothing pending)', async () => {
    assert.equal(completed.length, 8, 'every swap scenario settled');
    const report = await cleanReconcile(h, 60_000);
    assert.equal(report.ok, true);
    for (const a of report.assets) assert.equal(a.ok, true, `${a.assetId}: ${JSON.stringify(a.mismatches)}`);
    // Swap accounts balance per asset across all orders (each movement is balanced; the book nets out).
    const rows = await simQuery<{ asset_id: string; total: string }>(h, `SELECT asset_id, sum(amount)::text AS total FROM ledger_entries WHERE kind = 'swap' GROUP BY asset_id`);
    assert.ok(rows.length >= 3, 'swap legs in usdc, sol and bonk');
    for (const r of rows) assert.equal(r.total, '0', `swap legs of ${r.asset_id} sum to zero`);
  });
});
