/** Late-funds holds in the store (src/store/holds/fund-holds.ts): released ones are read page by page, and a hold can go back to held. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { holdLateFunds, lateFundsDue, LATE_FUNDS_PAGE, reholdLateFunds, resolveFundHold, type FundHoldFinding } from '../../src/store/holds/fund-holds.ts';
import { forEachEngine } from '../support/databases.ts';
import { orderIn } from '../support/settlement-fixtures.ts';

const finding = (address: string): FundHoldFinding => ({ stage: 'late', result: 'blocked', field: 'lateFundsPayer', address, list: 'own.txt', version: 'v1', reason: 'listed' });

forEachEngine('late fund holds', (ctx) => {
  it('every released hold is reached page by page, past a full page that cannot be paid; a re-hold takes a released one back', async () => {
    const { id, order } = await orderIn(ctx.db, 'completed');
    const o = { id, trackingId: order.trackingId, sourceAssetId: order.sourceAssetId };
    const ids: string[] = [];
    for (let i = 0; i < LATE_FUNDS_PAGE + 3; i++) {
      await ctx.db.transaction((tx) => holdLateFunds(tx, `sweep${i}:${id}`, o, 1_000n + BigInt(i), finding(`payer${i}`)));
      const { rows } = await ctx.db.query<{ id: string }>('SELECT id::text AS id FROM screening_holds WHERE subject = $1', [`sweep${i}:${id}`]);
      ids.push(rows[0]!.id);
      assert.equal(await resolveFundHold(ctx.db, rows[0]!.id, 'refund_due', 'alice', 'false positive'), true);
    }
    const first = await lateFundsDue(ctx.db);
    assert.equal(first.length, LATE_FUNDS_PAGE);
    const rest = await lateFundsDue(ctx.db, first.at(-1)!.id);
    assert.deepEqual([...first, ...rest].map((h) => h.id), ids, 'all of them, in order, once');
    assert.equal(rest.at(-1)!.amount, 1_000n + BigInt(LATE_FUNDS_PAGE + 2));

    const again = finding('another payer');
    assert.equal(await reholdLateFunds(ctx.db, ids[0]!, order.trackingId, again), true);
    assert.equal(await reholdLateFunds(ctx.db, ids[0]!, order.trackingId, again), false, 'compare-and-set: held already');
    const { rows } = await ctx.db.query<{ status: string; address: string; resolved_at: Date | null }>('SELECT status, address, resolved_at FROM screening_holds WHERE id = $1', [ids[0]]);
    assert.deepEqual(rows[0], { status: 'held', address: 'another payer', resolved_at: null });
    assert.equal((await lateFundsDue(ctx.db)).some((h) => h.id === ids[0]), false, 'no longer due');
    const log = await ctx.db.query<{ n: string }>("SELECT count(*)::text AS n FROM screening_log WHERE tracking_id = $1 AND stage = 'late' AND address = 'another payer'", [order.trackingId]);
    assert.equal(log.rows[0]!.n, '1', 'its screening-log row');
  });
});
