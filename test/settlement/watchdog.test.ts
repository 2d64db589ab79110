/**
 * The watchdog fails orders nothing has moved for its window, but not in a starting worker's first
 * min(window, 10 min): orders that waited out an outage are the catch-up's to pay, not the watchdog's to fail.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { loadConfig } from '../../src/config/config.ts';
import { getOrderById, insertOrder } from '../../src/store/orders-store.ts';
import { Treasury } from '../../src/treasury/treasury.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { SettlementWorker } from '../../src/settlement/runner.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import { moveOrder } from '../support/move-order.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { processFaultPoints } from '../../src/support/fault-points.ts';

const WINDOW_MS = 3000;

forEachEngine('watchdog start grace', (ctx) => {
  it('a worker that just started leaves a stuck order alone until the window has passed, then fails it', async () => {
    const acc = await createTestAccount(ctx.db);
    const res = await insertOrder(ctx.db, newOrder(acc), { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} });
    const id = (res as { id: string }).id;
    assert.ok(await moveOrder(ctx.db, id, 'awaiting_deposit', 'deposit_detected'));
    assert.ok(await moveOrder(ctx.db, id, 'deposit_detected', 'deposit_confirmed'));
    // Untouched for two hours, and not due for the order loop (it is the watchdog's alone here).
    await ctx.db.query(`UPDATE orders SET updated_at = now() - interval '2 hours', next_run_at = now() + interval '1 day' WHERE id = $1`, [id]);

    const config = loadConfig({ DATA_DIR: '/nonexistent', TREASURY_SEED: randomBytes(32).toString('hex') });
    // No chain answers here: the watchdog needs only the store.
    const chain = new SolanaChain('http://127.0.0.1:9', systemClock, config.localnetSlotMs, 500);
    const treasury = await Treasury.load(new TreasuryKeys(new Uint8Array(randomBytes(32))), config.assets);
    const worker = new SettlementWorker(config, ctx.db, chain, treasury, { clock: systemClock, random: systemRandom, faults: processFaultPoints(), stuckAfterMs: WINDOW_MS, sweepIntervalMs: 3_600_000 });
    worker.start();
    try {
      const started = Date.now();
      await worker.maintenanceTick();
      assert.ok(Date.now() - started < WINDOW_MS, 'the first tick ran inside the grace (else this test proves nothing)');
      assert.equal((await getOrderById(ctx.db, id))!.status, 'deposit_confirmed', 'inside the grace: untouched');
      await new Promise((r) => setTimeout(r, WINDOW_MS - (Date.now() - started) + 200));
      await worker.maintenanceTick();
      const after = (await getOrderById(ctx.db, id))!;
      assert.equal(after.status, 'failed', 'after the grace: failed');
      assert.equal(after.failureReason, 'stuck_in_deposit_confirmed');
    } finally {
      await worker.stop();
    }
  });
});
