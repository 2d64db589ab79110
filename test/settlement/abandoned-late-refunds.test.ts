/**
 * A late refund whose last attempt died more than 7 days ago is no longer retried (one failing for good
 * would cost fees forever): the operator is told, once per process, so the sender can be refunded by hand.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { loadConfig } from '../../src/config/config.ts';
import { insertOrder } from '../../src/store/orders-store.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { Treasury } from '../../src/treasury/treasury.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { SettlementWorker } from '../../src/settlement/runner.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { processFaultPoints } from '../../src/support/fault-points.ts';

forEachEngine('abandoned late refunds', (ctx) => {
  it('a late refund dead for 7 days is reported once; one replaced since, or dead for less, is not', async () => {
    const acc = await createTestAccount(ctx.db);
    // An order not final: the late pass reads no deposit accounts from the chain (none answers here).
    const order = newOrder(acc);
    const orderId = ((await insertOrder(ctx.db, order, { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string }).id;
    const refund = async (lateOf: string, status: string, daysAgo: number) => {
      const id = (await insertChainTx(ctx.db, {
        kind: 'refund',
        orderId,
        assetId: 'usdc',
        amount: 7_000n,
        source: 'pool',
        destination: order.sender,
        signature: randomBytes(32).toString('hex'),
        wire: 'AA==',
        lastValidBlockHeight: 100n,
        meta: { late: true, part: 0, lateOf },
      }))!;
      await ctx.db.query(`UPDATE chain_txs SET status = $2, created_at = now() - make_interval(secs => $3) WHERE id = $1`, [id, status, daysAgo * 86_400]);
      return id;
    };
    await refund('abandoned', 'expired', 7.2);
    await refund('replaced', 'failed', 7.3);
    await refund('replaced', 'pending', 0.1); // its replacement, still live
    await refund('recent', 'expired', 2); // still retried (not here: no pool can be read)

    const logged: string[] = [];
    const config = loadConfig({ DATA_DIR: '/nonexistent', TREASURY_SEED: randomBytes(32).toString('hex') });
    const chain = new SolanaChain('http://127.0.0.1:9', systemClock, config.localnetSlotMs, 500);
    const treasury = await Treasury.load(new TreasuryKeys(new Uint8Array(randomBytes(32))), config.assets);
    const worker = new SettlementWorker(config, ctx.db, chain, treasury, { clock: systemClock, random: systemRandom, faults: processFaultPoints(), sweepIntervalMs: 3_600_000, log: (o, m) => logged.push(`${m} ${JSON.stringify(o)}`) });
    const pass = () => worker.lateDepositTick().catch(() => 0); // the recent part's replacement needs the chain
    await pass();
    await pass();
    const alerts = logged.filter((l) => l.startsWith('ALERT: a late refund failed for 7 days'));
    assert.equal(alerts.length, 1, logged.join('\n'));
    assert.match(alerts[0]!, /"part":"late:abandoned:0"/);
    assert.match(alerts[0]!, new RegExp(`"trackingId":"${order.trackingId}"`));
    assert.match(alerts[0]!, /"amount":"7000"/);
  });
});
