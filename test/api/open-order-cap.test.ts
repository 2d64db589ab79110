/**
 * The per-account cap on open unfunded orders (docs/spec.md §7, HUSH_MAX_OPEN_ORDERS), against a real Hush
 * (embedded chain, PGlite, API and worker): the (cap+1)-th order awaiting a deposit is refused 429
 * TOO_MANY_OPEN_ORDERS with Retry-After and creates nothing; another account is unaffected; a funded
 * order frees its slot (a real deposit, seen by the worker), and so does an expired one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { expectError, expectOk, fundedSender, orderCount, quoteRequest, signDeposit, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { pollUntil, send } from '../support/localnet.ts';

const CAP = 3;

let t: TestHush;
let capped: TestAccount;
let other: TestAccount;
let sender: KeyPairSigner;
let recipient: Address;

before(async () => {
  // A one-second order deadline: an order expires with its first transaction's blockhash (~17 s at 100 ms
  // slots). At 50 ms slots (~9 s) a loaded run sent the first order's deposit after its blockhash had died.
  t = await startTestHush({ env: { HUSH_MAX_OPEN_ORDERS: String(CAP), HUSH_ORDER_TTL_S: '1', LOCALNET_SLOT_MS: '100' } });
  capped = await t.createAccount();
  other = await t.createAccount();
  sender = await fundedSender(t);
  recipient = (await generateKeyPairSigner()).address;
});
after(async () => {
  await t?.close();
});

async function quote(a: TestAccount) {
  return expectOk(await a.client.quote(quoteRequest(sender.address, recipient))).quote;
}
const order = (a: TestAccount, q: unknown) => a.client.order({ quote: q, senderAddress: sender.address, recipientAddress: recipient });

test('the (cap+1)-th unfunded order is refused and changes nothing; another account is unaffected; funding or expiry frees a slot', async () => {
  const placed: { trackingId: string; transaction: string; expiration: string }[] = [];
  for (let i = 0; i < CAP; i++) placed.push(expectOk(await order(capped, await quote(capped))).order);
  const firstExpiration = Math.min(...placed.map((o) => Date.parse(o.expiration)));

  const count = await orderCount(t.db);
  const next = await quote(capped);
  const res = await order(capped, next);
  const e = expectError(res, 429, 'TOO_MANY_OPEN_ORDERS');
  assert.deepEqual(e.details, { maxOpenOrders: CAP });
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${res.headers.get('retry-after')}`);
  assert.ok(retryAfter <= Math.ceil((firstExpiration - Date.now()) / 1000) + 1, 'no later than the first open order expires');
  assert.equal(await orderCount(t.db), count, 'nothing created');
  expectError(await order(capped, next), 429, 'TOO_MANY_OPEN_ORDERS');

  // Another account: its orders go through.
  expectOk(await order(other, await quote(other)));

  // A real deposit for the first order: once the worker has seen it, the slot is free.
  const { wire } = await signDeposit(placed[0]!.transaction, sender);
  await send(t.rpc, wire as never);
  await pollUntil(async () => (await capped.client.status(placed[0]!.trackingId)).body?.status !== 'awaiting_deposit', { timeoutMs: 15_000, intervalMs: 100, what: 'the deposit to be seen' });
  const funded = await pollUntil(async () => {
    const r = await order(capped, next);
    if (r.status === 429) return null;
    return expectOk(r).order;
  }, { timeoutMs: 10_000, intervalMs: 200, what: 'the funded order to free its slot' });
  assert.ok(funded.trackingId);
  assert.ok(Date.now() < firstExpiration, 'freed by the deposit, not by the others expiring');

  // At the cap again (two unfunded, one new): refused until the first unfunded ones expire.
  const later = await quote(capped);
  expectError(await order(capped, later), 429, 'TOO_MANY_OPEN_ORDERS');
  await pollUntil(async () => {
    const r = await order(capped, later);
    if (r.status === 429) return null;
    return expectOk(r).order;
  }, { timeoutMs: firstExpiration - Date.now() + 10_000, intervalMs: 250, what: 'an expired order to free its slot' });
  assert.ok(Date.now() >= firstExpiration, 'freed only once an order expired');
});
