/**
 * Nothing final happens to an order while a transaction handed out for it (original or refreshed) can
 * still land. Sweeping closes the deposit account, which each of them creates with the non-idempotent
 * instruction: closed while one can still land, it could be created again and the sender charged twice.
 * Expiry likewise waits for the latest of them. And deposits that cannot be swept right now must not hold
 * back those after them.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertOrder, updateOrderTransaction } from '../../src/store/orders-store.ts';
import { assetsWithUnsweptDeposits } from '../../src/store/settlement/assets-with-unswept-deposits.ts';
import { lockUnsweptDeposits } from '../../src/store/settlement/lock-unswept-deposits.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import { moveOrder } from '../support/move-order.ts';

forEachEngine('transactions handed out for an order', (ctx) => {
  /** A confirmed deposit of an asset of its own (other suites' orders share the database). */
  async function confirmedDeposit(assetId: string, lastValidBlockHeight: bigint, refreshedTo: bigint[] = []): Promise<{ id: string; trackingId: string }> {
    const acc = await createTestAccount(ctx.db);
    const order = newOrder(acc, { sourceAssetId: assetId, destinationAssetId: assetId, txLastValidBlockHeight: lastValidBlockHeight });
    const id = ((await insertOrder(ctx.db, order, { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string }).id;
    for (const height of refreshedTo) assert.ok(await updateOrderTransaction(ctx.db, id, { blockhash: `bh${height}`, lastValidBlockHeight: height, expiresAtSlot: height + 100n }));
    const deposit = { signature: 'sig', amount: '1000000', confirmedAt: new Date().toISOString() };
    assert.ok(await moveOrder(ctx.db, id, 'awaiting_deposit', 'deposit_detected', { deposit }));
    assert.ok(await moveOrder(ctx.db, id, 'deposit_detected', 'deposit_confirmed', { deposit }));
    return { id, trackingId: order.trackingId };
  }
  const ids = async (height: bigint, assetId: string, afterId?: string) =>
    (await lockUnsweptDeposits(ctx.db, height, assetId, 4, afterId)).map((d) => d.orderId);

  it('waits until every transaction handed out for the order is dead at the given (finalized) height', async () => {
    const asset = `sw-${Math.random().toString(36).slice(2, 8)}`;
    const o = await confirmedDeposit(asset, 500n);
    assert.deepEqual(await ids(500n, asset), [], 'the transaction is valid through height 500');
    assert.ok(!(await assetsWithUnsweptDeposits(ctx.db, 500n)).includes(asset));
    assert.deepEqual(await ids(501n, asset), [o.id]);
    assert.ok((await assetsWithUnsweptDeposits(ctx.db, 501n)).includes(asset));
    // A refresh handed out a later transaction: the sweep waits for that one too, and an older blockhash
    // handed out afterwards (another API process's cache) does not shorten the wait.
    const r = await confirmedDeposit(asset, 500n, [800n, 600n]);
    assert.deepEqual(await ids(800n, asset), [o.id]);
    assert.deepEqual(await ids(801n, asset), [o.id, r.id]);
  });

  it('an order expires only if its latest handed-out transaction is dead, as the row says when it moves', async () => {
    const acc = await createTestAccount(ctx.db);
    const order = newOrder(acc, { txLastValidBlockHeight: 500n });
    const id = ((await insertOrder(ctx.db, order, { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string }).id;
    // The worker read the order (valid through 500); a refresh hands out one valid through 900 meanwhile.
    assert.ok(await updateOrderTransaction(ctx.db, id, { blockhash: 'later', lastValidBlockHeight: 900n, expiresAtSlot: 1_000n }));
    assert.equal(await moveOrder(ctx.db, id, 'awaiting_deposit', 'expired', {}, { deadAtHeight: 600n }), false, 'the refreshed transaction can still land');
    assert.equal(await moveOrder(ctx.db, id, 'awaiting_deposit', 'expired', {}, { deadAtHeight: 901n }), true);
  });

  it('takes the deposits after a given order id, so unsweepable ones never hold back the rest', async () => {
    const asset = `sw-${Math.random().toString(36).slice(2, 8)}`;
    const all: string[] = [];
    for (let i = 0; i < 6; i++) all.push((await confirmedDeposit(asset, 10n)).id);
    assert.deepEqual(await ids(11n, asset), all.slice(0, 4), 'oldest first, a batch at a time');
    assert.deepEqual(await ids(11n, asset, all[3]), all.slice(4), 'then those after the last batch');
    assert.deepEqual(await ids(11n, asset, all[5]), [], 'past the end: the caller starts again');
  });
});
