/** The screening log (src/store/screening-log-store.ts, migration 019): written, paged, and an order's latest decision per stage. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { listScreeningLog, recordScreening, releaseCovers, screeningResultsFor } from '../../src/store/screening-log-store.ts';
import { forEachEngine } from '../support/databases.ts';

const TRK = 'trk_2JryitQJkiaRiDSdak1qQ1';
const OTHER = 'trk_2JryitQJkiaRiDSdak1qQ2';

forEachEngine('screening log', (ctx) => {
  it('records decisions; lists them newest first, paged and per order; gives the latest of each stage for a receipt', async () => {
    await recordScreening(ctx.db, { stage: 'quote', field: 'senderAddress', address: 'A', result: 'blocked', list: 'sdn.csv', version: 'v1', reason: 'listed', actor: 'hush' });
    await recordScreening(ctx.db, { trackingId: TRK, stage: 'deposit', address: 'S', result: 'error', list: 'http:risk', reason: 'timeout', actor: 'hush' });
    await recordScreening(ctx.db, { trackingId: TRK, stage: 'deposit', address: 'S', result: 'clear', actor: 'hush' });
    await recordScreening(ctx.db, { trackingId: OTHER, stage: 'deposit', address: 'S2', result: 'clear', actor: 'hush' });
    await recordScreening(ctx.db, { trackingId: TRK, stage: 'payout', address: 'R', result: 'clear', actor: 'hush' });
    await recordScreening(ctx.db, { trackingId: TRK, stage: 'resolution', result: 'release', actor: 'admin', note: 'false positive' });

    const all = await listScreeningLog(ctx.db);
    assert.equal(all.length, 6);
    assert.deepEqual(all.map((e) => e.stage), ['resolution', 'payout', 'deposit', 'deposit', 'deposit', 'quote']);
    assert.match(all[0]!.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const page = await listScreeningLog(ctx.db, { limit: 2 });
    assert.deepEqual(await listScreeningLog(ctx.db, { beforeId: page[1]!.id, limit: 1 }), [all[2]]);
    assert.equal((await listScreeningLog(ctx.db, { trackingId: TRK })).length, 4);

    const results = await screeningResultsFor(ctx.db, [TRK, 'trk_none']);
    const latest = results.get(TRK)!;
    assert.deepEqual(latest.map((e) => [e.stage, e.result]), [['deposit', 'clear'], ['payout', 'clear'], ['resolution', 'release']]);
    assert.equal(latest[2]!.note, 'false positive');
    assert.deepEqual(results.get('trk_none'), []);
  });

  it("a release of late funds held at an order's account does not cover the order's own finding; the order's own release does", async () => {
    const finding = { result: 'blocked' as const, field: 'senderAddress', address: 'S', list: 'sdn.csv', version: 'v1', reason: 'listed' };
    await recordScreening(ctx.db, { trackingId: TRK, stage: 'refund', ...finding, actor: 'hush' });
    const { rows } = await ctx.db.query<{ id: string }>(
      `INSERT INTO screening_holds (kind, subject, tracking_id, asset_id, amount, status, stage, result, field, address, list, version, reason, created_at)
       VALUES ('late', 'sig:1', $1, 'usdc', 5, 'refund_due', 'late', 'blocked', 'senderAddress', 'S', 'sdn.csv', 'v1', 'listed', now()) RETURNING id::text AS id`,
      [TRK],
    );
    await ctx.db.query(`INSERT INTO screening_log (tracking_id, stage, result, actor, note, hold_id, at) VALUES ($1, 'resolution', 'release', 'admin', 'late hold', $2, now())`, [TRK, rows[0]!.id]);
    assert.equal(await releaseCovers(ctx.db, TRK, finding), false, "the late funds' release answered those funds only");
    await recordScreening(ctx.db, { trackingId: TRK, stage: 'resolution', result: 'release', actor: 'admin', note: 'the order itself' });
    assert.equal(await releaseCovers(ctx.db, TRK, finding), true);
  });

  it('lists newest first by the numeric id, past 9 (ids 10 and on sort first)', async () => {
    for (let i = 0; i < 12; i++) await recordScreening(ctx.db, { trackingId: OTHER, stage: 'deposit', address: `A${i}`, result: 'clear', actor: 'hush' });
    const page = await listScreeningLog(ctx.db, { trackingId: OTHER, limit: 5 });
    assert.deepEqual(page.map((e) => e.address), ['A11', 'A10', 'A9', 'A8', 'A7']);
    const ids = (await listScreeningLog(ctx.db)).map((e) => BigInt(e.id));
    assert.deepEqual(ids, [...ids].sort((a, b) => (a > b ? -1 : 1)));
  });

  it('refuses an unknown stage or result', async () => {
    await assert.rejects(recordScreening(ctx.db, { stage: 'later' as never, result: 'clear', actor: 'hush' }));
    await assert.rejects(recordScreening(ctx.db, { stage: 'quote', result: 'maybe' as never, actor: 'hush' }));
  });
});
