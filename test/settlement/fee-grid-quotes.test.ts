/**
 * The quote's networkFee on the fee grid, end to end on a simulated Hush whose chain turns busy and calm again
 * (src/localnet/leader-queue.ts, setProfile), with nobody signing anything while the market turns: the idle worker
 * reads the market (FeePrices.readIdle) and steps the shared grid; partners see it in their quotes over the API.
 * The networkFee steps up only after the market stayed busy for the grid's up delay, never for a class whose
 * window is open, and down only after the calm lasted the down delay; an order placed on a quote from before the
 * step pays that quote's figure, and the ledger splits its payout's fee at its quote's rung, not the one in effect;
 * members released together carry one networkFee. Time is the simulator's: nothing sleeps.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { computeUnitPriceOfWire } from '../../src/chain/wire-price.ts';
import { GRID_RULE } from '../../src/domain/fee-grid.ts';
import { GRID_ANNOUNCE_MS, type SharedGrid } from '../../src/domain/fee-grid-shared.ts';
import { CONGESTION_DEFAULTS } from '../../src/localnet/congestion-profile.ts';
import { absorbedPriorityFee } from '../../src/ledger/network-cost.ts';
import { readFeeGrid } from '../../src/store/fee-grid-store.ts';
import { expectOk } from '../support/api-responses.ts';
import { assertPaidOnce } from '../support/settlement-landed.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, USDC, type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import { depositOne, depositTogether, placeUsdc, releasedWith, usdcSender, type SimOrder } from '../support/sim-privacy.ts';

/** 10 USDC: a private amount (its class waits for company); 2 USDC: off the menu (no class). */
const CLASS_AMOUNT = String(10n * USDC);
const OFF_MENU = String(2n * USDC);
/** The API reads the shared grid every 5 s (FeeGridView): a quote a little later sees what the workers wrote. */
const API_READ_MS = 6_000;

interface Quoted {
  quote: any;
  sender: SimWallet;
  recipient: Address;
}

async function quote(h: SimHush, acct: SimAccount, amount: string, sender: SimWallet): Promise<Quoted> {
  const recipient = h.address();
  const q = expectOk(await acct.client.quote({ amount, sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient })).quote;
  return { quote: q, sender, recipient };
}

/** An order on a quote taken earlier (within its life): what the partner holds is what it gets. */
async function orderOn(acct: SimAccount, q: Quoted): Promise<SimOrder> {
  const order = expectOk(await acct.client.order({ quote: q.quote, senderAddress: q.sender.address, recipientAddress: q.recipient })).order;
  return { trackingId: order.trackingId, quote: q.quote, order, amountOut: BigInt(order.amountOut), sender: q.sender, recipient: q.recipient };
}

async function grid(h: SimHush): Promise<SharedGrid> {
  const row = await h.drive(readFeeGrid(h.db));
  assert.ok(row, 'a worker has read the market into the shared grid');
  return row.grid;
}

async function orderRow(h: SimHush, trackingId: string): Promise<{ id: string; networkFee: bigint; networkFeePrice: bigint | null }> {
  const { rows } = await h.drive(h.db.query<{ id: string; network_fee: string; price: string | null }>('SELECT id::text, network_fee::text, network_fee_price::text AS price FROM orders WHERE tracking_id = $1', [trackingId]));
  const r = rows[0]!;
  return { id: r.id, networkFee: BigInt(r.network_fee), networkFeePrice: r.price === null ? null : BigInt(r.price) };
}

/** Releases whose members do not all carry one networkFee (and one quoted rung): must be none. */
async function splitReleases(h: SimHush): Promise<{ released: number; split: number }> {
  const { rows } = await h.drive(
    h.db.query<{ fees: string; prices: string }>(
      `SELECT count(DISTINCT network_fee)::text AS fees, count(DISTINCT network_fee_price)::text AS prices FROM orders
        WHERE class_released_at IS NOT NULL GROUP BY source_asset_id, destination_asset_id, mode, amount_in, class_released_at`,
    ),
  );
  return { released: rows.length, split: rows.filter((r) => r.fees !== '1' || r.prices !== '1').length };
}

