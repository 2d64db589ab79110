/** recordMovement(s) and ledgerBalances (src/store/settlement): the double-entry ledger. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ledgerBalances } from '../../src/store/settlement/ledger-balances.ts';
import { recordMovement, recordMovements } from '../../src/store/settlement/record-movements.ts';
import { forEachEngine } from '../support/databases.ts';

forEachEngine('ledger movements', (ctx) => {
  it('records balanced movements once, merges legs per account, refuses unbalanced ones', async () => {
    const t = `t${Math.random().toString(36).slice(2)}`;
    const legs = [
      { account: `${t}:a`, assetId: 'usdc', amount: -10n },
      { account: `${t}:b`, assetId: 'usdc', amount: 4n },
      { account: `${t}:b`, assetId: 'usdc', amount: 6n },
    ];
    await recordMovement(ctx.db, `${t}:m1`, 'deposit', legs);
    await recordMovement(ctx.db, `${t}:m1`, 'deposit', legs); // replay after a crash: once
    await recordMovements(ctx.db, [{ movement: `${t}:m2`, kind: 'fee_income', legs: [{ account: `${t}:a`, assetId: 'sol', amount: 1n }, { account: `${t}:c`, assetId: 'sol', amount: -1n }] }]);
    assert.deepEqual(await ledgerBalances(ctx.db, `${t}:`), new Map([[`${t}:a|usdc`, -10n], [`${t}:b|usdc`, 10n], [`${t}:a|sol`, 1n], [`${t}:c|sol`, -1n]]));
    await assert.rejects(recordMovement(ctx.db, `${t}:m3`, 'deposit', [{ account: `${t}:a`, assetId: 'usdc', amount: 1n }]), /unbalanced/);
    await recordMovements(ctx.db, []);
  });
});
