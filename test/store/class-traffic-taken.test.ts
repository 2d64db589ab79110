/**
 * A class's traffic is the deposits taken into it (docs/spec.md §9 "Traffic", issue 71): no sequence of
 * refunded, expired, held, frozen, failed, only-detected, short or over deposits, nor of unfunded orders, moves
 * any quote. Property-based over the store (PGlite, and PostgreSQL when reachable) and the quote's own estimate.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import fc from 'fast-check';
import { loadAssets } from '../../src/config/assets.ts';
import { loadConfig } from '../../src/config/config.ts';
import { releasePolicy } from '../../src/config/privacy-settings.ts';
import { ORDER_STATUSES, STATUS_TRAITS, type OrderStatus } from '../../src/domain/order-state.ts';
import { estimatePrivacy } from '../../src/domain/quote-privacy.ts';
import { ClassTraffic } from '../../src/services/class-traffic.ts';
import type { Queryable } from '../../src/store/db.ts';
import { insertOrder } from '../../src/store/orders-store.ts';
import { forEachEngine } from '../support/databases.ts';
import { readingClock } from '../support/manual-clock.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';

const CLASSES = [
  { mode: 'exact_in' as const, amountIn: 10_000_000n, amountOut: 9_900_000n },
  { mode: 'exact_out' as const, amountIn: 100_200_000n, amountOut: 100_000_000n },
];
const NOT_TAKEN = ORDER_STATUSES.filter((s) => !STATUS_TRAITS[s].classTraffic);
const TAKEN = ORDER_STATUSES.filter((s) => STATUS_TRAITS[s].classTraffic);

/** An order that is no company: a status that takes no deposit (any amount, or none), or a taken status with the wrong amount. */
const junk = fc.record({
  cls: fc.integer({ min: 0, max: CLASSES.length - 1 }),
  agoS: fc.integer({ min: 0, max: 3000 }),
  kind: fc.oneof(
    fc.record({ status: fc.constantFrom(...NOT_TAKEN), delta: fc.constantFrom(-1n, 0n, 1n, null) }),
    fc.record({ status: fc.constantFrom(...TAKEN), delta: fc.constantFrom(-1_000_000n, -1n, 1n, 2_000_000n) }),
  ),
});

async function place(db: Queryable, acc: string, now: number, o: { cls: number; agoS: number; status: OrderStatus; delta: bigint | null }): Promise<string> {
  const c = CLASSES[o.cls]!;
  const res = (await insertOrder(db, newOrder(acc, { createdAt: new Date(now - o.agoS * 1000), mode: c.mode, amountIn: c.amountIn, amountOut: c.amountOut }), {
    key: `k-${o.cls}-${o.agoS}-${Math.random()}`,
    responseStatus: 200,
    responseBody: {},
  })) as { id: string };
  // delta null: never funded (an unfunded order, whatever status it ended in).
  await db.query(`UPDATE orders SET status = $2, deposit = CASE WHEN $3::numeric IS NULL THEN NULL ELSE jsonb_build_object('amount', (amount_in + $3::numeric)::text) END WHERE id = $1`, [
    res.id,
    o.status,
    o.delta === null ? null : o.delta.toString(),
  ]);
  return res.id;
}

forEachEngine('class traffic counts only deposits taken into the class', (ctx) => {
  it('no sequence of refunded, held, expired, short, over or unfunded deposits changes any quote', async () => {
    const { db } = await ctx.fresh();
    const acc = await createTestAccount(db);
    const now = Date.now();
    const config = loadConfig({ DATA_DIR: '/nonexistent-not-opened', SOLANA_RPC_URL: 'http://127.0.0.1:9' });
    const policy = releasePolicy(config);
    // Taken deposits of both classes: a thin one (two) and one seen often enough to be a rate.
    for (const agoS of [40, 900]) await place(db, acc, now, { cls: 0, agoS, status: 'completed', delta: 0n });
    for (let k = 0; k < 12; k++) await place(db, acc, now, { cls: 1, agoS: 60 + k * 170, status: 'completed', delta: 0n });
    const quotes = async (): Promise<unknown[]> => {
      const traffic = new ClassTraffic(db, loadAssets(), readingClock(() => now), 3600, 57, 803);
      await traffic.refresh();
      return CLASSES.map((c) => {
        const classTraffic = traffic.arrivalsOf({ sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: c.mode, pinnedAmount: c.mode === 'exact_in' ? c.amountIn : c.amountOut });
        return [classTraffic?.arrivals, estimatePrivacy({ standard: true, classTraffic, suggestedAmounts: [] }, policy)];
      });
    };
    const before = await quotes();
    assert.ok((before[1] as [number])[0] > 0, 'the measured class has traffic to move');
    await fc.assert(
      fc.asyncProperty(fc.array(junk, { minLength: 1, maxLength: 8 }), async (orders) => {
        const ids: string[] = [];
        try {
          for (const o of orders) ids.push(await place(db, acc, now, { cls: o.cls, agoS: o.agoS, ...o.kind }));
          assert.deepEqual(await quotes(), before);
        } finally {
          // Gone again, history first (it refers to the order), so each run starts from the same store.
          await db.query('DELETE FROM order_history WHERE order_id = ANY($1::bigint[])', [ids]);
          await db.query('DELETE FROM orders WHERE id = ANY($1::bigint[])', [ids]);
        }
      }),
      { numRuns: ctx.engine === 'pglite' ? 25 : 15 },
    );
    // And the same deposit taken does move it: the property is not vacuous.
    await place(db, acc, now, { cls: 1, agoS: 5, status: 'deposit_confirmed', delta: 0n });
    assert.notDeepEqual(await quotes(), before);
  });
});
