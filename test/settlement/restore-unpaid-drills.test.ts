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
import { cleanReconcile, RiskStandIn, sweep } from '../support/sim-screening.ts';
import { recoveredPartner } from '../support/recovered-partner.ts';
import { randomBytes } from 'node:crypto';
import { buildDepositTransaction } from '../../src/chain/deposit-transaction.ts';
import { addressBytes } from '../../src/domain/address-codec.ts';
import { getOrderByTrackingId } from '../../src/store/orders-store.ts';
import { readDepositRecordKey } from '../../src/store/treasury-wallets-store.ts';
import { sealDepositRecord } from '../../src/treasury/deposit-record-box.ts';

const ENV = { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_MAX_DELAY_S: '20', HUSH_PRIVACY_MAX_WAIT_S: '60', HUSH_SCREENING_CACHE_TTL_S: '0' };

const held = (h: SimHush, o: SimOrder) => h.drive(h.chain.tokens(associatedTokenAddress(o.recipient, MINTS.usdc as Address, TOKEN_PROGRAM)));

/**
 * An order deposited and kept unpaid: its recipient screens as listed from its quote on (an operator's hold keeps it,
 * its deposit swept like any), and passes again before the store goes back (`clear`).
 */
async function placeAndDeposit(h: SimHush, acct: SimAccount, risk: RiskStandIn, amount: string): Promise<SimOrder> {
  const o = await placeUsdc(h, acct, amount);
  risk.blocked.add(o.recipient);
  await h.deposit(o.order, o.sender);
  await h.waitForOrder(acct.client, o.trackingId, ['held'], 60_000);
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
    let risk: RiskStandIn;
    before(async () => {
      h = await startSimHush({ seed: engine === 'pglite' ? 88 : 89, env: ENV, databaseUrl: engine === 'postgres' ? POSTGRES_URL : undefined });
      risk = new RiskStandIn(h);
      acct = await h.createAccount({ feeCapBps: 0, feeRecipients: 0 });
    });
    after(() => closeSim(h));

    test('a backup before orders that were deposited but not paid: swept or not, each comes back from its deposit and is paid once', async () => {
      const backup: StoreBackup = await h.drive(backupStore(h.db));
      const swept = [await placeAndDeposit(h, acct, risk, '1000000'), await placeAndDeposit(h, acct, risk, '3000000')];
      for (const o of swept) await sweep(h, o.trackingId);
      const unswept = [await placeAndDeposit(h, acct, risk, '2000000')];
      for (const o of [...swept, ...unswept]) assert.equal(await held(h, o), 0n, 'not paid before the store goes back');
      risk.blocked.clear();
      await h.downWhile((db) => restoreStore(db, backup));
      await paidOnce(h, acct, [...swept, ...unswept]);
      assert.equal(expectOk(await h.ops.get('/admin/v1/recover')).paused, false, 'nothing left unexplained');
      await cleanReconcile(h, 120_000);
    });

    test('a backup before an order deposited but neither paid nor swept: nothing of Hush moved on chain since, the identities the store still holds tell', async () => {
      const backup: StoreBackup = await h.drive(backupStore(h.db));
      const orders = [await placeAndDeposit(h, acct, risk, '1000000')];
      risk.blocked.clear();
      await h.downWhile((db) => restoreStore(db, backup));
      await paidOnce(h, acct, orders);
      await cleanReconcile(h, 120_000);
    });

    test('a deposit whose record promises more than it paid (anyone can seal to the public key): rebuilt, refunded to its sender, never paid', async () => {
      const backup: StoreBackup = await h.drive(backupStore(h.db));
      const o = await placeUsdc(h, acct, '1000000');
      risk.blocked.add(o.recipient);
      const stored = (await getOrderByTrackingId(h.db, o.trackingId))!;
      const usdc = h.config.assets.get('usdc')!;
      const forged = sealDepositRecord((await readDepositRecordKey(h.db))!, {
        kind: 'deposit', part: 0, trackingId: o.trackingId, accountId: acct.id, mode: 'exact_in', sourceAssetId: 'usdc', destinationAssetId: 'usdc',
        recipient: addressBytes(o.recipient), amountOut: 50n * o.amountOut,
      }, { bytes: (n: number) => randomBytes(n) } as never);
      const blockhash = await h.drive(h.chain.blockhash());
      const tx = await buildDepositTransaction({
        sender: o.sender.address as Address, depositOwner: stored.depositOwner, mint: usdc.mint, tokenProgram: usdc.tokenProgram, decimals: usdc.decimals, native: false,
        amount: stored.amountIn, blockhash, lastValidBlockHeight: 0n, computeUnitLimit: 40_000, computeUnitPriceMicroLamports: 1000n, memo: forged,
      });
      const before = await h.drive(h.chain.tokens(associatedTokenAddress(o.sender.address as Address, MINTS.usdc as Address, TOKEN_PROGRAM)));
      await h.deposit({ transaction: tx.base64 }, o.sender);
      await h.waitForOrder(acct.client, o.trackingId, ['held'], 60_000);
      risk.blocked.clear();
      await h.downWhile((db) => restoreStore(db, backup));
      const rec = await h.waitForOrder(acct.client, o.trackingId, ['refunded'], 600_000);
      assert.equal(rec.failureReason, 'recovered_terms_unverifiable');
      await h.advance(60_000);
      assert.equal(await held(h, o), 0n, 'the recipient the forged record names is paid nothing');
      const back = await h.drive(h.chain.tokens(associatedTokenAddress(o.sender.address as Address, MINTS.usdc as Address, TOKEN_PROGRAM)));
      assert.ok(back > before - stored.amountIn && back <= before, `the sender has its deposit back, less the network fee (${before} → ${back})`);
    });

    test('the store deleted with swept orders not yet paid: they come back from their deposits and are paid once', async () => {
      const orders = [await placeAndDeposit(h, acct, risk, '1000000')];
      for (const o of orders) await sweep(h, o.trackingId);
      risk.blocked.clear();
      await h.downWhile((db) => wipeStore(db));
      await paidOnce(h, await recoveredPartner(h, acct), orders);
    });
  });
}
