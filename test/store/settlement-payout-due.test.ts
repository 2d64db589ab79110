/** setPayoutDue and payoutDueAt (src/store/settlement): the privacy delay is drawn once per order. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { payoutDueAt } from '../../src/store/settlement/payout-due-at.ts';
import { setPayoutDue } from '../../src/store/settlement/set-payout-due.ts';
import { forEachEngine } from '../support/databases.ts';
import { orderIn } from '../support/settlement-fixtures.ts';

forEachEngine('payout due time', (ctx) => {
  it('the first draw wins, and is what payoutDueAt reads', async () => {
    const { id } = await orderIn(ctx.db, 'deposit_confirmed');
    assert.equal(await payoutDueAt(ctx.db, id), null);
    const first = new Date(Date.now() + 10_000);
    assert.equal((await setPayoutDue(ctx.db, id, first))!.getTime(), first.getTime());
    assert.equal((await setPayoutDue(ctx.db, id, new Date(Date.now() + 99_000)))!.getTime(), first.getTime());
    assert.equal((await payoutDueAt(ctx.db, id))!.getTime(), first.getTime());
    assert.equal(await setPayoutDue(ctx.db, '999999999', first), null, 'no such order');
  });
});
