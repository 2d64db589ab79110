/**
 * A release never pays its members two amounts, even when they were quoted at two rungs of the fee grid
 * (docs/decisions.md, "The network fee on a grid: one payout per release"). The case bench:privacy's grid phase
 * met: a member quoted after a move's decision at the old rung (its class's window was open) whose deposit
 * lands after that window was released. It waits for the next window, which by its quote's time opened after
 * the decision: the move takes effect and the window's later members are quoted at the new rung. Released
 * together, each is paid the larger amountOut among them (Hush absorbs the networkFee difference), never less
 * than its own quote. The move is injected into the shared grid (no busy market to wait out): a few simulated
 * minutes. Time is the simulator's: nothing sleeps.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { computeUnitPriceOfWire } from '../../src/chain/wire-price.ts';
import { GRID_ANNOUNCE_MS } from '../../src/domain/fee-grid-shared.ts';
import { CONGESTION_DEFAULTS } from '../../src/localnet/congestion-profile.ts';
import { absorbedPriorityFee } from '../../src/ledger/network-cost.ts';
import { readFeeGrid, writeFeeGrid } from '../../src/store/fee-grid-store.ts';
import { expectOk } from '../support/api-responses.ts';
import { assertPaidOnce } from '../support/settlement-landed.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, USDC, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { depositOne, depositTogether, placeUsdc, releasedWith, type SimOrder } from '../support/sim-privacy.ts';

const CLASS_AMOUNT = String(10n * USDC);
/** The API reads the shared grid every 5 s (FeeGridView): a quote a little later sees what the workers wrote. */
const API_READ_MS = 6_000;
const PAIR = { minAnonymitySet: 2 };

interface Row {
  id: string;
  amountOut: bigint;
  networkFee: bigint;
  price: bigint | null;
  releasedAt: string | null;
}

async function row(h: SimHush, o: SimOrder): Promise<Row> {
  const { rows } = await h.drive(
    h.db.query<{ id: string; amount_out: string; network_fee: string; price: string | null; released: string | null }>(
      'SELECT id::text, amount_out::text, network_fee::text, network_fee_price::text AS price, class_released_at::text AS released FROM orders WHERE tracking_id = $1',
      [o.trackingId],
    ),
  );
  const r = rows[0]!;
  return { id: r.id, amountOut: BigInt(r.amount_out), networkFee: BigInt(r.network_fee), price: r.price === null ? null : BigInt(r.price), releasedAt: r.released };
}

