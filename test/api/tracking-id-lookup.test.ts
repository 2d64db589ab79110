/**
 * Issue 50, finding 6 (second half): another account's real trackingId answered 404 in 1.3 ms (its status record
 * was in the cache its owner's polls fill) and an unknown one in 2.6–3.0 ms (a store read): the time told whether
 * the id exists. Every lookup by another account now does what an unknown id's does, one store read, whatever
 * the owner polled: counted on the store the server uses (a counting wrapper, the real PGlite beneath), never timed.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { address, expectError, expectOk, fundedSender, quoteAndOrder, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';

let t: TestHush;
let owner: TestAccount;
let other: TestAccount;

before(async () => {
  t = await startTestHush();
  [owner, other] = [await t.createAccount(), await t.createAccount()];
});
after(() => t?.close());

/** The store queries `run` makes with `id` among their parameters (the worker shares the Db: its queries are not counted). */
async function queriesOf(id: string, run: () => Promise<void>): Promise<string[]> {
  const seen: string[] = [];
  const db = t.db as { query: (sql: string, params?: unknown[]) => Promise<unknown> };
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
  const sender = await fundedSender(t, { sol: 1_000_000_000n });
  const { o } = await quoteAndOrder(owner.client, sender.address, await address(), { amount: '200000000' });
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
