/**
 * The webhook outbox in the store, on PGlite and on PostgreSQL: the order_history trigger writes one event
 * per transition of an account with a webhook (none otherwise, none once cleared), a claim hands each due
 * event out once with its account's webhook, and failures back off 2^attempts s (computed in SQL) until
 * they are given up.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertOrderWithNewKey } from '../../src/store/orders-store.ts';
import { claimWebhookEvents, markWebhookDelivered, markWebhookFailed, MAX_WEBHOOK_ATTEMPTS, setWebhook } from '../../src/store/webhooks-store.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import { moveOrder } from '../support/move-order.ts';

forEachEngine('webhook events', (ctx) => {
  async function placed(acc: string) {
    const o = newOrder(acc);
    const r = await insertOrderWithNewKey(ctx.db, o, { key: `k-${o.trackingId}`, requestHash: 'h', responseStatus: 200, responseBody: {} });
    assert.equal(r.kind, 'created');
    return { ...o, id: (r as { id: string }).id };
  }
  const eventsOf = async (acc: string) =>
    (await ctx.db.query<{ status: string; order_id: string | number }>('SELECT status, order_id FROM webhook_events WHERE account_id = $1 ORDER BY id', [acc])).rows.map((r) => r.status);
  /** Makes this account's events due now and claims until they are all out (other tests' events may be due too). */
  async function claimOf(acc: string) {
    await ctx.db.query('UPDATE webhook_events SET next_attempt_at = now() - interval \'1 second\' WHERE account_id = $1 AND delivered_at IS NULL AND given_up_at IS NULL', [acc]);
    const mine = [];
    for (;;) {
      const batch = await claimWebhookEvents(ctx.db, 100, 30);
      if (batch.length === 0) return mine;
      const { rows } = await ctx.db.query<{ id: string | number }>('SELECT id FROM webhook_events WHERE account_id = $1', [acc]);
      const ids = new Set(rows.map((r) => String(r.id)));
      mine.push(...batch.filter((e) => ids.has(e.id)));
    }
  }

  it('one event per transition of an account with a webhook; none without one, none once cleared', async () => {
    const hooked = await createTestAccount(ctx.db);
    const quiet = await createTestAccount(ctx.db);
    assert.deepEqual(await setWebhook(ctx.db, hooked, 'https://partner.example/hook', 'whsec_test'), { previousSecretUntil: null }, 'set: no secret was replaced');
    const a = await placed(hooked);
    const q = await placed(quiet);
    assert.equal(await moveOrder(ctx.db, a.id, 'awaiting_deposit', 'expired'), true);
    assert.equal(await moveOrder(ctx.db, q.id, 'awaiting_deposit', 'expired'), true);
    assert.deepEqual(await eventsOf(hooked), ['awaiting_deposit', 'expired']);
    assert.deepEqual(await eventsOf(quiet), []);
    await setWebhook(ctx.db, hooked, null, null);
    await placed(hooked);
    assert.deepEqual(await eventsOf(hooked), ['awaiting_deposit', 'expired'], 'no events once the webhook is cleared');
  });

  it('several transitions in one statement are numbered in history order, and an order\'s events are claimed one at a time, oldest first', async () => {
    const acc = await createTestAccount(ctx.db);
    await setWebhook(ctx.db, acc, 'https://partner.example/hook', 'whsec_test');
    const o = await placed(acc);
    const p = await placed(acc); // another order: its events do not wait for the first order's
    await ctx.db.query(`INSERT INTO order_history (order_id, status, at) SELECT $1, s, now() FROM unnest(ARRAY['deposit_detected', 'deposit_confirmed', 'sending']) AS s`, [o.id]);
    const { rows } = await ctx.db.query<{ status: string; history_id: string | number }>('SELECT status, history_id FROM webhook_events WHERE order_id = $1 ORDER BY id', [o.id]);
    assert.deepEqual(rows.map((r) => r.status), ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending']);
    const seqs = rows.map((r) => BigInt(r.history_id));
    assert.deepEqual([...seqs].sort((x, y) => (x < y ? -1 : 1)), seqs, 'events are numbered in history order');

    const first = await claimOf(acc);
    assert.deepEqual(first.map((e) => [e.orderId, e.status]).sort(), [[o.id, 'awaiting_deposit'], [p.id, 'awaiting_deposit']].sort(), 'one event per order');
    // The first order's head fails: its later events stay back (even when due) until it is delivered or given up.
    const head = first.find((e) => e.orderId === o.id)!;
    await markWebhookDelivered(ctx.db, first.find((e) => e.orderId === p.id)!);
    assert.equal((await markWebhookFailed(ctx.db, head, 'HTTP 503'))?.givenUp, false);
    await ctx.db.query(`UPDATE webhook_events SET next_attempt_at = now() - interval '1 second' WHERE order_id = $1 AND id > $2`, [o.id, head.id]);
    assert.deepEqual(await claimWebhookEvents(ctx.db, 100, 30).then((b) => b.filter((e) => e.orderId === o.id)), [], 'nothing of that order while its head waits for its retry');
    const retried = await claimOf(acc);
    assert.deepEqual(retried.map((e) => [e.status, e.attempts]), [['awaiting_deposit', 2]]);
    await markWebhookDelivered(ctx.db, retried[0]!);
    const order: string[] = [];
    for (let next = await claimOf(acc); next.length > 0; next = await claimOf(acc)) {
      assert.equal(next.length, 1);
      order.push(next[0]!.status);
      await markWebhookDelivered(ctx.db, next[0]!);
    }
    assert.deepEqual(order, ['deposit_detected', 'deposit_confirmed', 'sending']);
  });

  it('a claim hands each due event out once, with the webhook; failures back off 2^attempts s until given up; delivered ones are done', async () => {
    const acc = await createTestAccount(ctx.db);
    await setWebhook(ctx.db, acc, 'https://partner.example/hook', 'whsec_test');
    const o = await placed(acc);
    const [first, ...rest] = await claimOf(acc);
    assert.ok(first);
    assert.equal(rest.length, 0);
    assert.deepEqual([first.status, first.orderId, first.attempts, first.url, first.secret], ['awaiting_deposit', o.id, 1, 'https://partner.example/hook', 'whsec_test']);
    assert.equal(first.sequence, 1, "the sequence is the transition's place in its order's history");
    assert.deepEqual(await claimOf(acc), [], 'a leased event is not handed out again');

    const failed = await markWebhookFailed(ctx.db, first, 'HTTP 500');
    assert.equal(failed?.givenUp, false);
    const wait = async () =>
      (await ctx.db.query<{ s: number; given_up: boolean; last_error: string }>(
        'SELECT extract(epoch FROM next_attempt_at - now())::float8 AS s, given_up_at IS NOT NULL AS given_up, last_error FROM webhook_events WHERE id = $1',
        [first.id],
      )).rows[0]!;
    const after1 = await wait();
    assert.ok(after1.s > 1 && after1.s <= 2, `first retry after ~2 s, got ${after1.s}`);
    assert.equal(after1.last_error, 'HTTP 500');
    assert.deepEqual(await claimWebhookEvents(ctx.db, 1000, 30).then((b) => b.filter((e) => e.id === first.id)), [], 'not due before its backoff');

    // Attempts run out: the last failure gives the event up; it is never claimed again.
    await ctx.db.query('UPDATE webhook_events SET attempts = $2 WHERE id = $1', [first.id, MAX_WEBHOOK_ATTEMPTS - 1]);
    const [again] = await claimOf(acc);
    assert.equal(again?.attempts, MAX_WEBHOOK_ATTEMPTS);
    assert.equal(await markWebhookFailed(ctx.db, first, 'timeout'), null, 'an old lease marks nothing');
    assert.equal((await markWebhookFailed(ctx.db, again!, 'timeout'))?.givenUp, true);
    assert.equal((await wait()).given_up, true);
    assert.deepEqual(await claimOf(acc), []);

    // A delivered event is done.
    await moveOrder(ctx.db, o.id, 'awaiting_deposit', 'expired');
    const [expired] = await claimOf(acc);
    assert.equal(expired?.status, 'expired');
    await markWebhookDelivered(ctx.db, expired!);
    assert.deepEqual(await claimOf(acc), []);
  });
});
