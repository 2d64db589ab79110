/**
 * Issue 54: a class release is counted where its payouts landed, once nothing of it is in flight, by the
 * adversary's burst rule; only its own class, a member held by screening left out until it is final, and a
 * final member whose payout never landed counted as 0 (no set shown).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertOrder, type NewOrder } from '../../src/store/orders-store.ts';
import { countLandedReleases } from '../../src/store/settlement/count-landed-releases.ts';
import { unreceiptedOrders } from '../../src/store/receipts/unreceipted-orders.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import { moveOrder } from '../support/move-order.ts';

const SPAN = 53;

forEachEngine('counting a class release where it landed', (ctx) => {
  const twenty = { amountIn: 20_000_000n, amountOut: 19_900_000n, quote: { quoteId: 'q_twenty', privacy: { standard: true } } };
  const thirty = { amountIn: 30_000_000n, amountOut: 29_900_000n, quote: { quoteId: 'q_thirty', privacy: { standard: true } } };

  async function released(acc: string, o: Partial<NewOrder>, at: Date): Promise<string> {
    const res = await insertOrder(ctx.db, newOrder(acc, o), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} });
    const id = (res as { id: string }).id;
    assert.ok(await moveOrder(ctx.db, id, 'awaiting_deposit', 'deposit_detected'));
    assert.ok(await moveOrder(ctx.db, id, 'deposit_detected', 'deposit_confirmed', { deposit: { signature: 's', amount: '1', confirmedAt: new Date().toISOString() } }));
    // A release stamps now(), microseconds on PostgreSQL: more than a JavaScript Date read back keeps.
    await ctx.db.query(`UPDATE orders SET class_released_at = $2::timestamptz + interval '456 microseconds', class_release_size = 9 WHERE id = $1`, [id, at]);
    return id;
  }
  /** A payout transaction of the order: pending, or confirmed in `slot`. */
  async function payout(id: string, slot: number | null): Promise<string> {
    const { rows } = await ctx.db.query<{ id: string }>(
      `INSERT INTO chain_txs (kind, order_id, asset_id, amount, source, destination, signature, wire, last_valid_block_height, status, landed_slot, created_at, updated_at)
       VALUES ('payout', $1, 'usdc', 1, 'pool', 'dest', $2, 'w', 1, $3, $4, now(), now()) RETURNING id`,
      [id, `sig-${Math.random()}`, slot === null ? 'pending' : 'confirmed', slot],
    );
    return String(rows[0]!.id);
  }
  const sizes = async (ids: string[]) => {
    const { rows } = await ctx.db.query<{ id: string | number; size: number | null }>('SELECT id, class_landed_size AS size FROM orders WHERE id = ANY($1)', [ids]);
    const by = new Map(rows.map((r) => [String(r.id), r.size]));
    return ids.map((id) => by.get(id) ?? null);
  };

  it('waits for the release to land, then gives each member the burst its payout landed in', async () => {
    const acc = await createTestAccount(ctx.db);
    const at = new Date(Date.now() - 60_000);
    const [a, b, c, d] = [await released(acc, twenty, at), await released(acc, twenty, at), await released(acc, twenty, at), await released(acc, twenty, at)];
    // Another class released in the same statement: never counted with this one.
    const e = await released(acc, thirty, at);
    for (const id of [a, b, c, e]) assert.ok(await moveOrder(ctx.db, id, 'deposit_confirmed', 'sending'));
    await payout(a, 100);
    await payout(b, 100 + SPAN);
    const cTx = await payout(c, null);
    await payout(e, 110);
    for (const id of [a, b, e]) assert.ok(await moveOrder(ctx.db, id, 'sending', 'completed'));
    assert.ok(await moveOrder(ctx.db, d, 'deposit_confirmed', 'held'));

    assert.equal(await countLandedReleases(ctx.db, SPAN), 1, 'only the other class: c is still pending');
    assert.deepEqual(await sizes([a, b, c, d, e]), [null, null, null, null, 1]);
    assert.ok(!(await unreceiptedOrders(ctx.db, 50)).some((o) => o.id === a || o.id === b), 'no receipt before its release is counted');

    // c lands past the span: a burst of its own; d, held by screening, is left out.
    await ctx.db.query(`UPDATE chain_txs SET status = 'confirmed', landed_slot = $2 WHERE id = $1`, [cTx, 100 + 2 * SPAN + 1]);
    assert.equal(await countLandedReleases(ctx.db, SPAN), 3);
    assert.deepEqual(await sizes([a, b, c, d]), [2, 2, 1, null]);
    assert.ok((await unreceiptedOrders(ctx.db, 50)).some((o) => o.id === a), 'counted: its receipt can be signed');
    assert.equal(await countLandedReleases(ctx.db, SPAN), 0, 'nothing left to count: one indexed read');

    // d is refunded: final without a payout, counted 0 (the status record shows no set); the others stand.
    assert.ok(await moveOrder(ctx.db, d, 'held', 'refunding'));
    assert.ok(await moveOrder(ctx.db, d, 'refunding', 'refunded'));
    assert.ok((await countLandedReleases(ctx.db, SPAN)) >= 1);
    assert.deepEqual(await sizes([a, b, c, d]), [2, 2, 1, 0]);
  });

  it("counts the class's other payouts landed in the burst, whichever release sent them: an outside reader cannot tell releases apart", async () => {
    const acc = await createTestAccount(ctx.db);
    const first = new Date(Date.now() - 90_000);
    const second = new Date(Date.now() - 60_000);
    const [a, b] = [await released(acc, twenty, first), await released(acc, twenty, first)];
    const c = await released(acc, twenty, second);
    // A member of the class paid at its budget, never released with others (class_released_at stays null).
    const lone = await released(acc, twenty, first);
    await ctx.db.query('UPDATE orders SET class_released_at = NULL, class_release_size = NULL WHERE id = $1', [lone]);
    // Far beyond the burst (more than a span after the last): another burst, not company.
    const far = await released(acc, twenty, second);
    for (const id of [a, b, c, lone, far]) assert.ok(await moveOrder(ctx.db, id, 'deposit_confirmed', 'sending'));
    await payout(a, 1_000);
    await payout(b, 1_000 + SPAN);
    await payout(c, 1_000 + SPAN + 10);
    await payout(lone, 1_000 - 20);
    await payout(far, 1_000 + 3 * SPAN + 11);
    await countLandedReleases(ctx.db, SPAN);
    assert.deepEqual(await sizes([a, b, c, far]), [4, 4, 4, 1], 'a, b, c and the lone payout land as one burst on the chain; far lands alone');
  });
});

