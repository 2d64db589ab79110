/**
 * What open orders still owe the pools (the inventory refresh subtracts it from what quotes may sell): an
 * order sending or refunding whose transaction died owes its amount again until a replacement is recorded,
 * or inventory would be sold twice in between.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { insertOrder, type OrderStatus } from '../../src/store/orders-store.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { poolCommitments } from '../../src/store/settlement/pool-commitments.ts';
import { unfundedCommitments } from '../../src/store/settlement/unfunded-commitments.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import type { Address } from '@solana/kit';
import { moveOrder } from '../support/move-order.ts';

forEachEngine('reservations of open orders', (ctx) => {
  async function orderIn(to: OrderStatus[], opts: { source: string; destination: string; amountOut: bigint; deposit?: bigint; networkFee?: bigint }): Promise<string> {
    const acc = await createTestAccount(ctx.db);
    const order = newOrder(acc, { sourceAssetId: opts.source, destinationAssetId: opts.destination, amountOut: opts.amountOut, networkFee: opts.networkFee ?? 2_000n });
    const id = ((await insertOrder(ctx.db, order, { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string }).id;
    if (opts.deposit !== undefined) await ctx.db.query(`UPDATE orders SET deposit = $2::jsonb WHERE id = $1`, [id, JSON.stringify({ amount: opts.deposit.toString() })]);
    const steps: OrderStatus[] = ['awaiting_deposit', ...to];
    for (let i = 1; i < steps.length; i++) assert.ok(await moveOrder(ctx.db, id, steps[i - 1]!, steps[i]!));
    return id;
  }
  const chainTx = (orderId: string, kind: 'payout' | 'refund', assetId: string, amount: bigint, part: number, meta: Record<string, unknown> = {}) =>
    insertChainTx(ctx.db, {
      kind,
      orderId,
      assetId,
      amount,
      source: `pool-${assetId}`,
      destination: 'someone' as Address,
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
    // What the pools are committed to per asset: owed by open orders, plus pending outflows (every pending
    // transaction here pays from the wallet 'pool-<asset>').
    // Unfunded orders are not owed but reserved (per account, within their reservation window): counted with what is owed here.
    const reservedOf = (reserved: Map<string, Map<string, bigint>>, asset: string) => [...(reserved.get(asset)?.values() ?? [])].reduce((x, y) => x + y, 0n);
    const reserved = async () => {
      const { owed, pending } = await poolCommitments(ctx.db);
      const { reserved: unfunded } = await unfundedCommitments(ctx.db, 3600);
      return { a: (owed.get(a) ?? 0n) + reservedOf(unfunded, a) + (pending.get(`pool-${a}`) ?? 0n), b: (owed.get(b) ?? 0n) + reservedOf(unfunded, b) + (pending.get(`pool-${b}`) ?? 0n) };
    };
    const owedOnly = async () => {
      const { owed } = await poolCommitments(ctx.db);
      const { reserved: unfunded } = await unfundedCommitments(ctx.db, 3600);
      return { a: (owed.get(a) ?? 0n) + reservedOf(unfunded, a), b: (owed.get(b) ?? 0n) + reservedOf(unfunded, b) };
    };

    await orderIn([], { source: b, destination: a, amountOut: 100n });
    await orderIn(['deposit_detected', 'deposit_confirmed'], { source: b, destination: a, amountOut: 20n });
    assert.deepEqual(await reserved(), { a: 120n, b: 0n });
    assert.equal((await poolCommitments(ctx.db)).owed.get(a), 20n, 'only the funded order is owed; the unfunded one is reserved');
    // Issue 49: an order held by screening still owes its amountOut (a release pays it): it is not free inventory.
    await orderIn(['deposit_detected', 'deposit_confirmed', 'held'], { source: b, destination: a, amountOut: 30n });
    const withHeld = await poolCommitments(ctx.db);
    assert.equal(withHeld.owed.get(a), 20n, 'a held order waits on an operator: counted in held, not also in owed');
    assert.equal(withHeld.held.get(a), 30n, 'a held order is still committed');
    await ctx.db.query(`UPDATE orders SET status = 'frozen' WHERE destination_asset_id = $1 AND status = 'held'`, [a]);

    // Sending in two parts: owed until each part is live; a dead part is owed again.
    const sending = await orderIn(['deposit_detected', 'deposit_confirmed', 'sending'], { source: b, destination: a, amountOut: 1_000n });
    assert.deepEqual(await reserved(), { a: 1_120n, b: 0n }, 'sending, nothing recorded');
    const part0 = (await chainTx(sending, 'payout', a, 600n, 0))!;
    const part1 = (await chainTx(sending, 'payout', a, 400n, 1))!;
    assert.deepEqual(await owedOnly(), { a: 120n, b: 0n }, 'both parts pending: owed no more');
    assert.deepEqual(await reserved(), { a: 1_120n, b: 0n }, 'both parts pending: the pending outflows count them');
    await setStatus(part0, 'confirmed');
    assert.deepEqual(await reserved(), { a: 520n, b: 0n }, 'a landed part is in the balances now');
    await setStatus(part1, 'expired');
    assert.deepEqual(await reserved(), { a: 520n, b: 0n }, 'a dead part awaiting its replacement: still committed');
    await chainTx(sending, 'payout', a, 400n, 1);
    assert.deepEqual(await owedOnly(), { a: 120n, b: 0n }, 'replacement recorded: pending, not owed');
    assert.deepEqual(await reserved(), { a: 520n, b: 0n });

    // Refunding: the deposit less the network fee, in the source asset; late refunds are not the order's.
    const refunding = await orderIn(['deposit_detected', 'deposit_confirmed', 'refunding'], { source: b, destination: a, amountOut: 50n, deposit: 10_000n, networkFee: 300n });
    assert.deepEqual(await owedOnly(), { a: 120n, b: 9_700n });
    const late = (await chainTx(refunding, 'refund', b, 5n, 7, { late: true }))!;
    assert.deepEqual(await owedOnly(), { a: 120n, b: 9_700n }, 'a late refund does not pay the order');
    await setStatus(late, 'confirmed');
    const refund = (await chainTx(refunding, 'refund', b, 9_700n, 0))!;
    assert.deepEqual(await owedOnly(), { a: 120n, b: 0n });
    assert.deepEqual(await reserved(), { a: 520n, b: 9_700n }, 'pending now');
    await setStatus(refund, 'failed');
    assert.deepEqual(await reserved(), { a: 520n, b: 9_700n }, 'a refund that landed and failed: owed again');

    // Final orders owe nothing.
    await moveOrder(ctx.db, refunding, 'refunding', 'failed', { failureReason: 'test' });
    await moveOrder(ctx.db, sending, 'sending', 'completed');
    assert.deepEqual(await owedOnly(), { a: 120n, b: 0n });

    // Late funds (after the order ended): owed from their landed sweep until the refund is recorded, and
    // again while a dead refund part awaits its replacement.
    const ended = await orderIn(['deposit_detected', 'deposit_confirmed', 'sending', 'completed'], { source: b, destination: a, amountOut: 10n, networkFee: 300n });
    const sweep = (await insertChainTx(ctx.db, {
      kind: 'sweep',
      orderId: null,
      assetId: b,
      amount: 4_000n,
      source: 'deposit',
      destination: `pool-${b}` as Address,
      signature: randomBytes(32).toString('hex'),
      wire: 'AA==',
      lastValidBlockHeight: 100n,
      meta: { items: [{ orderId: ended, depositAccount: 'x', amount: '4000', late: true }] },
    }))!;
    // Owed from the moment the sweep is recorded: once it lands the funds are in the pools' balances, maybe
    // before the worker settles its record.
    assert.deepEqual(await owedOnly(), { a: 120n, b: 3_700n }, 'sweeping: owed back, less the network fee');
    await setStatus(sweep, 'confirmed');
    assert.deepEqual(await owedOnly(), { a: 120n, b: 3_700n }, 'swept: owed back, less the network fee');
    await ctx.db.query(`UPDATE chain_txs SET meta = meta || '{"lateRefunded": true}'::jsonb WHERE id = $1`, [sweep]);
    const lateRefund = (await chainTx(ended, 'refund', b, 3_700n, 0, { late: true, lateOf: 's' }))!;
    assert.deepEqual(await owedOnly(), { a: 120n, b: 0n }, 'refund recorded: pending, not owed');
    await setStatus(lateRefund, 'expired');
    assert.deepEqual(await owedOnly(), { a: 120n, b: 3_700n }, 'its transaction died: owed until replaced');
    await chainTx(ended, 'refund', b, 3_700n, 0, { late: true, lateOf: 's' });
    assert.deepEqual(await owedOnly(), { a: 120n, b: 0n }, 'replaced');
  });

  it('holds an unfunded order only within its hold window and until it expires, per account; counts open ones per account', async () => {
    const a = `a${randomBytes(4).toString('hex')}`;
    const one = await createTestAccount(ctx.db);
    const two = await createTestAccount(ctx.db);
    const other = `b${randomBytes(4).toString('hex')}`;
    const place = async (acc: string, amountOut: bigint, createdSecondsAgo: number, expiresInSeconds: number, asset = a) => {
      const order = newOrder(acc, { sourceAssetId: asset, destinationAssetId: asset, amountOut });
      const id = ((await insertOrder(ctx.db, order, { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string }).id;
      await ctx.db.query(`UPDATE orders SET created_at = now() - make_interval(secs => $2), expiration = now() + make_interval(secs => $3) WHERE id = $1`, [id, createdSecondsAgo, expiresInSeconds]);
      return id;
    };
    await place(one, 100n, 10, 600);
    await place(one, 200n, 10, 600);
    await place(one, 400n, 300, 600); // past a 120 s hold window: open, but holds nothing
    await place(one, 800n, 10, -1); // expired (not yet marked): neither held nor open
    await place(two, 7n, 10, 600);
    // Another asset, past its hold window, expiring first: counted open (across assets), holding nothing.
    await place(one, 50n, 300, 550, other);
    const funded = await place(two, 1_000n, 10, 600);
    assert.ok(await moveOrder(ctx.db, funded, 'awaiting_deposit', 'deposit_detected'));
    const c = await unfundedCommitments(ctx.db, 120);
    assert.deepEqual(c.reserved.get(a), new Map([[one, 300n], [two, 7n]]));
    assert.equal((await poolCommitments(ctx.db)).owed.get(a), 1_000n, 'a funded order is owed in full');
    assert.equal(c.reserved.get(other), undefined, 'open orders past their hold window hold nothing');
    assert.equal(c.open.get(one)?.count, 4, 'open orders counted across assets');
    assert.equal(c.open.get(two)?.count, 1, 'a funded order frees its slot');
    const first = c.open.get(one)!.firstExpiration.getTime();
    assert.ok(first > Date.now() + 500_000 && first < Date.now() + 580_000, 'the first expiry of the open ones, whichever asset');
  });
});
