/** claimDueOrders, claimOrder and releaseOrders (src/store/settlement): the worker's lease on an order. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { claimDueOrders } from '../../src/store/settlement/claim-due-orders.ts';
import { claimOrder } from '../../src/store/settlement/claim-order.ts';
import { releaseOrders } from '../../src/store/settlement/release-orders.ts';
import { releaseLeasesOfPastLives } from '../../src/store/settlement/release-leases-of-past-lives.ts';
import { forEachEngine } from '../support/databases.ts';
import { orderIn, orderRow } from '../support/settlement-fixtures.ts';

forEachEngine('claims and releases of orders', (ctx) => {
  it('claimDueOrders takes due non-final orders nobody holds, and holds them for the lease', async () => {
    const db = (await ctx.fresh()).db;
    const open = await orderIn(db);
    const theirs = await orderIn(db);
    await orderIn(db, 'completed');
    await claimOrder(db, theirs.id, 'w0', 30);
    const claimed = await claimDueOrders(db, 'w1', 10, 30);
    assert.deepEqual(claimed.map((o) => o.id), [open.id]);
    assert.equal((await orderRow(db, open.id)).locked_by, 'w1');
    assert.deepEqual(await claimDueOrders(db, 'w2', 10, 30), [], 'held by w0 and w1 for their leases');
  });

  it('releaseLeasesOfPastLives frees every live lease (a restart on PGlite), and the orders can be claimed at once', async () => {
    const db = (await ctx.fresh()).db;
    const a = await orderIn(db);
    const b = await orderIn(db);
    const free = await orderIn(db);
    await claimOrder(db, a.id, 'dead-1', 30);
    await claimOrder(db, b.id, 'dead-2', 30);
    assert.equal(await releaseLeasesOfPastLives(db), 2);
    assert.equal((await orderRow(db, a.id)).locked_by, null);
    assert.equal((await orderRow(db, free.id)).locked_by, null);
    assert.deepEqual((await claimDueOrders(db, 'next', 10, 30)).map((o) => o.id).sort(), [a.id, b.id, free.id].sort());
    assert.equal(await releaseLeasesOfPastLives(db), 3, 'the new leases too: only a start may call it');
  });

  it('claimOrder takes one order unless it is final or held', async () => {
    const { id } = await orderIn(ctx.db);
    assert.equal((await claimOrder(ctx.db, id, 'w1', 30))?.id, id);
    assert.equal(await claimOrder(ctx.db, id, 'w2', 30), null, 'held');
    const done = await orderIn(ctx.db, 'completed');
    assert.equal(await claimOrder(ctx.db, done.id, 'w1', 30), null, 'final');
  });

  it('releaseOrders gives back only what this worker holds, with its next run', async () => {
    const a = await orderIn(ctx.db);
    const b = await orderIn(ctx.db);
    await claimOrder(ctx.db, a.id, 'w1', 30);
    await claimOrder(ctx.db, b.id, 'w2', 30);
    const at = new Date(Date.now() + 3_600_000);
    await releaseOrders(ctx.db, 'w1', [{ id: a.id, at }, { id: b.id, delayMs: 0 }]);
    const ra = await orderRow(ctx.db, a.id);
    assert.equal(ra.locked_by, null);
    assert.equal(ra.next_run_at.getTime(), at.getTime());
    assert.equal((await orderRow(ctx.db, b.id)).locked_by, 'w2', "another worker's hold stays");
    await claimOrder(ctx.db, a.id, 'w1', 30);
    await releaseOrders(ctx.db, 'w1', [{ id: a.id, afterError: true }]);
    assert.ok((await orderRow(ctx.db, a.id)).next_run_at.getTime() > Date.now(), 'backs off after an error');
  });
});
