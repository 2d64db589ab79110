/**
 * docs/operations.md "Restore": the store goes back in time and Hush never pays what the chain shows as paid.
 * Three drills, each on PGlite and on PostgreSQL (there with pg_dump and pg_restore, as the runbook says): a backup taken while orders waited for their class (held),
 * one taken while orders awaited their deposits, and one with orders created after it; and the store deleted. Every check is from the
 * outside: what each recipient holds on chain, what the partner API says, what /readyz says.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { associatedTokenAddress } from '../../src/domain/associated-token-address.ts';
import { MINTS, TOKEN_PROGRAM } from '../../sim/chain-users.ts';
import { backupStore, restoreStore, wipeStore, type StoreBackup } from '../../sim/store-backups.ts';
import { expectOk } from '../support/api-responses.ts';
import { POSTGRES_URL, postgresSkipReason } from '../support/databases.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { placeUsdc, usdcSender, type SimOrder } from '../support/sim-privacy.ts';
import { cleanReconcile } from '../support/sim-screening.ts';
import { recoveredPartner } from '../support/recovered-partner.ts';
import { pgDump, pgToolsSkipReason } from '../support/operator-backups.ts';

const pgTools = await pgToolsSkipReason();

const ENV = { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_MAX_DELAY_S: '20', HUSH_PRIVACY_MAX_WAIT_S: '60' };

const held = (h: SimHush, o: SimOrder) => h.drive(h.chain.tokens(associatedTokenAddress(o.recipient, MINTS.usdc as Address, TOKEN_PROGRAM)));

async function depositAll(h: SimHush, orders: SimOrder[]): Promise<void> {
  for (const o of orders) await h.deposit(o.order, o.sender);
}

async function statusOf(acct: SimAccount, o: SimOrder): Promise<any> {
  return expectOk(await acct.client.status(o.trackingId)).order;
}

/** Every order completed, each recipient holding exactly its amountOut on chain, and stays so for `quietMs` more. */
async function paidOnceAndFinal(h: SimHush, acct: SimAccount, orders: SimOrder[], payoutOf: Map<string, string>, quietMs = 120_000): Promise<void> {
  for (const o of orders) await h.waitForOrder(acct.client, o.trackingId, ['completed'], 300_000);
  await h.advance(quietMs);
  for (const o of orders) {
    assert.equal(await held(h, o), o.amountOut, `${o.trackingId}: the recipient was paid once (on chain)`);
    const rec = await statusOf(acct, o);
    assert.equal(rec.status, 'completed');
    assert.deepEqual(rec.payouts.map((p: { signature: string }) => p.signature), [payoutOf.get(o.trackingId)], `${o.trackingId}: its payout is the one the chain shows`);
  }
  await cleanReconcile(h, 60_000);
}

/**
 * A backup as an operator takes it. PostgreSQL: pg_dump while Hush runs, pg_restore with it stopped (the runbook's
 * own commands). PGlite, in memory here: every table's rows (sim/store-backups.ts); copying a stopped DATA_DIR is
 * test/store/data-dir-copy.test.ts.
 */
async function takeBackup(h: SimHush, engine: 'pglite' | 'postgres'): Promise<{ restore(db: SimHush['db']): Promise<void> }> {
  if (engine === 'postgres') {
    const dump = await h.drive(h.operatorTool(() => pgDump(POSTGRES_URL, h.schema!)));
    return { restore: () => h.operatorTool(() => dump.restore()).finally(() => dump.discard()) };
  }
  const rows: StoreBackup = await h.drive(backupStore(h.db));
  return { restore: (db) => restoreStore(db, rows) };
}

async function payouts(acct: SimAccount, orders: SimOrder[]): Promise<Map<string, string>> {
  const out = new Map<string, string>();
  for (const o of orders) out.set(o.trackingId, (await statusOf(acct, o)).payouts[0].signature);
  return out;
}

for (const engine of ['pglite', 'postgres'] as const) {
  describe(`restore drills (${engine})`, { skip: engine === 'postgres' ? (postgresSkipReason ?? pgTools) : undefined }, () => {
    let h: SimHush;
    let acct: SimAccount;
    before(async () => {
      h = await startSimHush({ seed: engine === 'pglite' ? 85 : 86, env: ENV, databaseUrl: engine === 'postgres' ? POSTGRES_URL : undefined });
      acct = await h.createAccount({ feeCapBps: 0, feeRecipients: 0 });
    });
    after(() => closeSim(h));

    test('a backup taken while orders waited for their class: restored after they were paid, none is paid again', async () => {
      const senders = [await usdcSender(h), await usdcSender(h), await usdcSender(h)];
      const orders: SimOrder[] = [];
      for (const sender of senders) orders.push(await placeUsdc(h, acct, '1000000', { privacy: { minAnonymitySet: 5 }, sender }));
      await depositAll(h, orders);
      for (const o of orders) await h.waitForOrder(acct.client, o.trackingId, ['deposit_confirmed'], 60_000);
      const backup = await takeBackup(h, engine);
      for (const o of orders) await h.waitForOrder(acct.client, o.trackingId, ['completed'], 300_000);
      const paid = await payouts(acct, orders);
      await h.downWhile((db) => backup.restore(db));
      for (const o of orders) assert.notEqual((await statusOf(acct, o)).status, 'awaiting_deposit');
      await paidOnceAndFinal(h, acct, orders, paid);
    });

    test('a backup taken while orders awaited their deposits: restored after they were paid and swept, none is paid again', async () => {
      const senders = [await usdcSender(h), await usdcSender(h)];
      const orders: SimOrder[] = [];
      for (const sender of senders) orders.push(await placeUsdc(h, acct, '1000000', { sender }));
      const backup = await takeBackup(h, engine);
      await depositAll(h, orders);
      for (const o of orders) await h.waitForOrder(acct.client, o.trackingId, ['completed'], 300_000);
      const paid = await payouts(acct, orders);
      // Long enough for the sweep: the deposit accounts are closed when the store goes back.
      await h.advance(180_000);
      await h.downWhile((db) => backup.restore(db));
      await paidOnceAndFinal(h, acct, orders, paid);
    });

    test('a backup with orders created after it: they are rebuilt from the chain, final and paid once; nothing pauses', async () => {
      const backup = await takeBackup(h, engine);
      const orders = [await placeUsdc(h, acct, '1000000'), await placeUsdc(h, acct, '2000000')];
      await depositAll(h, orders);
      for (const o of orders) await h.waitForOrder(acct.client, o.trackingId, ['completed'], 300_000);
      const paid = await payouts(acct, orders);
      await h.downWhile((db) => backup.restore(db));
      // The partner polling a tracking id from the lost window gets its true state, not NOT_FOUND.
      await paidOnceAndFinal(h, acct, orders, paid);
      for (const o of orders) {
        const rec = await statusOf(acct, o);
        assert.equal(BigInt(rec.amountOut), o.amountOut);
      }
      expectOk(await h.ops.get('/readyz'));
      assert.equal(expectOk(await h.ops.get('/admin/v1/recover')).paused, false);
    });

    test('the store deleted: started again with the same seed, paid orders come back from the chain and nothing is paid twice', async () => {
      const orders = [await placeUsdc(h, acct, '1000000')];
      await depositAll(h, orders);
      for (const o of orders) await h.waitForOrder(acct.client, o.trackingId, ['completed'], 300_000);
      const paid = await payouts(acct, orders);
      await h.downWhile((db) => wipeStore(db));
      await paidOnceAndFinal(h, await recoveredPartner(h, acct), orders, paid);
    });
  });
}
