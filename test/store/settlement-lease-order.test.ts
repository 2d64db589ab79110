/** leaseOrder (src/store/settlement/lease-order.ts): renews this worker's lease while the status stands. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { claimOrder } from '../../src/store/settlement/claim-order.ts';
import { leaseOrder } from '../../src/store/settlement/lease-order.ts';
import { forEachEngine } from '../support/databases.ts';
import { orderIn } from '../support/settlement-fixtures.ts';

forEachEngine('leaseOrder', (ctx) => {
  it('holds an order in the given status for its holder or when free, never for another worker', async () => {
    const { id } = await orderIn(ctx.db, 'refunding');
    assert.equal(await leaseOrder(ctx.db, id, 'sending', 'w1', 30), false, 'another status');
    assert.equal(await leaseOrder(ctx.db, id, 'refunding', 'w1', 30), true, 'free');
    assert.equal(await leaseOrder(ctx.db, id, 'refunding', 'w1', 30), true, 'its holder');
    assert.equal(await leaseOrder(ctx.db, id, 'refunding', 'w2', 30), false, "another worker's");
    assert.equal(await claimOrder(ctx.db, id, 'w2', 30), null);
  });
});