describe('the network fee on the grid, as a partner sees it', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 731, congestion: { ...CONGESTION_DEFAULTS, profile: 'calm', seed: 731 } });
    acct = await h.createAccount();
  });
  after(() => closeSim(h));

  test('a quote steps up in a busy hour and down when calm; an old quote is honoured; no release is split', async (t) => {
    const units = h.config.computeUnitLimit;
    const [sa, sb, sc, sq] = [await usdcSender(h), await usdcSender(h), await usdcSender(h), await usdcSender(h)];
    // Calm, idle: the worker's idle reading starts the grid at the market's rung.
    await h.until('the idle worker read the market into the grid', async () => (await readFeeGrid(h.db)) ?? null, 120_000, 1_000);
    await h.advance(API_READ_MS);
    const calm = await grid(h);
    assert.equal(calm.pending, null);
    const r0 = calm.step;
    const calmOff = BigInt((await quote(h, acct, OFF_MENU, sq)).quote.networkFee);
    const calmClass = BigInt((await quote(h, acct, CLASS_AMOUNT, sq)).quote.networkFee);

    // A member of the class, held for company: its window is open across the step.
    const a = await placeUsdc(h, acct, CLASS_AMOUNT, { sender: sa, privacy: { minAnonymitySet: 2 } });
    assert.equal(BigInt(a.quote.networkFee), calmClass);
    assert.equal((await orderRow(h, a.trackingId)).networkFee, calmClass, "the order's networkFee is its quote's");
    await depositOne(h, acct.client, a);

    // The market turns busy; nobody signs anything.
    const busyFrom = h.now();
    h.world.chain.leader!.setProfile('busy');
    const decided = await h.until('a step up decided', async () => (await readFeeGrid(h.db))?.grid.pending ?? null, 15 * 60_000, 5_000);
    assert.equal(decided.from, r0);
    assert.ok(decided.to > r0, `steps up: ${r0} → ${decided.to}`);
    assert.ok(decided.decidedAt - GRID_ANNOUNCE_MS - busyFrom >= GRID_RULE.upAfterMs, `decided ${decided.decidedAt - GRID_ANNOUNCE_MS - busyFrom} ms after the market turned, not before the up delay (${GRID_RULE.upAfterMs})`);
    assert.ok(h.now() < decided.decidedAt, 'seen while announced');
    // Announced, not yet decided: every quote is still at the old rung. This one is kept for later.
    const old = await quote(h, acct, OFF_MENU, sc);
    assert.equal(BigInt(old.quote.networkFee), calmOff, 'before the decision every quote is at the old rung');

    await h.advance(decided.decidedAt - h.now() + API_READ_MS);
    const busyOff = BigInt((await quote(h, acct, OFF_MENU, sq)).quote.networkFee);
    assert.ok(busyOff > calmOff, `a busy hour: networkFee ${calmOff} → ${busyOff}`);
    const bQuote = await quote(h, acct, CLASS_AMOUNT, sb);
    assert.equal(BigInt(bQuote.quote.networkFee), calmClass, "the open class's window keeps the old rung: no step inside it");

    // The old quote, still alive: ordered after the step, it pays what it said.
    const c = await orderOn(acct, old);
    const cRow = await orderRow(h, c.trackingId);
    assert.equal(cRow.networkFee, calmOff, 'the order keeps its quote networkFee, not the one quoted now');
    assert.equal(c.order.amountOut, old.quote.amountOut, 'and so its amountOut');
    assert.equal(cRow.networkFeePrice, r0, 'the order records the rung its quote was priced at');

    // The class's second member completes the set: released together, one networkFee.
    const b = await placeUsdc(h, acct, CLASS_AMOUNT, { sender: sb, privacy: { minAnonymitySet: 2 } });
    assert.equal(BigInt(b.quote.networkFee), calmClass, 'the class keeps the old rung to its release');
    await depositTogether(h, acct.client, [b]);
    const [ra, rb] = [await releasedWith(h, acct.client, a), await releasedWith(h, acct.client, b)];
    assert.equal(ra.privacy.releasedWith, 2);
    assert.equal(rb.privacy.releasedWith, 2);
    const [oa, ob] = [await orderRow(h, a.trackingId), await orderRow(h, b.trackingId)];
    assert.deepEqual([oa.networkFee, ob.networkFee, oa.networkFeePrice, ob.networkFeePrice], [calmClass, calmClass, r0, r0], 'released together, quoted at one rung');

    // The class released, the move takes effect: the class's quotes step up too.
    await h.until('the step up in effect', async () => {
      const g = (await readFeeGrid(h.db))?.grid;
      return g && !g.pending && g.step === decided.to ? g : null;
    }, 10 * 60_000, 2_000);
    await h.advance(API_READ_MS);
    const r1 = decided.to;
    assert.ok(BigInt((await quote(h, acct, CLASS_AMOUNT, sq)).quote.networkFee) > calmClass, "the class's quote steps up once its window released");

    // The old quote's order is funded now, under the new rung: it pays its quote, and the ledger splits its
    // payout's fee at the rung it was quoted at (r0), not the one in effect (r1).
    await depositOne(h, acct.client, c);
    await h.waitForOrder(acct.client, c.trackingId, ['completed'], 600_000);
    await assertPaidOnce(h.db, c.trackingId, 'payout', BigInt(old.quote.amountOut));
    const { rows: payouts } = await h.drive(h.db.query<{ signature: string; wire: string }>(`SELECT signature, wire FROM chain_txs WHERE order_id = $1 AND kind = 'payout' AND status = 'confirmed'`, [(await orderRow(h, c.trackingId)).id]));
    assert.equal(payouts.length, 1);
    const paid = computeUnitPriceOfWire(payouts[0]!.wire)!;
    const { rows: legs } = await h.drive(
      h.db.query<{ movement: string; account: string; amount: string }>(
        `SELECT movement, account, amount::text FROM ledger_entries WHERE movement IN ($1, $2) AND account IN ('expense:network_absorbed', 'income:network_fee')`,
        [`tx:${payouts[0]!.signature}:cost`, `fees:${c.trackingId}`],
      ),
    );
    const leg = (account: string) => BigInt(legs.find((l) => l.account === account)?.amount ?? '0');
    assert.equal(leg('income:network_fee'), -BigInt(old.quote.networkFee), "the ledger's network fee income is the quote's");
    assert.notEqual(absorbedPriorityFee(paid, r0, units), absorbedPriorityFee(paid, r1, units), 'the two rungs split differently');
    assert.equal(leg('expense:network_absorbed'), absorbedPriorityFee(paid, r0, units), `absorbed at the quoted rung ${r0} (paid ${paid}), not the rung in effect ${r1}`);

    // Calm again: the networkFee steps down only after the calm lasted the down delay.
    const calmFrom = h.now();
    h.world.chain.leader!.setProfile('calm');
    const down = await h.until('a step down decided', async () => (await readFeeGrid(h.db))?.grid.pending ?? null, 45 * 60_000, 10_000);
    assert.equal(down.from, r1);
    assert.ok(down.to < r1, `steps down: ${r1} → ${down.to}`);
    assert.ok(down.decidedAt - GRID_ANNOUNCE_MS - calmFrom >= GRID_RULE.downAfterMs, `decided ${down.decidedAt - GRID_ANNOUNCE_MS - calmFrom} ms after the calm began (down delay ${GRID_RULE.downAfterMs})`);
    await h.until('the step down in effect', async () => {
      const g = (await readFeeGrid(h.db))?.grid;
      return g && !g.pending ? g : null;
    }, 5 * 60_000, 2_000);
    await h.advance(API_READ_MS);
    const calmAgain = BigInt((await quote(h, acct, OFF_MENU, sq)).quote.networkFee);
    assert.ok(calmAgain < busyOff, `calm: networkFee ${busyOff} → ${calmAgain}`);
    if (down.to === r0) assert.equal(calmAgain, calmOff, 'back at the calm rung: the calm figure');

    t.diagnostic(`rungs ${r0} → ${r1} (decided ${Math.round((decided.decidedAt - GRID_ANNOUNCE_MS - busyFrom) / 1000)} s into the busy market) → ${down.to} (${Math.round((down.decidedAt - GRID_ANNOUNCE_MS - calmFrom) / 1000)} s into the calm); off-menu networkFee ${calmOff} → ${busyOff} → ${calmAgain}; the old quote's payout paid ${paid}, absorbed ${leg('expense:network_absorbed')} lamports at rung ${r0}`);
    const releases = await splitReleases(h);
    assert.ok(releases.released >= 1);
    assert.equal(releases.split, 0, 'no release has members at two networkFees');
  });
});
