/**
 * confirmDeposits with its payouts started in the same statement (the no-privacy-delay path: a deposit's confirmation and its payout in
 * one statement), on PGlite and on PostgreSQL: what moves to `sending` and what stops at
 * `deposit_confirmed`, and that the claim (compare-and-set under the row lock) is the same as
 * confirmDeposits'.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { getOrderById, insertOrderWithNewKey, type NewOrder } from '../../src/store/orders-store.ts';
import type { NewChainTx } from '../../src/store/settlement/chain-tx.ts';
import { chainTxsOfOrder } from '../../src/store/settlement/chain-txs-of-orders.ts';
import { confirmDeposits, type DepositConfirmation } from '../../src/store/settlement/confirm-deposits.ts';
import { isUniqueViolation, type Queryable } from '../../src/store/db.ts';
import { forEachEngine } from '../support/databases.ts';
import { base58, createTestAccount, fakeAddress, newOrder } from '../support/store-fixtures.ts';

async function place(db: Queryable, acc: string, overrides: Partial<NewOrder> = {}): Promise<{ id: string; order: NewOrder }> {
  const order = newOrder(acc, overrides);
  const r = await insertOrderWithNewKey(db, order, { key: `k-${order.trackingId}`, requestHash: 'h', responseStatus: 200, responseBody: {} });
  assert.equal(r.kind, 'created');
  return { id: (r as { id: string }).id, order };
}

function confirmation(id: string, order: NewOrder): DepositConfirmation {
  const amount = order.amountIn;
  return {
    id,
    deposit: { signature: base58(88), amount: amount.toString(), confirmedAt: new Date().toISOString() },
    dueAt: new Date(),
    movement: {
      movement: `deposit:${order.trackingId}`,
      kind: 'deposit',
      legs: [
        { account: 'external:senders', assetId: order.sourceAssetId, amount: -amount },
        { account: `deposit:${order.depositAccount}`, assetId: order.sourceAssetId, amount },
      ],
      orderId: id,
    },
  };
}

function payout(id: string, order: NewOrder, part = 0): NewChainTx {
  return {
    kind: 'payout',
    orderId: id,
    assetId: order.destinationAssetId,
    amount: order.amountOut,
    source: fakeAddress(),
    destination: order.recipient,
    signature: base58(88),
    wire: 'AQ==',
    lastValidBlockHeight: 500n,
    meta: { part },
  };
}

type Placed = Awaited<ReturnType<typeof place>>;

/** Confirms the deposits of `placed`, each with its one payout, as worker w1 (the statement claims those nobody holds). */
function confirmAndPay(db: Queryable, placed: Placed[]) {
  return confirmDeposits(db, { workerId: 'w1', leaseSeconds: 30 }, placed.map((p) => confirmation(p.id, p.order)), { txs: placed.map((p) => payout(p.id, p.order)), nextRunMs: 1600 });
}

