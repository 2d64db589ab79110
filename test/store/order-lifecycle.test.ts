/**
 * The order lifecycle's registry (src/store/order-transitions.ts, docs/spec.md §5): each edge has exactly
 * one writer once every writer module is loaded, a second writer of any move is refused where it is
 * declared, a writer builds and moves only along its own moves, and the status lists in SQL come from the
 * traits declared beside the states (a held order owes its amount).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { isFinal, nextStatuses, ORDER_STATUSES, STATUS_HANDLING, STATUS_TRAITS, statusesWhere } from '../../src/domain/order-state.ts';
import { orderWriter, writerOf } from '../../src/store/order-transitions.ts';
import '../../src/store/order-writers.ts';
import { insertOrder } from '../../src/store/orders-store.ts';
import { poolCommitments } from '../../src/store/settlement/pool-commitments.ts';
import { forEachEngine } from '../support/databases.ts';
import { moveOrder } from '../support/move-order.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';

describe('one writer per edge', () => {
  it('every edge of docs/spec.md §5 has exactly one registered writer', () => {
    const missing: string[] = [];
    const writers = new Set<string>();
    for (const from of ORDER_STATUSES) {
      for (const to of nextStatuses(from)) {
        const w = writerOf(from, to);
        if (!w) missing.push(`${from} → ${to}`);
        else writers.add(w.name);
      }
    }
    assert.deepEqual(missing, []);
    // The writers of docs/architecture.md's lifecycle, each named once.
    assert.deepEqual([...writers].sort(), ['completePayouts', 'confirmDeposits', 'detectDeposit', 'expireOrder', 'failOrder', 'finishRefund', 'holdForScreening', 'markSwapping', 'refundOrder', 'resolveHold', 'startPayouts', 'undetectDeposit']);
    assert.equal(writerOf('awaiting_deposit', 'deposit_confirmed')?.name, 'confirmDeposits', 'a route through two edges is a move of its own');
  });

  it('the handling table beside the traits names every registered move out of each status, and its one writer', () => {
    // Both ways: each exit the table lists has exactly that writer, and each pair the registry has a writer for is listed.
    const table: string[] = [];
    const registry: string[] = [];
    for (const from of ORDER_STATUSES) {
      for (const [to, writer] of Object.entries(STATUS_HANDLING[from].exits)) table.push(`${from} → ${to}: ${writer}`);
      for (const to of ORDER_STATUSES) {
        const w = writerOf(from, to);
        if (w) registry.push(`${from} → ${to}: ${w.name}`);
      }
    }
    assert.deepEqual(table.sort(), registry.sort());
  });

  it('a second writer of a move is refused where it is declared, and so is a name taken or a move §5 does not allow', () => {
    assert.throws(() => orderWriter('another completion', [['sending', 'completed']]), /sending → completed has a writer already: completePayouts/);
    assert.throws(() => orderWriter('failOrder', []), /named failOrder is registered already/);
    assert.throws(() => orderWriter('backwards', [['sending', 'deposit_confirmed']]), /not a move of docs\/spec\.md §5/);
    assert.throws(() => orderWriter('out of a final', [['completed', 'failed']]), /not a move/);
    assert.throws(() => orderWriter('injected', [["x'; DROP TABLE orders; --" as never, 'failed']]), /not a move/);
    // Refused declarations register nothing: the moves keep their one writer.
    assert.equal(writerOf('sending', 'completed')?.name, 'completePayouts');
    assert.equal(writerOf('sending', 'deposit_confirmed'), undefined);
  });

  it('a writer builds statements and moves orders only along its own moves; its route is checked edge by edge', async () => {
    const none = orderWriter('test: owns nothing', []);
    assert.throws(() => none.sql({ route: ['sending', 'completed'] }), /test: owns nothing is not the writer of sending → completed/);
    await assert.rejects(none.move({ query: () => Promise.reject(new Error('no SQL may run')) }, '1', 'sending', 'completed'), /not the writer/);
    const confirm = writerOf('awaiting_deposit', 'deposit_confirmed')!;
    assert.throws(() => confirm.sql({ route: ['awaiting_deposit', 'deposit_confirmed'] }), /awaiting_deposit → deposit_confirmed is not an order transition/, 'a skipped status must be on the route');
    assert.match(writerOf('sending', 'completed')!.sql({ route: ['sending', 'completed'] }), /WHERE o\.status IN \('sending'\)[\s\S]*INSERT INTO order_history[\s\S]*pg_notify/);
  });
});

describe('status traits', () => {
  it('are declared for every status and agree with the edges: final statuses have none out, the watchdog never acts on a final or held order', () => {
    for (const s of ORDER_STATUSES) {
      assert.equal(STATUS_TRAITS[s].final, isFinal(s), s);
      assert.equal(nextStatuses(s).length === 0, STATUS_TRAITS[s].final, s);
    }
    assert.deepEqual(statusesWhere('watchdogMayAct').filter((s) => isFinal(s) || STATUS_TRAITS[s].operatorHold || STATUS_TRAITS[s].countsAsOpen), []);
    assert.deepEqual(statusesWhere('receipted'), ['completed', 'refunded', 'failed', 'frozen'], 'every final status with a deposit; an expired order took none');
  });
});

forEachEngine('what a held order owes', (ctx) => {
  it('a held order owes its amountOut to the pools, as it did before the hold (it pays it if released)', async () => {
    const asset = `h${randomBytes(4).toString('hex')}`;
    const acc = await createTestAccount(ctx.db);
    const r = await insertOrder(ctx.db, newOrder(acc, { sourceAssetId: asset, destinationAssetId: asset, amountOut: 70n }), { key: `k-${randomBytes(8).toString('hex')}`, responseStatus: 200, responseBody: {} });
    const id = (r as { id: string }).id;
    for (const [from, to] of [['awaiting_deposit', 'deposit_detected'], ['deposit_detected', 'deposit_confirmed']] as const) assert.ok(await moveOrder(ctx.db, id, from, to));
    assert.equal((await poolCommitments(ctx.db)).owed.get(asset), 70n, 'confirmed: owed');
    assert.ok(await moveOrder(ctx.db, id, 'deposit_confirmed', 'held', { failureReason: 'screening' }));
    const held = await poolCommitments(ctx.db);
    assert.equal(held.held.get(asset), 70n, 'held: still committed (the old list left it out), in held');
    assert.equal(held.owed.get(asset), undefined, 'and not also in owed');
    assert.ok(await moveOrder(ctx.db, id, 'held', 'frozen'));
    const frozen = await poolCommitments(ctx.db);
    assert.equal(frozen.owed.get(asset) ?? frozen.held.get(asset), undefined, 'frozen: final, owed no more');
  });
});
