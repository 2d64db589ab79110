/**
 * The class release reads the time from the clock it is given (src/support/clock.ts): a payout whose
 * partner asked for a set of three, alone in its class and with no traffic measured, waits out its own
 * hold and goes at its end, and the test's clock, not the wall clock, says when that is.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { releasePolicy } from '../../src/config/privacy-settings.ts';
import { memberHoldMs } from '../../src/domain/class-release.ts';
import type { ClassTraffic } from '../../src/services/class-traffic.ts';
import { ClassReleaseLoop } from '../../src/settlement/class-release-loop.ts';
import { insertOrder } from '../../src/store/orders-store.ts';
import { forEachEngine } from '../support/databases.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { seededRandom } from '../../src/support/random.ts';
import { moveOrder } from '../support/move-order.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';

/** Nothing measured yet (a fresh Hush): no class has a rate. */
const NO_TRAFFIC: Pick<ClassTraffic, 'observedSeconds' | 'knowFirstOrder' | 'toArrivals' | 'windowS' | 'bucketMs'> = {
  observedSeconds: () => undefined,
  knowFirstOrder: async () => {},
  toArrivals: () => ({ arrivals: 0, exposureMs: 1, dispersion: 1 }),
  windowS: 3600,
  bucketMs: 10_000,
};

forEachEngine('class release on an injected clock', (ctx) => {
  it('a payout waiting for its set goes when the test\'s clock reaches the end of its hold, not before', async () => {
    const config = loadConfig({});
    const choice = { minAnonymitySet: 3 };
    const holdMs = memberHoldMs(choice, releasePolicy(config));
    const acc = await createTestAccount(ctx.db);
    const res = await insertOrder(ctx.db, newOrder(acc, { amountIn: 20_000_000n, amountOut: 19_900_000n, quote: { quoteId: 'q_set3', privacy: { standard: true, requested: choice } } }), { key: 'k-set3', responseStatus: 200, responseBody: {} });
    const id = (res as { id: string }).id;
    const confirmedAt = Date.now();
    assert.ok(await moveOrder(ctx.db, id, 'awaiting_deposit', 'deposit_detected'));
    assert.ok(await moveOrder(ctx.db, id, 'deposit_detected', 'deposit_confirmed', { deposit: { signature: 's', amount: '20000000', confirmedAt: new Date(confirmedAt).toISOString() } }));
    // Due at the end of its budget (well past the hold): only a release brings it forward.
    const due = new Date(confirmedAt + holdMs + 600_000);
    await ctx.db.query('UPDATE orders SET payout_due_at = $2, next_run_at = $2 WHERE id = $1', [id, due]);
    const size = async () => (await ctx.db.query<{ class_release_size: number | null }>('SELECT class_release_size FROM orders WHERE id = $1', [id])).rows[0]!.class_release_size;

    const clock = new ManualClock(confirmedAt);
    const loop = new ClassReleaseLoop(config, ctx.db, NO_TRAFFIC, () => {}, clock, seededRandom(1));
    assert.equal(await loop.pass(), 0, 'at its confirmation: held for the set it asked for');
    clock.set(confirmedAt + holdMs - 1);
    assert.equal(await loop.pass(), 0, 'a millisecond before its hold ends: still held');
    assert.equal(await size(), null);
    clock.advance(1);
    assert.equal(await loop.pass(), 1, 'its hold over by the test\'s clock: released alone');
    assert.equal(await size(), 1);
    assert.ok(holdMs > 10_000, `the hold (${holdMs} ms) is far longer than this test took on the wall clock`);
  });
});
