/**
 * The late-deposit pass reads the most recently finished orders and rotates through the rest of its
 * 7-day window, so an order that finished long ago (and many others since) is still read: late funds
 * to it are found, not stranded. Orders with a sweep pending, or finished over 7 days ago, are left out.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { insertOrder } from '../../src/store/orders-store.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { lateDepositCandidates } from '../../src/store/settlement/late-deposit-candidates.ts';
import { lateWindowRotation } from '../../src/store/settlement/late-window-rotation.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import type { Address } from '@solana/kit';
import { moveOrder } from '../support/move-order.ts';

forEachEngine('late-deposit window', (ctx) => {
  it('every finished order of the window is read within a rotation; the recent ones on every pass', async () => {
    const { db } = await ctx.fresh();
    const acc = await createTestAccount(db);
    const finished: { id: string; account: string }[] = [];
    for (let i = 0; i < 9; i++) {
      const o = newOrder(acc);
      const { id } = (await insertOrder(db, o, { key: `k-${i}`, responseStatus: 200, responseBody: {} })) as { id: string };
      assert.ok(await moveOrder(db, id, 'awaiting_deposit', 'expired'));
      finished.push({ id, account: o.depositAccount });
    }
    // Finished a minute apart, in order: moves within one millisecond of the store's clock would tie, and which of
    // a tie is "the most recently finished" is the store's choice (a flake on a fast machine).
    for (const [i, f] of finished.entries()) await db.query(`UPDATE orders SET updated_at = now() - make_interval(mins => $2::int) WHERE id = $1`, [f.id, finished.length - i]);
    // The first finished 3 days ago, one over 7 days ago (out of the window), one still open.
    await db.query(`UPDATE orders SET updated_at = now() - interval '3 days' WHERE id = $1`, [finished[0]!.id]);
    await db.query(`UPDATE orders SET updated_at = now() - interval '8 days' WHERE id = $1`, [finished[1]!.id]);
    await insertOrder(db, newOrder(acc), { key: 'open', responseStatus: 200, responseBody: {} });
    // One with its late sweep pending.
    await insertChainTx(db, {
      kind: 'sweep',
      orderId: null,
      assetId: 'usdc',
      amount: 1n,
      source: 'deposits',
      destination: 'pool' as Address,
      signature: randomBytes(32).toString('hex'),
      wire: 'AA==',
      lastValidBlockHeight: 1n,
      meta: { items: [{ orderId: finished[2]!.id, depositAccount: finished[2]!.account, amount: '1', late: true }] },
    });
    const expected = new Set(finished.slice(3).map((f) => f.id).concat(finished[0]!.id));
    const newest = finished.slice(-2).map((f) => f.id).sort();

    let cursor: bigint | null = null;
    const seen = new Set<string>();
    for (let pass = 0; pass < 4; pass++) {
      const { rows, next } = await lateDepositCandidates(db, cursor, 2);
      cursor = next;
      const ids = rows.map((r) => r.id);
      assert.equal(new Set(ids).size, ids.length, 'no order twice in one pass');
      for (const n of newest) assert.ok(ids.includes(n), `pass ${pass}: the most recently finished are read every pass`);
      for (const id of ids) {
        assert.ok(expected.has(id), `pass ${pass}: ${id} is in the window and has no sweep pending`);
        seen.add(id);
      }
    }
    assert.deepEqual([...seen].sort(), [...expected].sort(), 'the whole window, including the order that finished 3 days ago');
    // The rotation starts again: the oldest order of the window comes round a second time.
    const again = new Set<string>();
    for (let pass = 0; pass < 4; pass++) {
      const { rows, next } = await lateDepositCandidates(db, cursor, 2);
      cursor = next;
      for (const r of rows) again.add(r.id);
    }
    assert.ok(again.has(finished[0]!.id), 'read again in the next rotation');

    // The stray-funds scan's own rotation, a few owners at a time: every order of the window in turn,
    // pending sweep or not (it reads the owners' other accounts).
    let at: bigint | null = null;
    const owners: string[] = [];
    for (let pass = 0; pass < 3; pass++) {
      const { rows, next } = await lateWindowRotation(db, at, 3);
      at = next;
      owners.push(...rows.map((r) => r.id));
    }
    assert.deepEqual(owners.sort(), [...expected, finished[2]!.id].sort(), 'each once per rotation of 3 passes of 3');
  });
});
