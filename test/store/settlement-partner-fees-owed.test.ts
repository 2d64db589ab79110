/** partnerFeesOwed and tryTransactionLock (src/store/settlement): what a partner payout pays, by one worker at a time. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { PARTNER_PAYOUT_LOCK, tryTransactionLock } from '../../src/store/settlement/advisory-locks.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { partnerFeesOwed } from '../../src/store/settlement/partner-fees-owed.ts';
import { recordMovement } from '../../src/store/settlement/record-movements.ts';
import { forEachEngine } from '../support/databases.ts';
import { newTx } from '../support/settlement-fixtures.ts';

forEachEngine('partner fees owed', (ctx) => {
  it('accrued fees less what pending partner payouts cover, per payable account and asset', async () => {
    const db = (await ctx.fresh()).db;
    const payable = 'payable:partner:acc_1:Recipient1';
    await recordMovement(db, 'fees:o1', 'fee_income', [{ account: payable, assetId: 'usdc', amount: -30n }, { account: 'custody:retained', assetId: 'usdc', amount: 30n }]);
    await recordMovement(db, 'fees:o2', 'fee_income', [{ account: payable, assetId: 'usdc', amount: -12n }, { account: 'custody:retained', assetId: 'usdc', amount: 12n }]);
    await insertChainTx(db, newTx({ kind: 'partner_payout', amount: 20n, meta: { payable } }));
    assert.deepEqual(await partnerFeesOwed(db), [{ account: payable, assetId: 'usdc', owed: 22n }]);
  });

  it('the lock is held by one transaction at a time', async (t) => {
    if (ctx.engine === 'pglite') return t.skip('one connection: transactions never overlap');
    const db = (await ctx.fresh({ poolSize: 2 })).db;
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let inner: boolean | undefined;
    let otherSchema: boolean | undefined;
    const other = (await ctx.fresh()).db;
    const first = db.transaction(async (tx) => {
      assert.equal(await tryTransactionLock(tx, PARTNER_PAYOUT_LOCK), true);
      inner = await db.transaction((tx2) => tryTransactionLock(tx2, PARTNER_PAYOUT_LOCK));
      // Advisory locks belong to the whole database: another deployment's schema must not wait on this one.
      otherSchema = await other.transaction((tx3) => tryTransactionLock(tx3, PARTNER_PAYOUT_LOCK));
      release();
    });
    await held;
    await first;
    assert.equal(inner, false);
    assert.equal(otherSchema, true, 'the same job in another schema takes its own lock');
    assert.equal(await db.transaction((tx) => tryTransactionLock(tx, PARTNER_PAYOUT_LOCK, 'some-account')), true, 'another lock');
  });
});
