/**
 * Claims and comments on holds, and the history of resolved holds, in the store (src/store/holds/hold-*.ts,
 * migration 032): every claim is a compare-and-set on the claim the caller saw, an order held again is a new hold
 * with nothing of the last one's, and the history pages newest first without dropping or repeating an item.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { HoldsService } from '../../src/admin/holds-service.ts';
import { SCREENING_OFF } from '../../src/screening/screening-port.ts';
import { claimHold, claimState, unclaimHold } from '../../src/store/holds/hold-claims.ts';
import { commentOnHold } from '../../src/store/holds/hold-comments.ts';
import { listHoldHistory, type HistoryItem } from '../../src/store/holds/hold-history.ts';
import { fundHoldNotes, orderHoldNotes } from '../../src/store/holds/hold-notes-view.ts';
import type { HoldRef } from '../../src/store/holds/hold-ref.ts';
import { clearFeeHold, holdFeeRecipient, holdLateFunds, type FundHoldFinding } from '../../src/store/holds/fund-holds.ts';
import { holdForScreening } from '../../src/store/settlement/hold-for-screening.ts';
import { forEachEngine } from '../support/databases.ts';
import { orderIn } from '../support/settlement-fixtures.ts';

const verdict = { stage: 'deposit' as const, result: 'blocked' as const, field: 'senderAddress', address: 'Sender1111', list: 'own.txt', version: 'v1', reason: 'listed' };
const finding = (stage: 'late' | 'fee', address: string): FundHoldFinding => ({ stage, result: 'blocked', field: stage === 'late' ? 'lateFundsPayer' : 'feeRecipientAddress', address, list: 'own.txt', version: 'v1', reason: 'listed' });

forEachEngine('hold claims, comments and history', (ctx) => {
  const holds = () => new HoldsService(ctx.db, SCREENING_OFF);
  async function heldOrder(): Promise<{ id: string; trackingId: string; ref: HoldRef }> {
    const { id, order } = await orderIn(ctx.db, 'deposit_confirmed');
    assert.ok(await holdForScreening(ctx.db, id, 'deposit_confirmed', verdict, 'hush'));
    return { id, trackingId: order.trackingId, ref: { kind: 'order', trackingId: order.trackingId } };
  }

  it('a claim is won by one operator; another claims only by taking over from whom it saw, and an unclaim ends only that claim', async () => {
    const { ref } = await heldOrder();
    assert.equal((await claimState(ctx.db, ref))!.claim, null);
    const alice = await claimHold(ctx.db, ref, 'operator:alice', null, null);
    assert.equal(alice?.by, 'operator:alice');
    assert.equal(await claimHold(ctx.db, ref, 'operator:bob', null, null), null, 'bob saw nobody: compare-and-set fails, alice keeps it');
    assert.equal(await claimHold(ctx.db, ref, 'operator:bob', null, 'operator:carol'), null, 'a take-over from someone who does not hold it');
    const bob = await claimHold(ctx.db, ref, 'operator:bob', 'op_bob', 'operator:alice');
    assert.deepEqual([bob?.by, bob?.operatorId], ['operator:bob', 'op_bob']);
    assert.equal((await claimState(ctx.db, ref))!.claim?.by, 'operator:bob');
    assert.equal(await unclaimHold(ctx.db, ref, 'operator:alice', 'operator:alice', null), false, "alice's claim ended already");
    assert.equal(await unclaimHold(ctx.db, ref, 'operator:bob', 'operator:bob', 'op_bob'), true);
    assert.equal((await claimState(ctx.db, ref))!.claim, null);
    const notes = (await orderHoldNotes(ctx.db, [ref.kind === 'order' ? ref.trackingId : '']));
    const trail = [...notes.values()][0]!.claims.map((c) => [c.kind, c.by, c.of]);
    assert.deepEqual(trail, [['claim', 'operator:alice', null], ['take_over', 'operator:bob', 'operator:alice'], ['unclaim', 'operator:bob', 'operator:bob']]);
  });

  it('comments are kept oldest first with who and when; a resolved hold takes no claim and no comment; held again, the order is a new hold', async () => {
    const { id, trackingId, ref } = await heldOrder();
    const first = await commentOnHold(ctx.db, ref, 'operator:alice', null, 'asked the partner for KYC');
    const second = await commentOnHold(ctx.db, ref, 'operator:bob', 'op_bob', 'Ünïcödé ✓ 名前');
    assert.match(first!.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    assert.ok(await claimHold(ctx.db, ref, 'operator:alice', null, null));
    const shown = (await orderHoldNotes(ctx.db, [trackingId])).get(trackingId)!;
    assert.deepEqual(shown.comments.map((c) => [c.by, c.operatorId, c.text]), [['operator:alice', null, 'asked the partner for KYC'], ['operator:bob', 'op_bob', 'Ünïcödé ✓ 名前']]);
    assert.deepEqual(shown.comments.map((c) => c.id), [first!.id, second!.id]);
    assert.equal(shown.claim?.by, 'operator:alice');
    assert.equal(shown.depositSignature, 'sig');

    await holds().resolve(trackingId, 'release', 'false positive', 'operator:alice');
    assert.equal(await commentOnHold(ctx.db, ref, 'operator:bob', null, 'too late'), null, 'resolved: nothing written');
    assert.equal(await claimHold(ctx.db, ref, 'operator:bob', null, null), null);
    assert.equal(await unclaimHold(ctx.db, ref, 'operator:alice', 'operator:alice', null), false, 'the claim stays with the resolved hold, in its history');

    assert.ok(await holdForScreening(ctx.db, id, 'deposit_confirmed', { ...verdict, address: 'Other1111', reason: 'listed again' }, 'hush'));
    const again = (await orderHoldNotes(ctx.db, [trackingId])).get(trackingId)!;
    assert.deepEqual([again.claim, again.claims, again.comments], [null, [], []], 'the new hold starts with nothing');
    assert.ok(await claimHold(ctx.db, ref, 'operator:bob', null, null), 'and bob can claim it');
  });

  it('fund holds take claims and comments by their id; an unknown id has no state', async () => {
    const { id, order } = await orderIn(ctx.db, 'completed');
    await ctx.db.transaction((tx) => holdLateFunds(tx, `sweepX:${id}`, { id, trackingId: order.trackingId, sourceAssetId: 'usdc' }, 5_000n, finding('late', 'Payer1111')));
    const { rows } = await ctx.db.query<{ id: string }>(`SELECT id::text AS id FROM screening_holds WHERE subject = $1`, [`sweepX:${id}`]);
    const ref: HoldRef = { kind: 'fund', holdId: rows[0]!.id };
    assert.ok(await claimHold(ctx.db, ref, 'operator:carol', null, null));
    assert.ok(await commentOnHold(ctx.db, ref, 'operator:carol', null, 'payer is a mixer'));
    const n = (await fundHoldNotes(ctx.db, [ref.holdId])).get(ref.holdId)!;
    assert.deepEqual([n.claim?.by, n.comments.map((c) => c.text)], ['operator:carol', ['payer is a mixer']]);
    assert.equal(await claimState(ctx.db, { kind: 'fund', holdId: '999999999' }), null);
    assert.equal(await claimState(ctx.db, { kind: 'order', trackingId: 'trk_1111111111111111111111' }), null);
  });

  it('the history lists resolutions of orders and fund holds and cleared fee holds, newest first, a page at a time, each once', async () => {
    const db = (await ctx.fresh()).db;
    const service = new HoldsService(db, SCREENING_OFF);
    const made: string[] = [];
    for (let i = 0; i < 3; i++) {
      const { id, order } = await orderIn(db, 'deposit_confirmed');
      assert.ok(await holdForScreening(db, id, 'deposit_confirmed', verdict, 'hush'));
      assert.ok(await commentOnHold(db, { kind: 'order', trackingId: order.trackingId }, 'operator:alice', null, `order ${i}`));
      await service.resolve(order.trackingId, i === 0 ? 'freeze' : 'release', `note ${i}`, 'operator:alice');
      made.push(order.trackingId);
    }
    const { id: lateOrder, order: lo } = await orderIn(db, 'completed');
    await db.transaction((tx) => holdLateFunds(tx, `sweepY:${lateOrder}`, { id: lateOrder, trackingId: lo.trackingId, sourceAssetId: 'usdc' }, 7_000n, finding('late', 'Payer2222')));
    const lateId = (await db.query<{ id: string }>(`SELECT id::text AS id FROM screening_holds WHERE subject = $1`, [`sweepY:${lateOrder}`])).rows[0]!.id;
    assert.ok(await commentOnHold(db, { kind: 'fund', holdId: lateId }, 'operator:bob', null, 'checked the payer'));
    await service.resolveFunds(lateId, 'freeze', 'mixer', 'operator:bob');
    await holdFeeRecipient(db, 'payable:partner:acc_x:Fee1111', 'usdc', 10n, finding('fee', 'Fee1111'));
    await clearFeeHold(db, 'payable:partner:acc_x:Fee1111');

    const all = await listHoldHistory(db, 100, null);
    assert.deepEqual(all.map((h) => [h.kind, h.action]), [['fee', 'cleared'], ['late', 'freeze'], ['order', 'release'], ['order', 'release'], ['order', 'freeze']]);
    const late = all[1]!;
    assert.deepEqual([late.trackingId, late.note, late.resolvedBy, late.status, late.amount, late.comments.map((c) => c.text)], [lo.trackingId, 'mixer', 'operator:bob', 'frozen', '7000', ['checked the payer']], "the operator's note without the log's prefix");
    const fee = all[0]!;
    assert.deepEqual([fee.resolvedBy, fee.accountId, fee.note, fee.status], ['hush', 'acc_x', null, 'cleared']);
    const frozen = all[4]!;
    assert.deepEqual([frozen.trackingId, frozen.note, frozen.status, frozen.decision?.reason, frozen.comments.map((c) => c.text)], [made[0], 'note 0', 'frozen', 'listed', ['order 0']]);
    assert.ok(frozen.heldAt! <= frozen.resolvedAt);

    const pages: HistoryItem[][] = [];
    for (let cursor = null as null | { source: 0 | 1; id: string }; ; ) {
      const page = await listHoldHistory(db, 2, cursor);
      if (page.length === 0) break;
      pages.push(page);
      const last = page[page.length - 1]!.historyId;
      cursor = { source: last.startsWith('r') ? 1 : 0, id: last.slice(1) };
    }
    assert.deepEqual(pages.map((p) => p.length), [2, 2, 1]);
    assert.deepEqual(pages.flat().map((h) => h.historyId), all.map((h) => h.historyId), 'every item once, in order');
    assert.deepEqual(await listHoldHistory(db, 2, { source: 1, id: '987654321' }), [], 'a cursor that names nothing gives nothing');
  });

  it("migration 032 gives a fund hold's resolution logged before it its hold id, from the note's prefix", async () => {
    const { id, order } = await orderIn(ctx.db, 'completed');
    await ctx.db.transaction((tx) => holdLateFunds(tx, `sweepZ:${id}`, { id, trackingId: order.trackingId, sourceAssetId: 'usdc' }, 1_000n, finding('late', 'Payer3333')));
    const holdId = (await ctx.db.query<{ id: string }>(`SELECT id::text AS id FROM screening_holds WHERE subject = $1`, [`sweepZ:${id}`])).rows[0]!.id;
    const old = async (note: string) =>
      (await ctx.db.query<{ id: string }>(`INSERT INTO screening_log (tracking_id, stage, result, actor, note, at) VALUES ($1, 'resolution', 'release', 'operator:a', $2, now()) RETURNING id::text AS id`, [order.trackingId, note])).rows[0]!.id;
    const fundRow = await old(`late hold ${holdId}: fine`);
    const orderRow = await old('an order resolution');
    const sql = readFileSync(new URL('../../src/store/migrations/032-hold-claims-and-comments.sql', import.meta.url), 'utf8');
    const backfill = /UPDATE screening_log s SET hold_id[^;]+;/.exec(sql)![0];
    await ctx.db.query(backfill);
    const { rows } = await ctx.db.query<{ id: string; hold_id: string | null }>(`SELECT id::text AS id, hold_id::text AS hold_id FROM screening_log WHERE id IN ($1, $2) ORDER BY id`, [fundRow, orderRow]);
    assert.deepEqual(rows, [{ id: fundRow, hold_id: holdId }, { id: orderRow, hold_id: null }]);
  });
});
