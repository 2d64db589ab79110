/**
 * Order idempotency (seed part 4, rules 1–4, and docs/spec.md §4) against a real, listening Hush, once on PGlite
 * and once on PostgreSQL (a fresh private schema; skipped with the reason when PostgreSQL is not
 * reachable): replay with `Idempotent-Replayed: true`, quoteId as the implicit key, per-account scope,
 * IDEMPOTENCY_CONFLICT, QUOTE_ALREADY_USED, ORDER_IN_PROGRESS, and 20 truly concurrent requests.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import {
  HushClient,
  address,
  expectError,
  expectOk,
  orderRequest,
  PREFIX,
  postgresSkipReason,
  quoteRequest,
  sleep,
  startTestHush,
  type ApiResponse,
  type Engine,
  type TestAccount,
  type TestHush,
} from '../support/hush-server.ts';
import { quoteKey } from '../../src/domain/quote-token.ts';
import { insertOrder } from '../../src/store/orders-store.ts';
import { newOrder } from '../support/store-fixtures.ts';

const PARALLEL = 20;

for (const engine of ['pglite', 'postgres'] as Engine[]) {
  const skip = engine === 'postgres' && postgresSkipReason ? `PostgreSQL variant skipped: ${postgresSkipReason}` : false;
  describe(`order idempotency over HTTP [${engine}]`, { skip }, () => {
    let t: TestHush;
    let acct: TestAccount;

    before(async () => {
      t = await startTestHush({ engine });
      assert.equal(t.db.kind, engine, `the server runs on ${engine}`);
      acct = await t.createAccount();
    });
    after(async () => {
      await t?.close();
    });

    async function newQuote(a = acct) {
      const req = quoteRequest(await address(), await address());
      const quote = expectOk(await a.client.quote(req)).quote;
      return { quote, body: orderRequest(quote, req) };
    }

    async function ordersForQuote(quoteId: string): Promise<number> {
      const { rows } = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE quote->>'quoteId' = $1`, [quoteId]);
      return rows[0]!.n;
    }

    const isReplay = (r: ApiResponse) => r.headers.get('idempotent-replayed') === 'true';

    test('rule 1: a retry with the same key returns the original order (Idempotent-Replayed: true), even after a refresh', async () => {
      const { quote, body } = await newQuote();
      const first = await acct.client.order(body, 'order-key-1');
      const o = expectOk(first).order;
      assert.equal(first.headers.get('idempotent-replayed'), null, 'the original response is not marked as a replay');
      const again = await acct.client.order(body, 'order-key-1');
      expectOk(again);
      assert.equal(again.headers.get('idempotent-replayed'), 'true');
      assert.deepEqual(again.body, first.body, 'same body');
      assert.equal(again.text, first.text, 'byte-identical body');
      assert.equal(await ordersForQuote(quote.quoteId), 1);
      // The replay is the stored original, not the current state.
      expectOk(await acct.client.refresh(o.trackingId));
      const later = await acct.client.order(body, 'order-key-1');
      assert.equal(isReplay(later), true);
      assert.deepEqual(later.body, first.body);
    });

    test('rule 2: without a key the quoteId is the key; another key for the used quote → 409 QUOTE_ALREADY_USED', async () => {
      const { quote, body } = await newQuote();
      const first = await acct.client.order(body);
      expectOk(first);
      const retry = await acct.client.order(body);
      assert.equal(isReplay(retry), true, 'a keyless retry of the same quote replays');
      assert.deepEqual(retry.body, first.body);
      const e = expectError(await acct.client.order(body, 'another-key'), 409, 'QUOTE_ALREADY_USED');
      // The order the quote backs, named, so a partner that lost it can follow it (issue 43).
      assert.deepEqual(e.details, { trackingId: (first.body as any).order.trackingId });
      assert.equal(await ordersForQuote(quote.quoteId), 1);
      // …and found by its quote: the status record, for this account only; an unused quote has none.
      const found = expectOk(await acct.client.request('GET', `/transfer/v1/orders?quoteId=${encodeURIComponent(quote.quoteId)}`)) as unknown as { order: { trackingId: string; status: string } };
      assert.equal(found.order.trackingId, (first.body as any).order.trackingId);
      assert.equal(found.order.status, 'awaiting_deposit');
      const stranger = await t.createAccount();
      expectError(await stranger.client.request('GET', `/transfer/v1/orders?quoteId=${encodeURIComponent(quote.quoteId)}`), 404, 'NOT_FOUND');
      expectError(await acct.client.request('GET', `/transfer/v1/orders?quoteId=${encodeURIComponent((await newQuote()).quote.quoteId)}`), 404, 'NOT_FOUND');
      expectError(await acct.client.request('GET', '/transfer/v1/orders?quoteId=q_AAAA'), 404, 'NOT_FOUND');
      expectError(await acct.client.request('GET', '/transfer/v1/orders?quoteId=nope'), 400, 'INVALID_REQUEST');
      // The refused key was not consumed: it can carry another order.
      const other = await newQuote();
      expectOk(await acct.client.order(other.body, 'another-key'));

      // A quote ordered under an explicit key cannot be ordered again without one.
      const q2 = await newQuote();
      expectOk(await acct.client.order(q2.body, 'explicit-key'));
      expectError(await acct.client.order(q2.body), 409, 'QUOTE_ALREADY_USED');
      assert.equal(await ordersForQuote(q2.quote.quoteId), 1);
    });

    test('rule 3: the same key with different terms → 409 IDEMPOTENCY_CONFLICT; the other quote stays usable', async () => {
      const a = await newQuote();
      const b = await newQuote();
      expectOk(await acct.client.order(a.body, 'conflict-key'));
      const e = expectError(await acct.client.order(b.body, 'conflict-key'), 409, 'IDEMPOTENCY_CONFLICT');
      assert.equal(e.details, undefined);
      expectError(await acct.client.order(b.body, 'conflict-key'), 409, 'IDEMPOTENCY_CONFLICT');
      assert.equal(await ordersForQuote(b.quote.quoteId), 0);
      expectOk(await acct.client.order(b.body, 'fresh-key'));
      // The original still replays under the key.
      assert.equal(isReplay(await acct.client.order(a.body, 'conflict-key')), true);
    });

    test('a retry whose quote has its fields in another order (same values) is the same request: it replays', async () => {
      // Object keys reversed at every depth; arrays keep their order (it is part of their value).
      const reversed = (o: Record<string, unknown>): Record<string, unknown> =>
        Object.fromEntries(Object.entries(o).reverse().map(([k, v]) => [k, v && typeof v === 'object' && !Array.isArray(v) ? reversed(v as Record<string, unknown>) : v]));
      for (const key of ['reordered-key', undefined]) {
        const { quote, body } = await newQuote();
        const first = await acct.client.order(body, key);
        expectOk(first);
        const shuffled = { ...body, quote: reversed(quote as Record<string, unknown>) };
        assert.notEqual(JSON.stringify(shuffled.quote), JSON.stringify(quote), 'the keys really are in another order');
        const again = await acct.client.order(shuffled, key);
        assert.equal(again.status, 200, JSON.stringify(again.body));
        assert.equal(isReplay(again), true);
        assert.deepEqual(again.body, first.body);
        assert.equal(await ordersForQuote(quote.quoteId), 1);
      }
    });

    test('keys are scoped per account: two accounts may use the same key independently', async () => {
      const other = await t.createAccount();
      const mine = await newQuote();
      const theirs = await newQuote(other);
      const r1 = await acct.client.order(mine.body, 'shared-key');
      const r2 = await other.client.order(theirs.body, 'shared-key');
      expectOk(r1);
      expectOk(r2);
      assert.equal(isReplay(r2), false, 'not a replay of the other account’s order');
      assert.notEqual(r1.body.order.trackingId, r2.body.order.trackingId);
      assert.equal(isReplay(await other.client.order(theirs.body, 'shared-key')), true);
      // And the other account cannot reach my order through my key and my quote.
      expectError(await other.client.order(mine.body, 'shared-key'), 404, 'QUOTE_NOT_FOUND');
    });

    test('rule 4: while the key’s owner is still working → 409 ORDER_IN_PROGRESS with Retry-After: 1; then the original', async () => {
      const { body } = await newQuote();
      const first = await acct.client.order(body, 'in-progress-key');
      expectOk(first);
      // Put the record back to the state it has while its request is still creating the order.
      const flip = (state: string) =>
        t.db.query(`UPDATE idempotency_keys SET state = $3, locked_at = now() WHERE account_id = $1 AND key = $2`, [acct.id, 'in-progress-key', state]);
      await flip('in_progress');
      const busy = await acct.client.order(body, 'in-progress-key');
      const e = expectError(busy, 409, 'ORDER_IN_PROGRESS');
      assert.equal(e.details, undefined);
      assert.equal(busy.headers.get('retry-after'), '1');
      await flip('done');
      const retry = await acct.client.order(body, 'in-progress-key');
      assert.equal(isReplay(retry), true);
      assert.deepEqual(retry.body, first.body);
    });

    for (const variant of ['same X-Idempotency-Key', 'no key (quoteId as key)'] as const) {
      test(`${PARALLEL} concurrent POST /order, ${variant}: exactly one order; the rest get ORDER_IN_PROGRESS; simultaneous retries all replay it`, async (ctx) => {
        const { quote, body } = await newQuote();
        const key = variant === 'same X-Idempotency-Key' ? `race-${quote.quoteId.slice(-12)}` : undefined;
        const results = await acct.client.simultaneousPosts(`${PREFIX}/order`, body, PARALLEL, key ? { 'x-idempotency-key': key } : {});
        const created = results.filter((r) => r.status === 200 && !isReplay(r));
        const replays = results.filter((r) => r.status === 200 && isReplay(r));
        const busy = results.filter((r) => r.status === 409);
        assert.equal(created.length, 1, `exactly one request creates the order; statuses ${results.map((r) => r.status).join(',')}`);
        assert.equal(created.length + replays.length + busy.length, PARALLEL, `only 200 or 409: ${results.map((r) => `${r.status}`).join(',')}`);
        const original = created[0]!.body;
        for (const r of replays) assert.deepEqual(r.body, original, 'a replay is the original order');
        for (const r of busy) {
          expectError(r, 409, 'ORDER_IN_PROGRESS');
          assert.equal(r.headers.get('retry-after'), '1');
        }
        assert.equal(await ordersForQuote(quote.quoteId), 1, 'exactly one order row');
        ctx.diagnostic(`${engine}, ${variant}: 1 created, ${replays.length} replayed, ${busy.length} ORDER_IN_PROGRESS`);
        // Seed rule 4 for real: requests arriving together while the first is still creating are told so.
        assert.ok(busy.length >= 1, `no loser saw ORDER_IN_PROGRESS: ${results.map((r) => r.status).join(',')}`);
        // The losers retry after Retry-After, all at once again: the order exists by then (a loser is told
        // only once the winner has stored it), and concurrent replays share one answer, never 409.
        await sleep(1000);
        const retries = await acct.client.simultaneousPosts(`${PREFIX}/order`, body, busy.length, key ? { 'x-idempotency-key': key } : {});
        for (const r of retries) {
          assert.equal(isReplay(r), true, `retry: ${r.status} ${r.text.slice(0, 200)}`);
          assert.deepEqual(r.body, original);
        }
      });
    }

    test(`${PARALLEL} concurrent POST /order of one quote under ${PARALLEL} different keys: one order, the rest QUOTE_ALREADY_USED`, async () => {
      const { quote, body } = await newQuote();
      const results = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => acct.client.order(body, `distinct-${i}-${quote.quoteId.slice(-8)}`)));
      const ok = results.filter((r) => r.status === 200);
      assert.equal(ok.length, 1, `statuses ${results.map((r) => r.status).join(',')}`);
      for (const r of results.filter((x) => x.status !== 200)) expectError(r, 409, 'QUOTE_ALREADY_USED');
      assert.equal(await ordersForQuote(quote.quoteId), 1);
    });
  });
}

describe('order idempotency across two API processes on one PostgreSQL (scaled out, docs/spec.md §1)', { skip: postgresSkipReason ? `skipped: ${postgresSkipReason}` : false }, () => {
  let a: TestHush;
  let b: TestHush;
  let acct: TestAccount;

  before(async () => {
    a = await startTestHush({ engine: 'postgres' });
    b = await startTestHush({ sharing: a });
    acct = await a.createAccount();
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  test('rule 4: a duplicate reaching the other process while the first is being stored gets ORDER_IN_PROGRESS, its retry the order', { timeout: 60_000 }, async () => {
    const req = quoteRequest(await address(), await address());
    const quote = expectOk(await acct.client.quote(req)).quote;
    const body = orderRequest(quote, req);
    const bClient = new HushClient(b.url, acct.apiKey);
    // Hold process A inside its insert: an uncommitted order row with the same quote makes A's statement wait
    // on this transaction, after it has recorded the key (uncommitted too).
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    let blockerXid!: (xid: string) => void;
    const xid = new Promise<string>((r) => (blockerXid = r));
    const blocker = a.db
      .transaction(async (q) => {
        await insertOrder(q, newOrder(acct.id, { quoteKey: quoteKey(quote.quoteId) }), { key: 'blocker', responseStatus: 200, responseBody: {} });
        const { rows } = await q.query<{ xid: string }>('SELECT backend_xid::text AS xid FROM pg_stat_activity WHERE pid = pg_backend_pid()');
        blockerXid(rows[0]!.xid);
        await held;
        throw new Error('roll back');
      })
      .catch(() => {});
    const blockedXid = await xid;
    let dup: ApiResponse | null;
    let first: Promise<ApiResponse>;
    try {
      first = acct.client.order(body, 'cross-process');
      const waiting = async () => (await a.db.query(`SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND transactionid = $1::xid AND NOT granted`, [blockedXid])).rows.length > 0;
      for (let i = 0; !(await waiting()); i++) {
        assert.ok(i < 200, 'process A never reached its insert');
        await sleep(25);
      }
      // B cannot wait for A's commit here (A waits for this test): without the key lock this request would hang.
      dup = await Promise.race([bClient.order(body, 'cross-process'), sleep(10_000).then(() => null)]);
    } finally {
      release();
      await blocker;
    }
    assert.ok(dup, 'process B waited for the uncommitted order of process A instead of answering');
    expectError(dup, 409, 'ORDER_IN_PROGRESS');
    assert.equal(dup.headers.get('retry-after'), '1');
    const created = await first;
    const original = expectOk(created);
    assert.equal(created.headers.get('idempotent-replayed'), null);
    const retry = await bClient.order(body, 'cross-process');
    assert.equal(retry.headers.get('idempotent-replayed'), 'true');
    assert.deepEqual(retry.body, original);
    const { rows } = await a.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE quote->>'quoteId' = $1`, [quote.quoteId]);
    assert.equal(rows[0]!.n, 1);
  });
});
