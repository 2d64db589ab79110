/**
 * docs/spec.md §4 address rules, end to end on a simulated Hush (test/support/sim-hush.ts: its API by inject, the
 * store and local chain on the simulated clock): sender, recipient and fee recipient may never be a sysvar, a
 * program, a configured mint (or wrapped SOL) or one of Hush's own addresses (fee payer, pool wallets, deposit
 * owners and accounts of orders). Each is refused 400 INVALID_ADDRESS naming the field, with the reason in
 * details, and changes nothing: no order, no fee recipient registered. (Issue 35, finding 5: these passed as
 * long as they were on the curve.)
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { addFeeRecipient, getAccount } from '../../src/store/accounts-store.ts';
import type { Db } from '../../src/store/db.ts';
import { expectError, expectOk } from '../support/api-responses.ts';
import { orderRequest, quoteRequest, simOrderCount, startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimAccount, SimHush } from '../support/sim-hush.ts';
import { placeOrder } from '../support/settlement.ts';

let h: SimHush;
let acct: SimAccount;
let sender: Address;
let recipient: Address;

const CLOCK = 'SysvarC1ock11111111111111111111111111111111';
const RENT = 'SysvarRent111111111111111111111111111111111';

before(async () => {
  h = await startApiSim({ seed: 35 });
  acct = await h.createAccount({ feeRecipients: 1 });
  sender = h.address();
  recipient = h.address();
});
after(() => closeSim(h));

describe('address rules (docs/spec.md §4)', () => {
  test('sysvars, programs, mints, pool wallets and the fee payer are refused as sender and recipient, 400 INVALID_ADDRESS naming the field', async () => {
    const treasury = h.hush.treasury;
    const solPool = treasury.pools('sol')[0]!.address;
    const usdcPool = treasury.pools('usdc')[1]!;
    const feePayer = treasury.feePayer.address;
    const usdcMint = h.hush.config.assets.get('usdc')!.mint;
    const cases: [field: 'senderAddress' | 'recipientAddress', value: string, reason: string][] = [
      ['recipientAddress', CLOCK, 'sysvar'],
      ['recipientAddress', RENT, 'sysvar'],
      ['senderAddress', CLOCK, 'sysvar'],
      ['recipientAddress', 'Stake11111111111111111111111111111111111111', 'program'],
      ['recipientAddress', 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA', 'program'],
      ['senderAddress', 'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL', 'program'],
      ['recipientAddress', 'Vote111111111111111111111111111111111111111', 'program'],
      ['recipientAddress', usdcMint, 'mint'],
      ['senderAddress', 'So11111111111111111111111111111111111111112', 'mint'],
      ['recipientAddress', solPool, 'hush_address'],
      ['recipientAddress', usdcPool.address, 'hush_address'],
      ['senderAddress', usdcPool.address, 'hush_address'],
      ['recipientAddress', feePayer, 'hush_address'],
      ['senderAddress', feePayer, 'hush_address'],
    ];
    const before = await simOrderCount(h);
    for (const [field, value, reason] of cases) {
      const e = expectError(await acct.client.quote(quoteRequest(sender, recipient, { [field]: value })), 400, 'INVALID_ADDRESS');
      assert.equal(e.details?.field, field, `${field}=${value}`);
      assert.equal(e.details?.reason, reason, `${field}=${value}`);
    }
    assert.equal(await simOrderCount(h), before, 'nothing stored');
    // Ordinary wallets still quote.
    expectOk(await acct.client.quote(quoteRequest(sender, recipient)));
  });

  test('a fee recipient registered before the rules (a sysvar, the fee payer) is refused at the quote; the admin API refuses to register one', async () => {
    const feePayer = h.hush.treasury.feePayer.address;
    const pool = h.hush.treasury.pools('sol')[2]!.address;
    // As if registered before the rules existed: straight into the store.
    await h.drive(addFeeRecipient(h.db, acct.id, CLOCK));
    await h.drive(addFeeRecipient(h.db, acct.id, feePayer));
    for (const [value, reason] of [[CLOCK, 'sysvar'], [feePayer, 'hush_address']] as const) {
      const e = expectError(await acct.client.quote(quoteRequest(sender, recipient, { feeBps: 10, feeRecipientAddress: value })), 400, 'INVALID_ADDRESS');
      assert.equal(e.details?.field, 'feeRecipientAddress');
      assert.equal(e.details?.reason, reason);
    }
    // The admin API, on the ops listener (docs/spec.md §4).
    const registered = (await h.drive(getAccount(h.db, acct.id)))!.feeRecipients;
    for (const [value, reason] of [[pool, 'hush_address'], [RENT, 'sysvar'], ['TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb', 'program'], [h.hush.config.assets.get('bonk')!.mint, 'mint']] as const) {
      const e = expectError(await h.ops.post(`/admin/v1/accounts/${acct.id}/fee-recipients`, { address: value }), 400, 'INVALID_ADDRESS');
      assert.equal(e.details?.field, 'address');
      assert.equal(e.details?.reason, reason);
    }
    assert.deepEqual((await h.drive(getAccount(h.db, acct.id)))!.feeRecipients, registered, 'nothing registered');
    // An ordinary wallet is still registered.
    expectOk(await h.ops.post(`/admin/v1/accounts/${acct.id}/fee-recipients`, { address: h.address() }));
  });

  test("another order's deposit owner is refused at order creation as recipient and as sender; nothing stored", async () => {
    const first = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender, recipientAddress: recipient });
    for (const field of ['recipientAddress', 'senderAddress'] as const) {
      const req = quoteRequest(sender, recipient, { [field]: first.depositOwner });
      // On the curve and not a static address: the quote cannot know it; the order looks it up.
      const quote = expectOk(await acct.client.quote(req)).quote;
      const before = await simOrderCount(h);
      const e = expectError(await acct.client.order(orderRequest(quote, req)), 400, 'INVALID_ADDRESS');
      assert.equal(e.details?.field, field);
      assert.equal(e.details?.reason, 'hush_address');
      assert.equal(await simOrderCount(h), before, 'no order stored');
    }
  });

  test('orders arriving together are each judged on their own addresses, by their insert and no lookup', async () => {
    const first = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender, recipientAddress: recipient });
    // Every statement the store sees through the Db object the order service uses that checks a deposit address.
    const db: Db = h.hush.db;
    const checks: string[] = [];
    const query = db.query.bind(db);
    (db as { query: Db['query'] }).query = ((sql: string, params?: unknown[]) => {
      if (sql.includes('deposit_owner = a')) checks.push(sql);
      return query(sql, params);
    }) as Db['query'];
    try {
      const reqs = [
        ...Array.from({ length: 6 }, () => quoteRequest(h.address(), h.address())),
        quoteRequest(sender, recipient, { recipientAddress: first.depositOwner }),
        quoteRequest(sender, recipient, { senderAddress: first.depositOwner }),
      ];
      const quotes = await Promise.all(reqs.map(async (r) => expectOk(await acct.client.quote(r)).quote));
      const before = await simOrderCount(h);
      // Started in one synchronous loop: the eight injects reach the app in the same turn.
      const answers = await Promise.all(reqs.map((r, i) => acct.client.order(orderRequest(quotes[i], r))));
      for (const a of answers.slice(0, 6)) expectOk(a);
      for (const [i, field] of [[6, 'recipientAddress'], [7, 'senderAddress']] as const) {
        const e = expectError(answers[i]!, 400, 'INVALID_ADDRESS');
        assert.equal(e.details?.field, field);
        assert.equal(e.details?.reason, 'hush_address');
        // Nothing was recorded under its key either: the same request is judged again, not replayed or in progress.
        const again = expectError(await acct.client.order(orderRequest(quotes[i], reqs[i]!)), 400, 'INVALID_ADDRESS');
        assert.equal(again.details?.field, field);
      }
      assert.equal(await simOrderCount(h), before + 6, 'the six ordinary orders stored, the two refused not');
      assert.ok(checks.length >= 1 && checks.every((sql) => sql.includes('INSERT INTO orders')), `every check is an order insert's own (${checks.length})`);
    } finally {
      (db as { query: Db['query'] }).query = query;
    }
  });
});