forEachEngine('deposit confirmation and payout in one statement', (ctx) => {
  it('pays what is due and has a payout; the rest stops at deposit_confirmed, held by the worker', async () => {
    const acc = await createTestAccount(ctx.db);
    const paid = await place(ctx.db, acc);
    const split = await place(ctx.db, acc);
    const noPayout = await place(ctx.db, acc);
    const later = await place(ctx.db, acc);
    const detected = await place(ctx.db, acc);
    // A due time drawn earlier (the first draw wins) that is still ahead; and a deposit detected before.
    await ctx.db.query(`UPDATE orders SET payout_due_at = now() + interval '1 minute' WHERE id = $1`, [later.id]);
    await ctx.db.query(`UPDATE orders SET status = 'deposit_detected' WHERE id = $1`, [detected.id]);
    await ctx.db.query(`INSERT INTO order_history (order_id, status, at) VALUES ($1, 'deposit_detected', now())`, [detected.id]);
    const items = [
      confirmation(paid.id, paid.order),
      confirmation(split.id, split.order),
      confirmation(noPayout.id, noPayout.order),
      confirmation(later.id, later.order),
      confirmation(detected.id, detected.order),
    ];
    const txs = [
      payout(paid.id, paid.order),
      payout(split.id, split.order, 0),
      payout(split.id, split.order, 1),
      payout(later.id, later.order),
      payout(detected.id, detected.order),
    ];
    const r = await confirmDeposits(ctx.db, { workerId: 'w1', leaseSeconds: 30 }, items, { txs, nextRunMs: 1600 });

    assert.deepEqual([...r.due.keys()].sort(), [paid.id, split.id, noPayout.id, later.id, detected.id].sort());
    assert.deepEqual([...r.moved].sort(), [paid.id, split.id, detected.id].sort());
    for (const { id } of [paid, split, detected]) {
      const o = (await getOrderById(ctx.db, id))!;
      assert.equal(o.status, 'sending');
      assert.deepEqual(o.history.map((h) => h.status), ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending'], 'deposit_detected once');
      assert.equal(o.deposit?.amount, o.amountIn.toString());
    }
    const { rows: moved } = await ctx.db.query<{ locked_until: Date | null; attempts: number; next_run_at: Date }>(
      'SELECT locked_until, attempts, next_run_at FROM orders WHERE id = ANY($1::bigint[])',
      [[...r.moved]],
    );
    for (const m of moved) assert.ok(m.locked_until === null && m.attempts === 0 && new Date(m.next_run_at).getTime() > Date.now() - 5_000, 'released, looked at again soon');
    assert.equal((await chainTxsOfOrder(ctx.db, paid.id, 'payout')).length, 1);
    assert.deepEqual((await chainTxsOfOrder(ctx.db, split.id, 'payout')).map((t) => t.status), ['pending', 'pending']);
    for (const { id } of [noPayout, later]) {
      const { rows: lease } = await ctx.db.query<{ locked_until: Date | null }>('SELECT locked_until FROM orders WHERE id = $1', [id]);
      assert.ok(lease[0]!.locked_until && new Date(lease[0]!.locked_until).getTime() > Date.now(), 'held under a lease');
      const o = (await getOrderById(ctx.db, id))!;
      assert.equal(o.status, 'deposit_confirmed');
      assert.deepEqual(o.history.map((h) => h.status), ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed']);
      assert.deepEqual(await chainTxsOfOrder(ctx.db, id, 'payout'), [], 'nothing recorded for an order that stopped');
    }
    assert.ok(r.due.get(later.id)!.getTime() > Date.now() + 30_000, 'the due time drawn earlier stays in force');
    const { rows: locks } = await ctx.db.query<{ id: string | number; locked_by: string | null }>('SELECT id, locked_by FROM orders WHERE id = ANY($1::bigint[])', [
      [paid.id, split.id, noPayout.id, later.id, detected.id],
    ]);
    for (const l of locks) assert.equal(l.locked_by, r.moved.has(String(l.id)) ? null : 'w1', `order ${l.id}: released when paid, else held`);
    const { rows: ledger } = await ctx.db.query<{ n: string | number }>(`SELECT count(*) AS n FROM ledger_entries WHERE order_id = ANY($1::bigint[]) AND kind = 'deposit'`, [
      [paid.id, split.id, noPayout.id, later.id, detected.id],
    ]);
    assert.equal(Number(ledger[0]!.n), 10, 'every confirmed deposit is on the ledger (two legs each)');
  });

  it('compare-and-set: an order another worker holds, or one already confirmed, is left alone', async () => {
    const acc = await createTestAccount(ctx.db);
    const held = await place(ctx.db, acc);
    const done = await place(ctx.db, acc);
    await ctx.db.query(`UPDATE orders SET locked_by = 'w2', locked_until = now() + interval '1 minute' WHERE id = $1`, [held.id]);
    const first = await confirmAndPay(ctx.db, [done]);
    assert.deepEqual([...first.moved], [done.id]);

    const again = await confirmAndPay(ctx.db, [held, done]);
    assert.equal(again.due.size, 0);
    assert.equal(again.moved.size, 0);
    assert.equal((await getOrderById(ctx.db, held.id))!.status, 'awaiting_deposit');
    assert.equal((await chainTxsOfOrder(ctx.db, done.id, 'payout')).length, 1, 'paid once');
    assert.deepEqual(await chainTxsOfOrder(ctx.db, held.id, 'payout'), []);
  });

  it('orders this worker holds move as well as those nobody holds', async () => {
    const acc = await createTestAccount(ctx.db);
    const mine = await place(ctx.db, acc);
    const free = await place(ctx.db, acc);
    await ctx.db.query(`UPDATE orders SET locked_by = 'w1', locked_until = now() + interval '1 minute' WHERE id = $1`, [mine.id]);
    const r = await confirmAndPay(ctx.db, [mine, free]);
    assert.deepEqual([...r.moved].sort(), [mine.id, free.id].sort());
  });

  it('all or nothing: a payout whose bytes are already recorded fails the statement, and nothing is confirmed', async () => {
    const acc = await createTestAccount(ctx.db);
    const first = await place(ctx.db, acc);
    const twin = await place(ctx.db, acc);
    assert.deepEqual([...(await confirmAndPay(ctx.db, [first])).moved], [first.id]);
    const tx = (await chainTxsOfOrder(ctx.db, first.id, 'payout'))[0]!;
    // The same signature for another order (same recipient, amount, pool and blockhash): the worker then
    // confirms alone and leaves the payout to the per-order step.
    await assert.rejects(
      confirmDeposits(ctx.db, { workerId: 'w1', leaseSeconds: 30 }, [confirmation(twin.id, twin.order)], { txs: [{ ...payout(twin.id, twin.order), signature: tx.signature }], nextRunMs: 1600 }),
      (e) => isUniqueViolation(e),
    );
    const o = (await getOrderById(ctx.db, twin.id))!;
    assert.equal(o.status, 'awaiting_deposit');
    assert.equal(o.deposit, null);
  });
});
