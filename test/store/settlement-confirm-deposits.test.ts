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

  it('moves free orders to deposit_confirmed under this worker, with history, due time and ledger; skips held ones', async () => {
    const a = await orderIn(ctx.db);
    const b = await orderIn(ctx.db, 'deposit_detected');
    const held = await orderIn(ctx.db);
    await claimOrder(ctx.db, held.id, 'other', 30);
    const due = new Date(Date.now() + 60_000);
    const r = (await confirmDeposits(ctx.db, { workerId: 'w1', leaseSeconds: 30, held: false }, [item(a.id, a.order, due), item(b.id, b.order, due), item(held.id, held.order, due)])).due;
    assert.deepEqual([...r.keys()].sort(), [a.id, b.id].sort());
    assert.equal(r.get(a.id)!.getTime(), due.getTime());
    assert.deepEqual(await historyOf(ctx.db, a.id), ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed']);
    assert.deepEqual(await historyOf(ctx.db, b.id), ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed']);
    assert.equal((await orderRow(ctx.db, a.id)).locked_by, 'w1');
    assert.equal((await orderRow(ctx.db, held.id)).status, 'awaiting_deposit');
    const ledger = await ledgerBalances(ctx.db, `deposit:${a.order.depositAccount}`);
    assert.equal(ledger.get(`deposit:${a.order.depositAccount}|usdc`), 1_000_000n);
  });

  it('held: only orders this worker holds move; a due time drawn before stays', async () => {
    const mine = await orderIn(ctx.db);
    const free = await orderIn(ctx.db);
    await claimOrder(ctx.db, mine.id, 'w1', 30);
    await ctx.db.query('UPDATE orders SET payout_due_at = $2 WHERE id = $1', [mine.id, new Date(1_000)]);
    const r = (await confirmDeposits(ctx.db, { workerId: 'w1', leaseSeconds: 30, held: true }, [item(mine.id, mine.order, new Date()), item(free.id, free.order, new Date())])).due;
    assert.deepEqual([...r.keys()], [mine.id]);
    assert.equal(r.get(mine.id)!.getTime(), 1_000, 'the first draw wins');
    assert.equal((await orderRow(ctx.db, free.id)).status, 'awaiting_deposit');
  });

  it('leaseFree (the deposit hint): moves an order whoever holds it and leaves the lease as it was', async () => {
    const held = await orderIn(ctx.db);
    const free = await orderIn(ctx.db);
    await claimOrder(ctx.db, held.id, 'w1', 30);
    const leaseOf = async (id: string) => (await ctx.db.query<{ locked_until: Date }>('SELECT locked_until FROM orders WHERE id = $1', [id])).rows[0]!.locked_until;
    const before = await leaseOf(held.id);
    assert.ok(before instanceof Date);
    const r = (await confirmDeposits(ctx.db, { workerId: 'deposit-hint', leaseSeconds: 0, held: false, leaseFree: true }, [item(held.id, held.order, new Date()), item(free.id, free.order, new Date())])).due;
    assert.deepEqual([...r.keys()].sort(), [held.id, free.id].sort());
    const after = await orderRow(ctx.db, held.id);
    assert.equal(after.status, 'deposit_confirmed');
    assert.equal(after.locked_by, 'w1');
    assert.equal((await leaseOf(held.id)).getTime(), before.getTime());
    assert.equal((await orderRow(ctx.db, free.id)).locked_by, null);
    assert.deepEqual(await historyOf(ctx.db, held.id), ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed']);
  });
});
