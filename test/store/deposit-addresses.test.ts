/**
 * The deposit-address lookup of order creation (no address of an order is another order's deposit address):
 * the same answer whether one order's addresses go as scalar parameters or a batch's as an array, and on
 * PGlite the one-order statement settles on its cached generic plan instead of being planned on every order
 * (issue 56).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { depositAddressesAmong } from '../../src/store/deposit-addresses.ts';
import { insertOrder } from '../../src/store/orders-store.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, fakeAddress, newOrder } from '../support/store-fixtures.ts';

forEachEngine('deposit addresses among', (ctx) => {
  it('finds deposit owners and accounts among one, two, three or many addresses, and nothing else', async () => {
    const acc = await createTestAccount(ctx.db);
    const order = newOrder(acc);
    await insertOrder(ctx.db, order, { key: `k-${order.trackingId}`, responseStatus: 200, responseBody: {} });
    const [owner, account, other, another] = [order.depositOwner, order.depositAccount, fakeAddress(), fakeAddress()];
    const among = async (addresses: string[]) => [...(await depositAddressesAmong(ctx.db, addresses))].sort();
    assert.deepEqual(await among([]), []);
    assert.deepEqual(await among([owner]), [owner]);
    assert.deepEqual(await among([other]), []);
    assert.deepEqual(await among([other, account]), [account]);
    assert.deepEqual(await among([owner, other, account]), [owner, account].sort());
    assert.deepEqual(await among([order.sender, order.recipient, order.feeRecipient!]), [], "an order's own sender, recipient and fee recipient are not deposit addresses");
    assert.deepEqual(await among([other, owner, another, account, fakeAddress()]), [owner, account].sort(), 'a batch (more than one order) as an array');
  });

  it('one order’s lookup is planned once, not on every order (PGlite keeps its statements prepared)', async (t) => {
    if (ctx.engine !== 'pglite') return t.skip('pg sends unnamed statements: PostgreSQL plans each one anyway');
    for (let i = 0; i < 12; i++) await depositAddressesAmong(ctx.db, [fakeAddress(), fakeAddress(), fakeAddress()]);
    const { rows } = await ctx.db.query<{ generic: string; custom: string }>(
      `SELECT generic_plans::text AS generic, custom_plans::text AS custom FROM pg_prepared_statements WHERE statement LIKE 'SELECT a FROM (VALUES ($1::text), ($2::text), ($3::text))%'`,
    );
    assert.equal(rows.length, 1, 'the one-order statement is prepared');
    // PostgreSQL tries five custom plans before it compares them with the generic one.
    assert.ok(Number(rows[0]!.custom) <= 5, `custom plans ${rows[0]!.custom}`);
    assert.ok(Number(rows[0]!.generic) >= 7, `generic plans ${rows[0]!.generic}`);
  });
});
