/**
 * Another account's real trackingId once answered 404 in 1.3 ms (its status record was in the cache its owner's
 * polls fill) and an unknown one in 2.6–3.0 ms (a store read): the time told whether the id exists. Every lookup
 * by another account now does what an unknown id's does, one store read, whatever the owner polled: counted on
 * the store the simulated Hush uses (a counting wrapper, the real PGlite beneath), never timed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { expectError, expectOk } from '../support/api-responses.ts';
import { orderRequest, quoteRequest, startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import { SOL, type SimAccount, type SimHush } from '../support/sim-hush.ts';

let h: SimHush;
let owner: SimAccount;
let other: SimAccount;

before(async () => {
  h = await startApiSim({ seed: 6 });
  [owner, other] = [await h.createAccount(), await h.createAccount()];
});
after(() => closeSim(h));

/** The store queries `run` makes with `id` among their parameters (the worker shares the Db: its queries are not counted). */
async function queriesOf(id: string, run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const db = h.hush.db as { query: (sql: string, params?: unknown[]) => Promise<unknown> };
  const real = db.query;
  db.query = (sql, params) => {
    if (params?.includes(id)) seen.push(sql.replace(/\s+/g, ' '));
    return real.call(db, sql, params);
  };
  try {
    await run();
  } finally {
    db.query = real;
  }
  return seen;
}

test("another account's trackingId costs what an unknown one does (status, receipt): the same answer and the same store work", async () => {
  const sender = await h.wallet({ sol: SOL });
  const req = quoteRequest(sender.address, h.address(), { amount: '200000000' });
  const q = expectOk(await owner.client.quote(req)).quote;
  const o = expectOk(await owner.client.order(orderRequest(q, req))).order;
  const unknown = 'trk_1111111111111111111111';
  // The owner polls: its record is now in the status cache.
  expectOk(await owner.client.get(`/transfer/v1/status/${o.trackingId}`));
  for (const path of ['', '/receipt']) {
    let theirs: ReturnType<typeof expectError> | undefined;
    let none: ReturnType<typeof expectError> | undefined;
    const forTheirs = await queriesOf(o.trackingId, async () => void (theirs = expectError(await other.client.get(`/transfer/v1/status/${o.trackingId}${path}`), 404, 'NOT_FOUND')));
    const forNone = await queriesOf(unknown, async () => void (none = expectError(await other.client.get(`/transfer/v1/status/${unknown}${path}`), 404, 'NOT_FOUND')));
    assert.equal(theirs!.message, none!.message, `status${path}: one message`);
    assert.ok(forNone.length >= 1, `status${path}: an unknown id reads the store`);
    assert.deepEqual(forTheirs, forNone, `status${path}: another account's id reads the store as an unknown one does`);
  }
  // The owner still reads its own order (from the cache once polled).
  assert.equal(expectOk(await owner.client.get(`/transfer/v1/status/${o.trackingId}`)).order.trackingId, o.trackingId);
});
