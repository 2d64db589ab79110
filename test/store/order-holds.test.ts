/**
 * A payout or refund is recorded only while its order still has the status it was planned for, and the
 * watchdog never fails an order a worker holds or whose payout or refund is pending or landed: "failed,
 * funds held" must be true, or an operator's refund would pay twice.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { allOrNothing } from '../../src/store/db.ts';
import { getOrderById, insertOrder, type OrderStatus } from '../../src/store/orders-store.ts';
import { leaseOrder } from '../../src/store/settlement/lease-order.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import type { Address } from '@solana/kit';
import { moveOrder } from '../support/move-order.ts';

const PATH: OrderStatus[] = ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed'];

forEachEngine('order holds and the watchdog condition', (ctx) => {
  /** An order moved along `to`, untouched for two hours (as the watchdog finds it). */
  async function stuckOrder(...to: OrderStatus[]): Promise<string> {
    const acc = await createTestAccount(ctx.db);
    const res = await insertOrder(ctx.db, newOrder(acc), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} });
    const id = (res as { id: string }).id;
    const steps = [...PATH, ...to];
    for (let i = 1; i < steps.length; i++) assert.ok(await moveOrder(ctx.db, id, steps[i - 1]!, steps[i]!));
    await ctx.db.query(`UPDATE orders SET updated_at = now() - interval '2 hours' WHERE id = $1`, [id]);
    return id;
  }
  const tx = (orderId: string, kind: 'payout' | 'refund') => ({
    kind,
    orderId,
    assetId: 'usdc',
    amount: 1_000n,
    source: 'pool',
    destination: 'someone' as Address,
    signature: randomBytes(32).toString('hex'),
    wire: 'AA==',
    lastValidBlockHeight: 100n,
  });
  const failIdle = (id: string, from: OrderStatus) => moveOrder(ctx.db, id, from, 'failed', { failureReason: `stuck_in_${from}` }, { idle: true });

  it('the watchdog leaves an order whose payout or refund is pending or landed, and fails one whose transactions all died', async () => {
    const sending = await stuckOrder('sending');
    const txId = await insertChainTx(ctx.db, tx(sending, 'payout'));
    assert.equal(await failIdle(sending, 'sending'), false, 'pending payout');
    await ctx.db.query(`UPDATE chain_txs SET status = 'confirmed' WHERE id = $1`, [txId]);
    assert.equal(await failIdle(sending, 'sending'), false, 'landed payout');
    await ctx.db.query(`UPDATE chain_txs SET status = 'expired' WHERE id = $1`, [txId]);
    assert.equal(await failIdle(sending, 'sending'), true, 'only dead transactions: funds are held');

    const refunding = await stuckOrder('refunding');
    await insertChainTx(ctx.db, tx(refunding, 'refund'));
    assert.equal(await failIdle(refunding, 'refunding'), false, 'pending refund');

    // A late refund (funds sent after the deposit) is not the order's own: it does not keep it from the watchdog.
    const withLate = await stuckOrder('sending');
    await insertChainTx(ctx.db, { ...tx(withLate, 'refund'), meta: { late: true } });
    assert.equal(await failIdle(withLate, 'sending'), true, 'only a late refund in flight');
  });

  it('the watchdog leaves an order a worker holds; leaseOrder needs the status and no other live lease', async () => {
    const id = await stuckOrder('refunding');
    assert.equal(await leaseOrder(ctx.db, id, 'deposit_confirmed', 'w1', 30), false, 'wrong status');
    assert.equal(await leaseOrder(ctx.db, id, 'refunding', 'w1', 30), true);
    assert.equal(await leaseOrder(ctx.db, id, 'refunding', 'w1', 30), true, 'the holder renews');
    assert.equal(await leaseOrder(ctx.db, id, 'refunding', 'w2', 30), false, 'another worker while the lease lives');
    assert.equal(await failIdle(id, 'refunding'), false, 'held: the watchdog leaves it');
    await ctx.db.query(`UPDATE orders SET locked_until = now() - interval '1 second' WHERE id = $1`, [id]);
    assert.equal(await leaseOrder(ctx.db, id, 'refunding', 'w2', 30), true, 'a lapsed lease can be taken');
  });

  it('allOrNothing rolls back what it wrote when the status check fails', async () => {
    const id = await stuckOrder();
    assert.ok(await moveOrder(ctx.db, id, 'deposit_confirmed', 'failed', { failureReason: 'stuck_in_deposit_confirmed' }));
    const payout = tx(id, 'payout');
    const ok = await allOrNothing(ctx.db, async (t) => (await insertChainTx(t, payout)) !== null && moveOrder(t, id, 'deposit_confirmed', 'sending'));
    assert.equal(ok, false);
    const { rows } = await ctx.db.query(`SELECT 1 FROM chain_txs WHERE signature = $1`, [payout.signature]);
    assert.equal(rows.length, 0, 'the payout record went with the failed move');
    assert.equal((await getOrderById(ctx.db, id))!.status, 'failed');
  });

  it(
    'a watchdog update racing a worker recording a refund waits for it, then leaves the order (PostgreSQL: two connections)',
    { skip: ctx.engine === 'pglite' ? 'one connection: statements never overlap' : false },
    async () => {
      const id = await stuckOrder('refunding');
      let commit!: () => void;
      const gate = new Promise<void>((r) => (commit = r));
      let recordedBy!: (xid: string) => void;
      const recorded = new Promise<string>((r) => (recordedBy = r));
      const worker = ctx.db.transaction(async (t) => {
        assert.ok(await leaseOrder(t, id, 'refunding', 'w1', 30));
        assert.ok((await insertChainTx(t, tx(id, 'refund'))) !== null);
        const { rows } = await t.query<{ xid: string }>('SELECT backend_xid::text AS xid FROM pg_stat_activity WHERE pid = pg_backend_pid()');
        recordedBy(rows[0]!.xid);
        await gate;
      });
      // A worker that fails before recording ends the test with its error instead of a hang.
      const workerXid = await Promise.race([recorded, worker.then(() => assert.fail('the worker committed before recording'))]);
      // Its snapshot sees no refund and no lease; it must wait for the row, then re-check the renewed lease.
      const watchdog = failIdle(id, 'refunding');
      // Commit only once the watchdog's update waits for the worker's row lock: else the race is not run.
      const waiting = async () => (await ctx.db.query(`SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND transactionid = $1::xid AND NOT granted`, [workerXid])).rows.length > 0;
      for (let i = 0; !(await waiting()); i++) {
        assert.ok(i < 400, 'the watchdog never waited for the row');
        await new Promise((r) => setTimeout(r, 10));
      }
      commit();
      await worker;
      assert.equal(await watchdog, false, 'the watchdog did not fail an order whose refund was being recorded');
      assert.equal((await getOrderById(ctx.db, id))!.status, 'refunding');
    },
  );
});
