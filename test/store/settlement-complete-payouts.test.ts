/** completePayouts (src/store/settlement/complete-payouts.ts): `sending → completed` for many orders at once. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { claimOrder } from '../../src/store/settlement/claim-order.ts';
import { completePayouts } from '../../src/store/settlement/complete-payouts.ts';
import { ledgerBalances } from '../../src/store/settlement/ledger-balances.ts';
import type { Movement } from '../../src/store/settlement/movements.ts';
import { forEachEngine } from '../support/databases.ts';
import { historyOf, orderIn, orderRow } from '../support/settlement-fixtures.ts';

forEachEngine('completePayouts', (ctx) => {
  it('completes sending orders nobody holds, with history and fee movement; leaves held and other orders', async () => {
    const free = await orderIn(ctx.db, 'sending');
    const held = await orderIn(ctx.db, 'sending');
    const refunding = await orderIn(ctx.db, 'refunding');
    await claimOrder(ctx.db, held.id, 'w2', 30);
    const fee = (id: string): Movement => ({ movement: `fees:test-${id}`, kind: 'fee_income', legs: [{ account: `income:test-${id}`, assetId: 'usdc', amount: -5n }, { account: 'custody:retained', assetId: 'usdc', amount: 5n }], orderId: id });
    const payouts = [{ signature: 'sig', amount: '990000', confirmedAt: new Date().toISOString() }];
    const done = await completePayouts(ctx.db, [free, held, refunding].map(({ id }) => ({ id, payouts, movement: fee(id) })));
    assert.deepEqual([...done], [free.id]);
    assert.equal((await orderRow(ctx.db, free.id)).status, 'completed');
    assert.equal((await historyOf(ctx.db, free.id)).at(-1), 'completed');
    assert.equal((await orderRow(ctx.db, held.id)).status, 'sending');
    assert.equal((await orderRow(ctx.db, refunding.id)).status, 'refunding');
    assert.equal((await ledgerBalances(ctx.db, `income:test-${free.id}`)).get(`income:test-${free.id}|usdc`), -5n);
    assert.equal((await ledgerBalances(ctx.db, `income:test-${held.id}`)).size, 0, 'no fee booked for what did not move');
  });
});
