/**
 * No address of an order may be another order's deposit owner or deposit account (docs/spec.md §6,
 * INVALID_ADDRESS). The order's insert checks it in the same statement, in all three of its forms: the group
 * commit's batch, a batch of one, and the claim-first path. A refused order stores nothing: no row, no history,
 * no done idempotency record (issue 56).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { claimIdempotencyKey } from '../../src/store/idempotency-store.ts';
import { getOrderByTrackingId, insertOrder, insertOrdersWithNewKeys, insertOrderWithNewKey, type NewOrder } from '../../src/store/orders-store.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, fakeAddress, newOrder } from '../support/store-fixtures.ts';

const item = (order: NewOrder, key: string) => ({ order, key, requestHash: `h-${key}`, responseBody: { success: true } });

forEachEngine('the deposit-address rule in the order insert', (ctx) => {
  it('a batch stores the orders whose addresses are nobody’s deposit address and answers the others, with what it found', async () => {
    const acc = await createTestAccount(ctx.db);
    const existing = newOrder(acc);
    assert.equal((await insertOrderWithNewKey(ctx.db, existing, { ...item(existing, 'existing'), responseStatus: 200 })).kind, 'created');
    const ok = newOrder(acc);
    const toOwner = newOrder(acc, { recipient: existing.depositOwner });
    const fromAccount = newOrder(acc, { sender: existing.depositAccount });
    const feeToOwner = newOrder(acc, { feeRecipient: existing.depositOwner });
    const { created, refused } = await insertOrdersWithNewKeys(ctx.db, [ok, toOwner, fromAccount, feeToOwner].map((o) => item(o, `k-${o.trackingId}`)));
    assert.deepEqual([...created.keys()], [ok.trackingId]);
    assert.deepEqual(Object.fromEntries(refused), {
      [toOwner.trackingId]: [existing.depositOwner],
      [fromAccount.trackingId]: [existing.depositAccount],
      [feeToOwner.trackingId]: [existing.depositOwner],
    });
    for (const o of [toOwner, fromAccount, feeToOwner]) {
      assert.equal(await getOrderByTrackingId(ctx.db, o.trackingId), null, 'no row');
      assert.equal((await claimIdempotencyKey(ctx.db, acc, `k-${o.trackingId}`, `h-k-${o.trackingId}`)).kind, 'claimed', 'its key was not recorded');
    }
    assert.ok(await getOrderByTrackingId(ctx.db, ok.trackingId));
  });

  it('a batch of one and the claim-first insert refuse alike and store nothing', async () => {
    const acc = await createTestAccount(ctx.db);
    const existing = newOrder(acc);
    await insertOrderWithNewKey(ctx.db, existing, { ...item(existing, 'existing'), responseStatus: 200 });
    const alone = newOrder(acc, { sender: existing.depositOwner, recipient: existing.depositAccount });
    assert.deepEqual(await insertOrderWithNewKey(ctx.db, alone, { ...item(alone, 'alone'), responseStatus: 200 }), {
      kind: 'deposit_address',
      addresses: [existing.depositOwner, existing.depositAccount],
    });
    assert.equal(await getOrderByTrackingId(ctx.db, alone.trackingId), null);
    assert.equal((await claimIdempotencyKey(ctx.db, acc, 'alone', 'h-alone')).kind, 'claimed', 'the key is free: this claim takes it');

    const claimed = newOrder(acc, { recipient: existing.depositOwner });
    assert.equal((await claimIdempotencyKey(ctx.db, acc, 'claimed', 'h')).kind, 'claimed');
    assert.deepEqual(await insertOrder(ctx.db, claimed, { key: 'claimed', responseStatus: 200, responseBody: {} }), { kind: 'deposit_address', addresses: [existing.depositOwner] });
    assert.equal(await getOrderByTrackingId(ctx.db, claimed.trackingId), null);
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 'claimed', 'h'), { kind: 'in_progress' }, 'the claim is left as it was, for its owner to release');

    const fine = newOrder(acc, { recipient: fakeAddress() });
    assert.equal((await claimIdempotencyKey(ctx.db, acc, 'fine', 'h')).kind, 'claimed');
    assert.equal((await insertOrder(ctx.db, fine, { key: 'fine', responseStatus: 200, responseBody: { ok: true } })).kind, 'created');
    assert.deepEqual(await claimIdempotencyKey(ctx.db, acc, 'fine', 'h'), { kind: 'done', status: 200, body: { ok: true } });
  });
});