describe('a release across a grid move', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 732, congestion: { ...CONGESTION_DEFAULTS, profile: 'calm', seed: 732 } });
    acct = await h.createAccount();
  });
  after(() => closeSim(h));

  test('a member quoted at the old rung and funded after its window released: its release, with members quoted at the new rung, is paid one amount, never below a quote', async (t) => {
    const units = h.config.computeUnitLimit;
    await h.until('the idle worker read the market into the grid', async () => (await readFeeGrid(h.db)) ?? null, 120_000, 1_000);
    await h.advance(API_READ_MS);

    // The class's window opens at the calm rung: a member held for company.
    const a = await placeUsdc(h, acct, CLASS_AMOUNT, { privacy: PAIR });
    await depositOne(h, acct.client, a);

    // A move up, as a worker decides it (announced GRID_ANNOUNCE_MS ahead).
    const g = (await h.drive(readFeeGrid(h.db)))!;
    const r0 = g.grid.step;
    const r1 = r0 * 4n;
    const decidedAt = h.now() + GRID_ANNOUNCE_MS;
    assert.ok(await h.drive(writeFeeGrid(h.db, g.version, { ...g.grid, pending: { from: r0, to: r1, decidedAt, effectiveAt: decidedAt } })));
    await h.advance(decidedAt - h.now() + API_READ_MS);

    // After the decision the open window keeps the old rung: b is ordered and not funded yet, c completes a's set.
    const b = await placeUsdc(h, acct, CLASS_AMOUNT, { privacy: PAIR });
    const c = await placeUsdc(h, acct, CLASS_AMOUNT, { privacy: PAIR });
    assert.equal(b.quote.networkFee, a.quote.networkFee, 'the open window keeps the old rung');
    assert.equal(c.quote.networkFee, a.quote.networkFee);
    await depositOne(h, acct.client, c);
    const [ra, rc] = [await releasedWith(h, acct.client, a), await releasedWith(h, acct.client, c)];
    assert.deepEqual([ra.privacy.releasedWith, rc.privacy.releasedWith], [2, 2], 'a and c released together, without b');
    assert.equal((await row(h, b)).releasedAt, null);

    // b alone is the class's window now, opened (its quote) after the decision: the move takes effect.
    await h.until('the move in effect', async () => {
      const now = (await readFeeGrid(h.db))?.grid;
      return now && !now.pending && now.step === r1 ? now : null;
    }, 5 * 60_000, 2_000);
    await h.advance(API_READ_MS);
    const d = await placeUsdc(h, acct, CLASS_AMOUNT, { privacy: PAIR });
    assert.ok(BigInt(d.quote.networkFee) > BigInt(b.quote.networkFee), `d quoted at the new rung: ${b.quote.networkFee} → ${d.quote.networkFee}`);
    assert.ok(d.amountOut < b.amountOut);

    // b's deposit lands now; d's with it: one release, two quotes.
    await depositTogether(h, acct.client, [b, d]);
    const [rb, rd] = [await releasedWith(h, acct.client, b), await releasedWith(h, acct.client, d)];
    assert.deepEqual([rb.privacy.releasedWith, rd.privacy.releasedWith], [2, 2], 'b and d released together');
    const [ob, od] = [await row(h, b), await row(h, d)];
    assert.equal(ob.releasedAt, od.releasedAt);
    t.diagnostic(`b quoted ${b.quote.networkFee} (out ${b.amountOut}), d quoted ${d.quote.networkFee} (out ${d.amountOut}); paid b ${ob.amountOut}, d ${od.amountOut}`);
    assert.equal(od.amountOut, ob.amountOut, 'members released together are paid one amount: what the chain shows cannot split them');
    assert.equal(ob.amountOut, b.amountOut, "b is paid its quote's amountOut");
    assert.ok(od.amountOut >= d.amountOut, 'never less than the quote promised');
    assert.deepEqual([od.networkFee, od.price], [ob.networkFee, r0], "d's networkFee is the release's: Hush absorbs the difference");
    await assertPaidOnce(h.db, d.trackingId, 'payout', ob.amountOut);
    await assertPaidOnce(h.db, b.trackingId, 'payout', ob.amountOut);

    // The ledger: d's network fee income is the release's figure; its payout's priority fee beyond r0 is absorbed.
    const { rows: payouts } = await h.drive(h.db.query<{ signature: string; wire: string }>(`SELECT signature, wire FROM chain_txs WHERE order_id = $1 AND kind = 'payout' AND status = 'confirmed'`, [od.id]));
    assert.equal(payouts.length, 1);
    const paid = computeUnitPriceOfWire(payouts[0]!.wire)!;
    const { rows: legs } = await h.drive(
      h.db.query<{ account: string; amount: string }>(
        `SELECT account, amount::text FROM ledger_entries WHERE movement IN ($1, $2) AND account IN ('expense:network_absorbed', 'income:network_fee')`,
        [`tx:${payouts[0]!.signature}:cost`, `fees:${d.trackingId}`],
      ),
    );
    const leg = (account: string) => BigInt(legs.find((l) => l.account === account)?.amount ?? '0');
    assert.equal(leg('income:network_fee'), -ob.networkFee);
    assert.equal(leg('expense:network_absorbed'), absorbedPriorityFee(paid, r0, units), `absorbed at the release's rung ${r0} (paid ${paid})`);
    assert.equal(expectOk(await acct.client.status(d.trackingId)).order.amountOut, String(ob.amountOut), 'the status record says what was paid');
  });
});
