/**
 * docs/operations.md "Restore" and "a store lost entirely", for orders the store forgot before it paid them: their
 * deposits carry their sealed records (docs/decisions.md "The deposit carries its order's record"), so the chain
 * gives them back and they are paid as promised, once. Orders wait for a class they cannot fill (a long hold) so
 * they are still unpaid when the store goes back: some already swept (found through the sweep in the fee payer's
 * history), some not (found among the deposit identities the restored store still holds). Checked from the outside:
 * each recipient's balance on chain and what the partner API says. On PGlite and on PostgreSQL.
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
import { placeUsdc, type SimOrder } from '../support/sim-privacy.ts';
import { cleanReconcile, sweep } from '../support/sim-screening.ts';

// A class the orders cannot fill holds them up to 15 minutes: long enough to be swept, and restored, unpaid.
const ENV = { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_MAX_DELAY_S: '20', HUSH_PRIVACY_MAX_WAIT_S: '900' };
const HELD = { minAnonymitySet: 40 };

const held = (h: SimHush, o: SimOrder) => h.drive(h.chain.tokens(associatedTokenAddress(o.recipient, MINTS.usdc as Address, TOKEN_PROGRAM)));

async function placeAndDeposit(h: SimHush, acct: SimAccount, amount: string): Promise<SimOrder> {
  const o = await placeUsdc(h, acct, amount, { privacy: HELD });
  await h.deposit(o.order, o.sender);
  await h.waitForOrder(acct.client, o.trackingId, ['deposit_confirmed'], 60_000);
  return o;
}

/** Each order completed with one payout, its recipient holding exactly its amountOut, still so a while later. */
async function paidOnce(h: SimHush, acct: SimAccount, orders: SimOrder[]): Promise<void> {
  for (const o of orders) await h.waitForOrder(acct.client, o.trackingId, ['completed'], 600_000);
  await h.advance(120_000);
  for (const o of orders) {
    assert.equal(await held(h, o), o.amountOut, `${o.trackingId}: its recipient was paid what it was promised, once (on chain)`);
    const rec = expectOk(await acct.client.status(o.trackingId)).order;
    assert.equal(rec.status, 'completed');
    assert.equal(rec.payouts.length, 1);
    assert.equal(BigInt(rec.amountOut), o.amountOut);
  }
}

for (const engine of ['pglite', 'postgres'] as const) {
  describe(`restore drills, orders not yet paid (${engine})`, { skip: engine === 'postgres' ? postgresSkipReason : undefined }, () => {
    let h: SimHush;
    let acct: SimAccount;
    before(async () => {
      h = await startSimHush({ seed: engine === 'pglite' ? 88 : 89, env: ENV, databaseUrl: engine === 'postgres' ? POSTGRES_URL : undefined });
      acct = await h.createAccount({ feeCapBps: 0, feeRecipients: 0 });
    });
    after(() => closeSim(h));

    test('a backup before orders that were deposited but not paid: swept or not, each comes back from its deposit and is paid once', async () => {
      const backup: StoreBackup = await h.drive(backupStore(h.db));
      const swept = [await placeAndDeposit(h, acct, '1000000'), await placeAndDeposit(h, acct, '3000000')];
      for (const o of swept) await sweep(h, o.trackingId);
      const unswept = [await placeAndDeposit(h, acct, '2000000')];
      for (const o of [...swept, ...unswept]) assert.equal(await held(h, o), 0n, 'not paid before the store goes back');
      await h.downWhile((db) => restoreStore(db, backup));
      await paidOnce(h, acct, [...swept, ...unswept]);
      assert.equal(expectOk(await h.ops.get('/admin/v1/recover')).paused, false, 'nothing left unexplained');
      await cleanReconcile(h, 120_000);
    });

    test('the store deleted with swept orders not yet paid: they come back from their deposits and are paid once', async () => {
      const orders = [await placeAndDeposit(h, acct, '1000000')];
      for (const o of orders) await sweep(h, o.trackingId);
      await h.downWhile((db) => wipeStore(db));
      const account = await h.until('the partner account rebuilt', async () => {
        const r = await h.ops.get(`/admin/v1/accounts/${acct.id}`);
        return r.status === 200 ? r.body.account : null;
      }, 120_000, 1000);
      expectOk(await h.ops.request('PATCH', `/admin/v1/accounts/${account.id}`, { body: { status: 'active' } }));
      const key = await h.ops.post(`/admin/v1/accounts/${acct.id}/keys`, null);
      await paidOnce(h, { ...acct, client: h.client(key.body.apiKey) }, orders);
    });
  });
}
