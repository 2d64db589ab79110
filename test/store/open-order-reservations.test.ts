/**
 * What open orders still owe the pools (the inventory refresh subtracts it from what quotes may sell): an
 * order sending or refunding whose transaction died owes its amount again until a replacement is recorded,
 * or inventory would be sold twice in between.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { insertOrder, transitionOrder, type OrderStatus } from '../../src/store/orders-store.ts';
import { insertChainTx, reservedByOpenOrders } from '../../src/store/settlement-store.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';

forEachEngine('reservations of open orders', (ctx) => {
  async function orderIn(to: OrderStatus[], opts: { source: string; destination: string; amountOut: bigint; deposit?: bigint; networkFee?: bigint }): Promise<string> {
    const acc = await createTestAccount(ctx.db);
    const order = newOrder(acc, { sourceAssetId: opts.source, destinationAssetId: opts.destination, amountOut: opts.amountOut, networkFee: opts.networkFee ?? 2_000n });
    const id = ((await insertOrder(ctx.db, order, { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string }).id;
    if (opts.deposit !== undefined) await ctx.db.query(`UPDATE orders SET deposit = $2::jsonb WHERE id = $1`, [id, JSON.stringify({ amount: opts.deposit.toString() })]);
    const steps: OrderStatus[] = ['awaiting_deposit', ...to];
    for (let i = 1; i < steps.length; i++) assert.ok(await transitionOrder(ctx.db, id, steps[i - 1]!, steps[i]!));
    return id;
  }
  const chainTx = (orderId: string, kind: 'payout' | 'refund', assetId: string, amount: bigint, part: number, meta: Record<string, unknown> = {}) =>
    insertChainTx(ctx.db, {
      kind,
      orderId,
      assetId,
      amount,
      source: 'pool',
      destination: 'someone',
      signature: randomBytes(32).toString('hex'),
      wire: 'AA==',
      lastValidBlockHeight: 100n,
      meta: { part, ...meta },
    });
  const setStatus = (txId: string, status: string) => ctx.db.query(`UPDATE chain_txs SET status = $2 WHERE id = $1`, [txId, status]);

  it('counts unpaid orders, and sending or refunding orders for what no live transaction covers', async () => {
    // Assets of their own, so other suites' orders on the same database do not count.
    const a = `a${randomBytes(4).toString('hex')}`;
    const b = `b${randomBytes(4).toString('hex')}`;
    const reserved = async () => {
      const r = await reservedByOpenOrders(ctx.db);
      return { a: r.get(a) ?? 0n, b: r.get(b) ?? 0n };
    };

    await orderIn([], { source: b, destination: a, amountOut: 100n });
    await orderIn(['deposit_detected', 'deposit_confirmed'], { source: b, destination: a, amountOut: 20n });
    assert.deepEqual(await reserved(), { a: 120n, b: 0n });

    // Sending in two parts: owed until each part is live; a dead part is owed again.
    const sending = await orderIn(['deposit_detected', 'deposit_confirmed', 'sending'], { source: b, destination: a, amountOut: 1_000n });
    assert.deepEqual(await reserved(), { a: 1_120n, b: 0n }, 'sending, nothing recorded');
    const part0 = (await chainTx(sending, 'payout', a, 600n, 0))!;
    const part1 = (await chainTx(sending, 'payout', a, 400n, 1))!;
    assert.deepEqual(await reserved(), { a: 120n, b: 0n }, 'both parts pending: the pending outflows count them');
    await setStatus(part0, 'confirmed');
    await setStatus(part1, 'expired');
    assert.deepEqual(await reserved(), { a: 520n, b: 0n }, 'a dead part awaiting its replacement');
    await chainTx(sending, 'payout', a, 400n, 1);
    assert.deepEqual(await reserved(), { a: 120n, b: 0n }, 'replacement recorded');

    // Refunding: the deposit less the network fee, in the source asset; late refunds are not the order's.
    const refunding = await orderIn(['deposit_detected', 'deposit_confirmed', 'refunding'], { source: b, destination: a, amountOut: 50n, deposit: 10_000n, networkFee: 300n });
    assert.deepEqual(await reserved(), { a: 120n, b: 9_700n });
    await chainTx(refunding, 'refund', b, 5n, 7, { late: true });
    assert.deepEqual(await reserved(), { a: 120n, b: 9_700n }, 'a late refund does not pay the order');
    const refund = (await chainTx(refunding, 'refund', b, 9_700n, 0))!;
    assert.deepEqual(await reserved(), { a: 120n, b: 0n });
    await setStatus(refund, 'failed');
    assert.deepEqual(await reserved(), { a: 120n, b: 9_700n }, 'a refund that landed and failed');

    // Final orders owe nothing.
    await transitionOrder(ctx.db, refunding, 'refunding', 'failed', { failureReason: 'test' });
    await transitionOrder(ctx.db, sending, 'sending', 'completed');
    assert.deepEqual(await reserved(), { a: 120n, b: 0n });
  });
});
