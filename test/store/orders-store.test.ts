import assert from 'node:assert/strict';
import { it } from 'node:test';
import { claimIdempotencyKey, purgeIdempotencyKeys, releaseIdempotencyKey } from '../../src/store/idempotency-store.ts';
import { addDepositHint, purgeDepositHints, countOrdersByStatus, getOrderById, getOrderByTrackingId, insertOrder, updateOrderTransaction } from '../../src/store/orders-store.ts';
import type { Queryable } from '../../src/store/db.ts';
import { forEachEngine } from '../support/databases.ts';
import { U64_MAX, createTestAccount, newOrder } from '../support/store-fixtures.ts';
import { moveOrder } from '../support/move-order.ts';

async function idempotencyRow(db: Queryable, accountId: string, key: string) {
  const { rows } = await db.query<{ state: string; response_status: number | null; response_body: unknown; request_hash: string }>(
    'SELECT state, response_status, response_body, request_hash FROM idempotency_keys WHERE account_id = $1 AND key = $2',
    [accountId, key],
  );
  return rows[0] ?? null;
}

async function makeStale(db: Queryable, accountId: string, key: string, seconds: number) {
  await db.query(`UPDATE idempotency_keys SET locked_at = now() - make_interval(secs => $3) WHERE account_id = $1 AND key = $2`, [accountId, key, seconds]);
}

forEachEngine('idempotency-store', (ctx) => {
  it('claimed, then in_progress for the same request, conflict for a different one', async () => {
    const acc = await createTestAccount(ctx.db);
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 'k', 'h1'), { kind: 'claimed' });
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 'k', 'h1'), { kind: 'in_progress' });
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 'k', 'h2'), { kind: 'conflict' });
    // Keys are per account.
    const other = await createTestAccount(ctx.db);
    assert.deepEqual(await claimIdempotencyKey(ctx.db, other, 'k', 'h2'), { kind: 'claimed' });
  });

  it('replays the stored response once the order completed the record', async () => {
    const acc = await createTestAccount(ctx.db);
    assert.equal((await claimIdempotencyKey(ctx.db, acc, 'order-1', 'h')).kind, 'claimed');
    const body = { success: true, order: { trackingId: 'x', amountIn: '1000000' } };
    const res = await insertOrder(ctx.db, newOrder(acc), { key: 'order-1', responseStatus: 200, responseBody: body });
    assert.equal(res.kind, 'created');
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 'order-1', 'h'), { kind: 'done', status: 200, body });
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 'order-1', 'other'), { kind: 'conflict' });
  });

  it('release gives an in-progress key back, but never a completed one', async () => {
    const acc = await createTestAccount(ctx.db);
    await claimIdempotencyKey(ctx.db, acc, 'r', 'h1');
    await releaseIdempotencyKey(ctx.db, acc, 'r');
    assert.equal(await idempotencyRow(ctx.db, acc, 'r'), null);
    // After release, even a different request may use the key.
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 'r', 'h2'), { kind: 'claimed' });

    await claimIdempotencyKey(ctx.db, acc, 'd', 'h');
    await insertOrder(ctx.db, newOrder(acc), { key: 'd', responseStatus: 200, responseBody: { ok: 1 } });
    await releaseIdempotencyKey(ctx.db, acc, 'd');
    assert.equal((await idempotencyRow(ctx.db, acc, 'd'))?.state, 'done');
  });

  it('a stale in-progress claim is taken over by the same request only', async () => {
    const acc = await createTestAccount(ctx.db);
    await claimIdempotencyKey(ctx.db, acc, 's', 'h');
    await makeStale(ctx.db, acc, 's', 10);
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 's', 'h'), { kind: 'in_progress' }, 'a 10 s old claim is not stale');
    await makeStale(ctx.db, acc, 's', 31);
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 's', 'other'), { kind: 'conflict' });
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 's', 'h'), { kind: 'claimed' });
    // The takeover refreshed the lock: the next retry sees it in progress again.
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 's', 'h'), { kind: 'in_progress' });
    // A completed record is never taken over, however old.
    await insertOrder(ctx.db, newOrder(acc), { key: 's', responseStatus: 200, responseBody: { n: 1 } });
    await makeStale(ctx.db, acc, 's', 3600);
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 's', 'h'), { kind: 'done', status: 200, body: { n: 1 } });
  });

  it('exactly one of several concurrent claims wins', async () => {
    const acc = await createTestAccount(ctx.db);
    const results = await Promise.all(Array.from({ length: 6 }, () => claimIdempotencyKey(ctx.db, acc, 'race', 'h')));
    assert.deepEqual(results.map((r) => r.kind).sort(), ['claimed', 'in_progress', 'in_progress', 'in_progress', 'in_progress', 'in_progress']);
  });

  it('purges records older than 25 hours only', async () => {
    const acc = await createTestAccount(ctx.db);
    await claimIdempotencyKey(ctx.db, acc, 'old', 'h');
    await claimIdempotencyKey(ctx.db, acc, 'young', 'h');
    await ctx.db.query(`UPDATE idempotency_keys SET created_at = now() - interval '26 hours' WHERE account_id = $1 AND key = 'old'`, [acc]);
    await ctx.db.query(`UPDATE idempotency_keys SET created_at = now() - interval '23 hours' WHERE account_id = $1 AND key = 'young'`, [acc]);
    assert.ok((await purgeIdempotencyKeys(ctx.db)) >= 1);
    assert.equal(await idempotencyRow(ctx.db, acc, 'old'), null);
    assert.notEqual(await idempotencyRow(ctx.db, acc, 'young'), null);
  });
});

