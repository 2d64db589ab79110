/**
 * A class-release pass moves due times only: the standard payouts still waiting for their class, all at
 * once in one transaction, one worker deciding at a time, and never a run time put back by a worker that
 * read the old due time.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertOrder, transitionOrder, type NewOrder } from '../../src/store/orders-store.ts';
import { releaseOrder } from '../../src/store/settlement/release-orders.ts';
import { releaseClasses } from '../../src/store/settlement/release-classes.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';

const CAP_MS = 240_000;

forEachEngine('class release pass', (ctx) => {
  /** An order whose deposit was confirmed `agoMs` ago and whose payout is due at its class's cap. */
  async function waiting(acc: string, o: Partial<NewOrder> = {}, agoMs = 1000): Promise<string> {
    const res = await insertOrder(ctx.db, newOrder(acc, o), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} });
    const id = (res as { id: string }).id;
    const confirmedAt = new Date(Date.now() - agoMs);
    assert.ok(await transitionOrder(ctx.db, id, 'awaiting_deposit', 'deposit_detected'));
    assert.ok(await transitionOrder(ctx.db, id, 'deposit_detected', 'deposit_confirmed', { deposit: { signature: 's', amount: '1', confirmedAt: confirmedAt.toISOString() } }));
    const due = new Date(confirmedAt.getTime() + CAP_MS);
    await ctx.db.query('UPDATE orders SET payout_due_at = $2, next_run_at = $2 WHERE id = $1', [id, due]);
    return id;
  }
  const row = async (id: string) =>
    (await ctx.db.query<{ payout_due_at: Date; next_run_at: Date; class_released_at: Date | null }>('SELECT payout_due_at, next_run_at, class_released_at FROM orders WHERE id = $1', [id])).rows[0]!;
  const twenty = { amountIn: 20_000_000n, amountOut: 19_900_000n };

  it('hands the waiting standard payouts to the decision and brings the chosen ones forward, once', async () => {
    await ctx.fresh();
    const acc = await createTestAccount(ctx.db);
    const a = await waiting(acc, twenty);
    const b = await waiting(acc, twenty);
    const free = await waiting(acc, { amountIn: 19_370_000n, amountOut: 19_000_000n });
    const seen: string[][] = [];
    const soon = new Date(Date.now() + 2_000);
    const n = await releaseClasses(ctx.db, [20_000_000n], (held) => {
      seen.push(held.map((h) => h.id).sort());
      assert.ok(held.every((h) => h.pinnedAmount === 20_000_000n && h.mode === 'exact_in' && h.sourceAssetId === 'usdc'));
      assert.ok(held.every((h) => Math.abs(h.confirmedAt - (Date.now() - 1000)) < 5_000));
      return held.map((h) => ({ id: h.id, at: soon }));
    });
    assert.equal(n, 2);
    assert.deepEqual(seen, [[a, b].sort()]);
    for (const id of [a, b]) {
      const r = await row(id);
      assert.equal(r.payout_due_at.getTime(), soon.getTime());
      assert.equal(r.next_run_at.getTime(), soon.getTime());
      assert.ok(r.class_released_at);
    }
    assert.equal((await row(free)).class_released_at, null);
    // Released payouts no longer wait: the next pass sees none of them.
    let called = false;
    assert.equal(await releaseClasses(ctx.db, [20_000_000n], (held) => ((called = held.length > 0), [])), 0);
    assert.equal(called, false);
  });

  it('never moves a due time later, and leaves what the decision kept waiting', async () => {
    await ctx.fresh();
    const acc = await createTestAccount(ctx.db);
    const a = await waiting(acc, twenty);
    const b = await waiting(acc, twenty);
    const before = await row(a);
    const later = new Date(before.payout_due_at.getTime() + 60_000);
    assert.equal(await releaseClasses(ctx.db, [20_000_000n], () => [{ id: a, at: later }]), 1);
    assert.equal((await row(a)).payout_due_at.getTime(), before.payout_due_at.getTime());
    assert.equal((await row(b)).class_released_at, null);
  });

  it('a worker giving back an order with the due time it read before the release keeps the released one', async () => {
    await ctx.fresh();
    const acc = await createTestAccount(ctx.db);
    const a = await waiting(acc, twenty);
    const old = await row(a);
    await ctx.db.query(`UPDATE orders SET locked_by = 'w1', locked_until = now() + interval '30 seconds' WHERE id = $1`, [a]);
    const soon = new Date(Date.now() + 1_500);
    assert.equal(await releaseClasses(ctx.db, [20_000_000n], () => [{ id: a, at: soon }]), 1);
    await releaseOrder(ctx.db, a, 'w1', { at: old.payout_due_at });
    assert.equal((await row(a)).next_run_at.getTime(), soon.getTime());
  });

  it('one pass decides at a time: a concurrent pass skips', async () => {
    await ctx.fresh();
    const acc = await createTestAccount(ctx.db);
    await waiting(acc, twenty);
    if (ctx.engine === 'pglite') return; // one connection: passes cannot overlap there
    let inner = -1;
    // Hold the lock in one transaction and try a pass beside it.
    await ctx.db.transaction(async (tx) => {
      await tx.query(`SELECT pg_advisory_xact_lock(hashtext('hush.class_release'))`);
      inner = await releaseClasses(ctx.db, [20_000_000n], () => assert.fail('a second pass must not decide while the first holds the lock'));
    });
    assert.equal(inner, 0);
  });
});
