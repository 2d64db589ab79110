/**
 * Order idempotency (seed part 4, rules 1–4, and docs/spec.md §4): the matrix of
 * test/support/idempotency-matrix.ts, once on a simulated Hush on PGlite (test/support/sim-hush.ts) and once on
 * real, listening Hush processes on PostgreSQL (a fresh private schema; skipped with the reason when
 * PostgreSQL is not reachable), where rule 4 is also checked across two API processes sharing the store.
 *
 * On the simulator the 20 concurrent requests are injected in one synchronous loop, so they reach the app in
 * the same turn, as requests on 20 connections read in one turn do; a loser waits in memory for the winner
 * and is told ORDER_IN_PROGRESS, and its retry comes after Retry-After on the simulated clock. The PostgreSQL
 * part stays real: it is about PostgreSQL over real sockets (20 connections) and a process boundary, where
 * only PostgreSQL's locks can tell the second process that the first is still storing the order.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { idempotencyMatrix, type IdempotencyStand } from '../support/idempotency-matrix.ts';
import { simQuery, startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimHush } from '../support/sim-hush.ts';
import {
  HushClient,
  address,
  expectError,
  expectOk,
  orderRequest,
  postgresSkipReason,
  quoteRequest,
  startTestHush,
  type ApiResponse,
  type TestAccount,
  type TestHush,
} from '../support/hush-server.ts';
import { pollUntil } from '../support/localnet.ts';
import { quoteKey } from '../../src/domain/quote-token.ts';
import { insertOrder } from '../../src/store/orders-store.ts';
import { newOrder } from '../support/store-fixtures.ts';

describe('order idempotency [simulated, pglite]', () => {
  let h: SimHush;
  let stand: IdempotencyStand;

  before(async () => {
    h = await startApiSim({ seed: 4 });
    assert.equal(h.db.kind, 'pglite');
    stand = {
      engine: 'pglite',
      acct: await h.createAccount(),
      createAccount: () => h.createAccount(),
      address: () => h.address(),
      query: (sql, params) => simQuery(h, sql, params),
      together: (client, path, body, n, headers) => Promise.all(Array.from({ length: n }, () => client.post(path, body, { headers }))),
      retryAfter: (s) => h.advance(s * 1000),
    };
  });
  after(() => closeSim(h));

  idempotencyMatrix(() => stand);
});

const skip = postgresSkipReason ? `PostgreSQL variant skipped: ${postgresSkipReason}` : false;

/** `p`, or null once `ms` have passed (its timer cleared either way, so it holds no process open). */
async function within<T>(p: Promise<T>, ms: number): Promise<T | null> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<null>((resolve) => (timer = setTimeout(() => resolve(null), ms)));
  try {
    return await Promise.race([p, late]);
  } finally {
    clearTimeout(timer);
  }
}

describe('order idempotency over HTTP [postgres], two API processes on one store (scaled out, docs/spec.md §1)', { skip }, () => {
  let a: TestHush;
  let b: TestHush;
  let acct: TestAccount;
  let stand: IdempotencyStand;

  before(async () => {
    a = await startTestHush({ engine: 'postgres' });
    assert.equal(a.db.kind, 'postgres', 'the server runs on PostgreSQL');
    b = await startTestHush({ sharing: a });
    acct = await a.createAccount();
    stand = {
      engine: 'postgres',
      acct: await a.createAccount(),
      createAccount: () => a.createAccount(),
      address,
      query: async (sql, params) => (await a.db.query(sql, params)).rows as never,
      together: (client, path, body, n, headers) => client.simultaneousPosts(path, body, n, headers),
      // A loser is told ORDER_IN_PROGRESS only once the winner has stored the order, so its retry needs no
      // wait to replay: retrying at once, sooner than Retry-After asks, is the stricter check.
      retryAfter: async () => {},
    };
  });
  after(async () => {
    await b?.close();
    await a?.close();
  });

  idempotencyMatrix(() => stand);

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
      // PostgreSQL says when A's statement waits on the blocker: its lock request, not yet granted.
      await pollUntil(
        async () => (await a.db.query(`SELECT 1 FROM pg_locks WHERE locktype = 'transactionid' AND transactionid = $1::xid AND NOT granted`, [blockedXid])).rows.length > 0,
        { timeoutMs: 5_000, intervalMs: 25, what: 'process A to reach its insert' },
      );
      // B cannot wait for A's commit here (A waits for this test): without the key lock this request would hang.
      dup = await within(bClient.order(body, 'cross-process'), 10_000);
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