forEachEngine('orders-store', (ctx) => {
  it('purges deposit hints older than 7 days only', async () => {
    const acc = await createTestAccount(ctx.db);
    const { id } = (await insertOrder(ctx.db, newOrder(acc), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string };
    await addDepositHint(ctx.db, id, 'old-signature');
    await addDepositHint(ctx.db, id, 'young-signature');
    await ctx.db.query(`UPDATE deposit_hints SET created_at = now() - interval '8 days' WHERE order_id = $1 AND signature = 'old-signature'`, [id]);
    assert.ok((await purgeDepositHints(ctx.db)) >= 1);
    const { rows } = await ctx.db.query<{ signature: string }>('SELECT signature FROM deposit_hints WHERE order_id = $1', [id]);
    assert.deepEqual(rows.map((r) => r.signature), ['young-signature']);
  });

  it('insertOrder creates the order, its first history entry and completes the idempotency record', async () => {
    const acc = await createTestAccount(ctx.db);
    await claimIdempotencyKey(ctx.db, acc, 'ik', 'h');
    const o = newOrder(acc, { amountIn: U64_MAX, amountOut: U64_MAX - 1n, txLastValidBlockHeight: 9_007_199_254_740_993n, txExpiresAtSlot: 2n ** 62n });
    const body = { success: true, order: { trackingId: o.trackingId } };
    const res = await insertOrder(ctx.db, o, { key: 'ik', responseStatus: 200, responseBody: body });
    assert.equal(res.kind, 'created');
    const id = res.kind === 'created' ? res.id : '';
    assert.match(id, /^\d+$/);

    const got = await getOrderByTrackingId(ctx.db, o.trackingId);
    assert.ok(got);
    assert.equal(got.id, id);
    assert.equal(got.status, 'awaiting_deposit');
    for (const k of Object.keys(o) as (keyof typeof o)[]) {
      if (k === 'expiration' || k === 'createdAt') assert.equal((got[k] as Date).toISOString(), (o[k] as Date).toISOString(), k);
      else assert.deepEqual(got[k], o[k], k);
    }
    assert.equal(got.updatedAt.toISOString(), o.createdAt.toISOString());
    assert.deepEqual(got.history.map((h) => [h.status, h.at.toISOString()]), [['awaiting_deposit', o.createdAt.toISOString()]]);
    assert.deepEqual([got.deposit, got.payouts, got.refund, got.failureReason], [null, [], null, null]);
    assert.deepEqual(await getOrderById(ctx.db, id), got);

    const idem = await idempotencyRow(ctx.db, acc, 'ik');
    assert.deepEqual([idem?.state, idem?.response_status, idem?.response_body], ['done', 200, body]);
  });

  it('a second order for the same quote is quote_used and leaves no trace', async () => {
    const acc = await createTestAccount(ctx.db);
    const first = newOrder(acc);
    await claimIdempotencyKey(ctx.db, acc, 'a', 'h');
    assert.equal((await insertOrder(ctx.db, first, { key: 'a', responseStatus: 200, responseBody: {} })).kind, 'created');
    await claimIdempotencyKey(ctx.db, acc, 'b', 'h');
    const second = newOrder(acc, { quoteKey: first.quoteKey });
    assert.deepEqual(await insertOrder(ctx.db, second, { key: 'b', responseStatus: 200, responseBody: {} }), { kind: 'quote_used' });
    assert.equal(await getOrderByTrackingId(ctx.db, second.trackingId), null);
    // The second request's idempotency claim is still open (the caller releases it), not completed.
    assert.equal((await idempotencyRow(ctx.db, acc, 'b'))?.state, 'in_progress');
    const { rows } = await ctx.db.query<{ n: string | number }>('SELECT count(*) AS n FROM order_history h JOIN orders o ON o.id = h.order_id WHERE o.account_id = $1', [acc]);
    assert.equal(Number(rows[0]!.n), 1);
  });

  it('concurrent orders for one quote: exactly one is created', async () => {
    const acc = await createTestAccount(ctx.db);
    const quoteKey = `race-${Date.now()}`;
    const results = await Promise.all(
      Array.from({ length: 4 }, (_, i) => insertOrder(ctx.db, newOrder(acc, { quoteKey }), { key: `k${i}`, responseStatus: 200, responseBody: {} })),
    );
    assert.deepEqual(results.map((r) => r.kind).sort(), ['created', 'quote_used', 'quote_used', 'quote_used']);
  });

  it('transitionOrder is compare-and-set and appends history', async () => {
    const acc = await createTestAccount(ctx.db);
    const o = newOrder(acc);
    const res = await insertOrder(ctx.db, o, { key: 'none', responseStatus: 200, responseBody: {} });
    const id = res.kind === 'created' ? res.id : '';
    const deposit = { signature: 'sig1', amount: '1000000', confirmedAt: null };
    assert.equal(await moveOrder(ctx.db, id, 'awaiting_deposit', 'deposit_detected', { deposit }), true);
    assert.equal(await moveOrder(ctx.db, id, 'awaiting_deposit', 'expired'), false, 'second transition from the same state fails');
    let got = await getOrderById(ctx.db, id);
    assert.equal(got?.status, 'deposit_detected');
    assert.deepEqual(got?.deposit, deposit);
    assert.deepEqual(got?.history.map((h) => h.status), ['awaiting_deposit', 'deposit_detected']);

    // Back to awaiting_deposit clears the deposit (explicit null); other fields untouched.
    assert.equal(await moveOrder(ctx.db, id, 'deposit_detected', 'awaiting_deposit', { deposit: null }), true);
    got = await getOrderById(ctx.db, id);
    assert.equal(got?.deposit, null);

    assert.equal(await moveOrder(ctx.db, id, 'awaiting_deposit', 'deposit_detected', { deposit }), true);
    assert.equal(await moveOrder(ctx.db, id, 'deposit_detected', 'deposit_confirmed', { deposit: { ...deposit, confirmedAt: '2026-01-01T00:00:00.000Z' } }), true);
    const payouts = [{ signature: 'p1', amount: '990000', confirmedAt: null }];
    assert.equal(await moveOrder(ctx.db, id, 'deposit_confirmed', 'sending', { payouts }), true);
    assert.equal(await moveOrder(ctx.db, id, 'sending', 'failed', { failureReason: 'boom' }), true);
    assert.equal(await moveOrder(ctx.db, id, 'sending', 'completed'), false);
    got = await getOrderById(ctx.db, id);
    assert.equal(got?.status, 'failed');
    assert.deepEqual(got?.payouts, payouts, 'payouts kept when a later patch omits them');
    assert.equal(got?.deposit?.confirmedAt, '2026-01-01T00:00:00.000Z');
    assert.equal(got?.failureReason, 'boom');
    assert.deepEqual(got?.history.map((h) => h.status), ['awaiting_deposit', 'deposit_detected', 'awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending', 'failed']);
    const times = got!.history.map((h) => h.at.getTime());
    assert.deepEqual(times, [...times].sort((a, b) => a - b), 'history is in time order');
    assert.equal(got!.updatedAt.getTime(), times.at(-1));
    assert.equal(await moveOrder(ctx.db, '999999999', 'awaiting_deposit', 'expired'), false);
  });

  it('concurrent transitions from one state: exactly one wins', async () => {
    const acc = await createTestAccount(ctx.db);
    const res = await insertOrder(ctx.db, newOrder(acc), { key: 'none', responseStatus: 200, responseBody: {} });
    const id = res.kind === 'created' ? res.id : '';
    const outcomes = await Promise.all([
      moveOrder(ctx.db, id, 'awaiting_deposit', 'expired'),
      moveOrder(ctx.db, id, 'awaiting_deposit', 'deposit_detected'),
      moveOrder(ctx.db, id, 'awaiting_deposit', 'failed'),
    ]);
    assert.equal(outcomes.filter(Boolean).length, 1);
    const got = await getOrderById(ctx.db, id);
    assert.equal(got?.history.length, 2);
  });

  it('updateOrderTransaction only while awaiting_deposit; heights never go backwards', async () => {
    const acc = await createTestAccount(ctx.db);
    const res = await insertOrder(ctx.db, newOrder(acc, { txLastValidBlockHeight: 1000n, txExpiresAtSlot: 1200n }), { key: 'none', responseStatus: 200, responseBody: {} });
    const id = res.kind === 'created' ? res.id : '';
    assert.equal(await updateOrderTransaction(ctx.db, id, { blockhash: 'bh2', lastValidBlockHeight: 2000n, expiresAtSlot: 2400n }), true);
    let got = await getOrderById(ctx.db, id);
    assert.deepEqual([got?.txBlockhash, got?.txLastValidBlockHeight, got?.txExpiresAtSlot], ['bh2', 2000n, 2400n]);
    assert.equal(await updateOrderTransaction(ctx.db, id, { blockhash: 'bh3', lastValidBlockHeight: 1500n, expiresAtSlot: 100n }), true);
    got = await getOrderById(ctx.db, id);
    assert.deepEqual([got?.txBlockhash, got?.txLastValidBlockHeight, got?.txExpiresAtSlot], ['bh3', 2000n, 2400n]);
    assert.equal(await moveOrder(ctx.db, id, 'awaiting_deposit', 'deposit_detected'), true);
    assert.equal(await updateOrderTransaction(ctx.db, id, { blockhash: 'bh4', lastValidBlockHeight: 3000n, expiresAtSlot: 3600n }), false);
    got = await getOrderById(ctx.db, id);
    assert.equal(got?.txBlockhash, 'bh3');
  });

  it('deposit hints are idempotent; counts by status reflect the orders', async () => {
    const acc = await createTestAccount(ctx.db);
    const before = await countOrdersByStatus(ctx.db);
    const res = await insertOrder(ctx.db, newOrder(acc), { key: 'none', responseStatus: 200, responseBody: {} });
    const id = res.kind === 'created' ? res.id : '';
    await addDepositHint(ctx.db, id, 'sigA');
    await addDepositHint(ctx.db, id, 'sigA');
    await addDepositHint(ctx.db, id, 'sigB');
    const { rows } = await ctx.db.query<{ signature: string }>('SELECT signature FROM deposit_hints WHERE order_id = $1 ORDER BY signature', [id]);
    assert.deepEqual(rows.map((r) => r.signature), ['sigA', 'sigB']);
    const after = await countOrdersByStatus(ctx.db);
    assert.equal((after.get('awaiting_deposit') ?? 0) - (before.get('awaiting_deposit') ?? 0), 1);
    assert.equal(await getOrderByTrackingId(ctx.db, 'trk_1111111111111111111111'), null);
  });
});
