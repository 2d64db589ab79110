/** confirmDeposits (src/store/settlement/confirm-deposits.ts): many deposits confirmed in one statement. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { claimOrder } from '../../src/store/settlement/claim-order.ts';
import { confirmDeposits, type DepositConfirmation } from '../../src/store/settlement/confirm-deposits.ts';
import { ledgerBalances } from '../../src/store/settlement/ledger-balances.ts';
import { depositMovement } from '../../src/ledger/order-movements.ts';
import type { NewOrder } from '../../src/store/order-record.ts';
import { forEachEngine } from '../support/databases.ts';
import { historyOf, orderIn, orderRow } from '../support/settlement-fixtures.ts';

forEachEngine('confirmDeposits', (ctx) => {
  const item = (id: string, o: Pick<NewOrder, 'trackingId' | 'sourceAssetId' | 'depositAccount'>, dueAt: Date): DepositConfirmation => ({
    id,
    deposit: { signature: 'sig', amount: '1000000', confirmedAt: new Date().toISOString() },
    dueAt,
    movement: depositMovement({ id, ...o }, 1_000_000n),
  });

  it('the statement is the claim: moves the orders this caller holds or nobody holds, under its lease, with history, due time and ledger; skips those another holds', async () => {
    const a = await orderIn(ctx.db);
    const b = await orderIn(ctx.db, 'deposit_detected');
    const mine = await orderIn(ctx.db);
    const theirs = await orderIn(ctx.db);
    await claimOrder(ctx.db, mine.id, 'w1', 30);
    // The same worker's order loop is another holder to its deposit watch (`w1:watch`).
    await claimOrder(ctx.db, theirs.id, 'w1:watch', 30);
    const due = new Date(Date.now() + 60_000);
    const items = [item(a.id, a.order, due), item(b.id, b.order, due), item(mine.id, mine.order, due), item(theirs.id, theirs.order, due)];
    const r = (await confirmDeposits(ctx.db, { workerId: 'w1', leaseSeconds: 30 }, items)).due;
    assert.deepEqual([...r.keys()].sort(), [a.id, b.id, mine.id].sort());
    assert.equal(r.get(a.id)!.getTime(), due.getTime());
    assert.deepEqual(await historyOf(ctx.db, a.id), ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed']);
    assert.deepEqual(await historyOf(ctx.db, b.id), ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed']);
    for (const o of [a, b, mine]) assert.equal((await orderRow(ctx.db, o.id)).locked_by, 'w1', 'held under the caller’s lease');
    assert.equal((await orderRow(ctx.db, theirs.id)).status, 'awaiting_deposit');
    assert.equal((await orderRow(ctx.db, theirs.id)).locked_by, 'w1:watch');
    const ledger = await ledgerBalances(ctx.db, `deposit:${a.order.depositAccount}`);
    assert.equal(ledger.get(`deposit:${a.order.depositAccount}|usdc`), 1_000_000n);
  });

  it('a due time drawn before stays (the first draw wins)', async () => {
    const mine = await orderIn(ctx.db);
    await claimOrder(ctx.db, mine.id, 'w1', 30);
    await ctx.db.query('UPDATE orders SET payout_due_at = $2 WHERE id = $1', [mine.id, new Date(1_000)]);
    const r = (await confirmDeposits(ctx.db, { workerId: 'w1', leaseSeconds: 30 }, [item(mine.id, mine.order, new Date())])).due;
    assert.deepEqual([...r.keys()], [mine.id]);
    assert.equal(r.get(mine.id)!.getTime(), 1_000, 'the first draw wins');
  });

  it('the deposit hint is a holder like any other: it confirms an order nobody holds, never one a worker holds', async () => {
    const held = await orderIn(ctx.db);
    const free = await orderIn(ctx.db);
    await claimOrder(ctx.db, held.id, 'w1', 30);
    const r = (await confirmDeposits(ctx.db, { workerId: 'deposit-hint', leaseSeconds: 10 }, [item(held.id, held.order, new Date()), item(free.id, free.order, new Date())])).due;
    assert.deepEqual([...r.keys()], [free.id]);
    assert.equal((await orderRow(ctx.db, held.id)).status, 'awaiting_deposit');
    assert.equal((await orderRow(ctx.db, held.id)).locked_by, 'w1');
    assert.equal((await orderRow(ctx.db, free.id)).locked_by, 'deposit-hint');
  });
});
