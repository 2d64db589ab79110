/**
 * order.released in the store (migration 017), on PGlite and on PostgreSQL: the transition to `sending` of
 * an order released with its class writes a second event, typed order.released, right after the
 * transition's order.status_changed and on the same history row; an order never released by class (not a
 * private amount, or privacy off) gets none; the pair is unique per transition and type, and the claim
 * hands each out once with its type and the same sequence.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertOrderWithNewKey } from '../../src/store/orders-store.ts';
import { claimWebhookEvents, setWebhook } from '../../src/store/webhooks-store.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';

forEachEngine('order.released events', (ctx) => {
  async function placed(acc: string) {
    const o = newOrder(acc);
    const r = await insertOrderWithNewKey(ctx.db, o, { key: `k-${o.trackingId}`, requestHash: 'h', responseStatus: 200, responseBody: {} });
    assert.equal(r.kind, 'created');
    return (r as { id: string }).id;
  }
  const eventsOf = async (orderId: string) =>
    (await ctx.db.query<{ type: string; status: string; history_id: string | number }>('SELECT type, status, history_id FROM webhook_events WHERE order_id = $1 ORDER BY id', [orderId])).rows;
  const history = (orderId: string, statuses: string[]) =>
    ctx.db.query(`INSERT INTO order_history (order_id, status, at) SELECT $1, s, now() FROM unnest($2::text[]) WITH ORDINALITY AS u(s, n) ORDER BY n`, [orderId, statuses]);

  it('a class-released order: order.released beside its sending event, once; others: none', async () => {
    const acc = await createTestAccount(ctx.db);
    await setWebhook(ctx.db, acc, 'https://partner.example/hook', 'whsec_test');
    const held = await placed(acc);
    const free = await placed(acc);
    await history(held, ['deposit_detected', 'deposit_confirmed']);
    await history(free, ['deposit_detected', 'deposit_confirmed']);
    // The class release (release-classes.ts) stamps the order while it waits in deposit_confirmed.
    await ctx.db.query('UPDATE orders SET class_released_at = now(), class_release_size = 3 WHERE id = $1', [held]);
    // Both orders' sending and completed in one statement: one trigger run.
    await ctx.db.query(
      `INSERT INTO order_history (order_id, status, at) SELECT id, s, now() FROM unnest($1::bigint[]) AS o(id), unnest(ARRAY['sending', 'completed']) WITH ORDINALITY AS u(s, n) ORDER BY id, n`,
      [[held, free]],
    );
    const heldEvents = await eventsOf(held);
    assert.deepEqual(
      heldEvents.map((e) => [e.status, e.type]),
      [
        ['awaiting_deposit', 'order.status_changed'],
        ['deposit_detected', 'order.status_changed'],
        ['deposit_confirmed', 'order.status_changed'],
        ['sending', 'order.status_changed'],
        ['sending', 'order.released'],
        ['completed', 'order.status_changed'],
      ],
    );
    assert.equal(String(heldEvents[4]!.history_id), String(heldEvents[3]!.history_id), 'the release rides on its sending transition');
    assert.deepEqual((await eventsOf(free)).map((e) => e.type).filter((t) => t !== 'order.status_changed'), [], 'no release for an order its class never held');
    await assert.rejects(
      ctx.db.query(`INSERT INTO webhook_events (account_id, order_id, history_id, status, at, type, next_attempt_at) VALUES ($1, $2, $3, 'sending', now(), 'order.released', now())`, [acc, held, heldEvents[4]!.history_id]),
      /duplicate key|unique/i,
      'one order.released per transition',
    );

    await ctx.db.query(`UPDATE webhook_events SET next_attempt_at = now() - interval '1 second' WHERE order_id = $1`, [held]);
    const claimed: { type: string; status: string; sequence: number }[] = [];
    for (let i = 0; i < 20 && claimed.length < heldEvents.length; i++) {
      const batch = (await claimWebhookEvents(ctx.db, 100, 30)).filter((e) => e.orderId === held);
      for (const e of batch) {
        claimed.push({ type: e.type, status: e.status, sequence: e.sequence });
        await ctx.db.query('UPDATE webhook_events SET delivered_at = now() WHERE id = $1', [e.id]);
      }
    }
    assert.deepEqual(claimed.slice(3, 5), [
      { type: 'order.status_changed', status: 'sending', sequence: 4 },
      { type: 'order.released', status: 'sending', sequence: 4 },
    ]);
    assert.equal(claimed.length, heldEvents.length, 'each handed out once');
  });
});
