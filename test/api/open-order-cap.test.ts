/**
 * The per-account cap on open unfunded orders (docs/spec.md §7, HUSH_MAX_OPEN_ORDERS), on a simulated Hush
 * (test/support/sim-hush.ts: API and worker, PGlite, the local chain on the simulated clock): the (cap+1)-th
 * order awaiting a deposit is refused 429 TOO_MANY_OPEN_ORDERS with Retry-After and creates nothing; another
 * account is unaffected; a funded order frees its slot (a real deposit, seen by the worker), and so does an
 * expired one.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expectError, expectOk } from '../support/api-responses.ts';
import { quoteRequest, simOrderCount, startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimAccount, SimHush, SimWallet } from '../support/sim-hush.ts';

const CAP = 3;

let h: SimHush;
let capped: SimAccount;
let other: SimAccount;
let sender: SimWallet;
let recipient: string;

before(async () => {
  // A one-second order deadline: an order expires with its first transaction's blockhash. Quotes outlive it
  // (the last one is ordered once the first orders have expired).
  h = await startApiSim({ seed: 7, env: { HUSH_MAX_OPEN_ORDERS: String(CAP), HUSH_ORDER_TTL_S: '1', HUSH_QUOTE_TTL_S: '600' } });
  capped = await h.createAccount();
  other = await h.createAccount();
  sender = await h.wallet();
  recipient = h.address();
});
after(() => closeSim(h));

async function quote(a: SimAccount) {
  return expectOk(await a.client.quote(quoteRequest(sender.address, recipient))).quote;
}
const order = (a: SimAccount, q: unknown) => a.client.order({ quote: q, senderAddress: sender.address, recipientAddress: recipient });
/** The order of `q` once one is no longer refused for the cap (asked every `everyMs`, as a partner would retry). */
const orderOnceFreed = (a: SimAccount, q: unknown, what: string, maxMs: number) =>
  h.until(what, async () => {
    const r = await order(a, q);
    return r.status === 429 ? null : expectOk(r).order;
  }, maxMs, 250);

test('the (cap+1)-th unfunded order is refused and changes nothing; another account is unaffected; funding or expiry frees a slot', async () => {
  const placed: { trackingId: string; transaction: string; expiration: string }[] = [];
  for (let i = 0; i < CAP; i++) placed.push(expectOk(await order(capped, await quote(capped))).order);
  const firstExpiration = Math.min(...placed.map((o) => Date.parse(o.expiration)));

  const count = await simOrderCount(h);
  const next = await quote(capped);
  const res = await order(capped, next);
  const e = expectError(res, 429, 'TOO_MANY_OPEN_ORDERS');
  assert.deepEqual(e.details, { maxOpenOrders: CAP });
  const retryAfter = Number(res.headers.get('retry-after'));
  assert.ok(Number.isInteger(retryAfter) && retryAfter >= 1, `Retry-After ${res.headers.get('retry-after')}`);
  assert.ok(retryAfter <= Math.ceil((firstExpiration - h.now()) / 1000) + 1, 'no later than the first open order expires');
  assert.equal(await simOrderCount(h), count, 'nothing created');
  expectError(await order(capped, next), 429, 'TOO_MANY_OPEN_ORDERS');

  // Another account: its orders go through.
  expectOk(await order(other, await quote(other)));

  // A real deposit for the first order: once the worker has seen it, the slot is free.
  await h.deposit(placed[0]!, sender);
  await h.until('the deposit to be seen', async () => expectOk(await capped.client.status(placed[0]!.trackingId)).order.status !== 'awaiting_deposit', 15_000, 100);
  const funded = await orderOnceFreed(capped, next, 'the funded order to free its slot', 10_000);
  assert.ok(funded.trackingId);
  assert.ok(h.now() < firstExpiration, 'freed by the deposit, not by the others expiring');

  // At the cap again (two unfunded, one new): refused until the first unfunded ones expire.
  const later = await quote(capped);
  expectError(await order(capped, later), 429, 'TOO_MANY_OPEN_ORDERS');
  // A partner that waits what each refusal's Retry-After says between its tries.
  const giveUp = firstExpiration + 10_000;
  let freed = await order(capped, later);
  for (; freed.status === 429; freed = await order(capped, later)) {
    expectError(freed, 429, 'TOO_MANY_OPEN_ORDERS');
    assert.ok(h.now() < giveUp, 'no expired order freed its slot');
    await h.advance(Number(freed.headers.get('retry-after')) * 1000);
  }
  assert.ok(expectOk(freed).order.trackingId);
  assert.ok(h.now() >= firstExpiration, 'freed only once an order expired');
});
