/**
 * Order idempotency's matrix (seed part 4, rules 1–4, and docs/spec.md §4), written once for any Hush a stand
 * gives: the simulated one on PGlite (test/api/idempotency.test.ts) and a real, listening one on PostgreSQL
 * (test/api/idempotency-postgres.test.ts). Replay with `Idempotent-Replayed: true`, quoteId as the implicit key,
 * per-account scope, IDEMPOTENCY_CONFLICT, QUOTE_ALREADY_USED, ORDER_IN_PROGRESS, and 20 concurrent requests.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { expectError, expectOk, type ApiResponse } from './api-responses.ts';
import { PREFIX, type HushClient } from './hush-client.ts';
import { isReplay, orderRequest, quoteRequest } from './sim-api.ts';

const PARALLEL = 20;

export interface IdempotencyStand {
  engine: string;
  acct: { id: string; client: HushClient };
  createAccount(): Promise<{ id: string; client: HushClient }>;
  address(): Promise<string> | string;
  query<T>(sql: string, params: unknown[]): Promise<T[]>;
  /** `n` copies of one JSON POST that reach the server together. */
  together(client: HushClient, path: string, body: unknown, n: number, headers: Record<string, string>): Promise<ApiResponse[]>;
  /** What a client waits after a 409 before its retry (Retry-After, in seconds). */
  retryAfter(seconds: number): Promise<void>;
}

/** Registers the matrix's tests; `stand()` is called in each (it is built in the caller's `before`). */
export function idempotencyMatrix(stand: () => IdempotencyStand): void {
  async function newQuote(a = stand().acct) {
    const s = stand();
    const req = quoteRequest(await s.address(), await s.address());
    const quote = expectOk(await a.client.quote(req)).quote;
    return { quote, body: orderRequest(quote, req) };
  }

  async function ordersForQuote(quoteId: string): Promise<number> {
    const rows = await stand().query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE quote->>'quoteId' = $1`, [quoteId]);
    return rows[0]!.n;
  }

  test('rule 1: a retry with the same key returns the original order (Idempotent-Replayed: true), even after a refresh', async () => {
    const { acct } = stand();
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
    const { acct } = stand();
    const { quote, body } = await newQuote();
    const first = await acct.client.order(body);
    expectOk(first);
    const retry = await acct.client.order(body);
    assert.equal(isReplay(retry), true, 'a keyless retry of the same quote replays');
    assert.deepEqual(retry.body, first.body);
    const e = expectError(await acct.client.order(body, 'another-key'), 409, 'QUOTE_ALREADY_USED');
    // The order the quote backs, named, so a partner that lost it can follow it.
    assert.deepEqual(e.details, { trackingId: first.body.order.trackingId });
    assert.equal(await ordersForQuote(quote.quoteId), 1);
    // …and found by its quote: the status record, for this account only; an unused quote has none.
    const byQuote = (c: HushClient, quoteId: string) => c.request('GET', `${PREFIX}/orders?quoteId=${encodeURIComponent(quoteId)}`);
    const found = expectOk(await byQuote(acct.client, quote.quoteId)) as { order: { trackingId: string; status: string } };
    assert.equal(found.order.trackingId, first.body.order.trackingId);
    assert.equal(found.order.status, 'awaiting_deposit');
    const stranger = await stand().createAccount();
    expectError(await byQuote(stranger.client, quote.quoteId), 404, 'NOT_FOUND');
    expectError(await byQuote(acct.client, (await newQuote()).quote.quoteId), 404, 'NOT_FOUND');
    expectError(await byQuote(acct.client, 'q_AAAA'), 404, 'NOT_FOUND');
    expectError(await byQuote(acct.client, 'nope'), 400, 'INVALID_REQUEST');
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
    const { acct } = stand();
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
    const { acct } = stand();
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
    const { acct } = stand();
    const other = await stand().createAccount();
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
    const { acct } = stand();
    const { body } = await newQuote();
    const first = await acct.client.order(body, 'in-progress-key');
    expectOk(first);
    // Put the record back to the state it has while its request is still creating the order.
    const flip = (state: string) =>
      stand().query(`UPDATE idempotency_keys SET state = $3, locked_at = now() WHERE account_id = $1 AND key = $2`, [acct.id, 'in-progress-key', state]);
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
      const s = stand();
      const { quote, body } = await newQuote();
      const key = variant === 'same X-Idempotency-Key' ? `race-${quote.quoteId.slice(-12)}` : undefined;
      const headers: Record<string, string> = key ? { 'x-idempotency-key': key } : {};
      const results = await s.together(s.acct.client, `${PREFIX}/order`, body, PARALLEL, headers);
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
      ctx.diagnostic(`${s.engine}, ${variant}: 1 created, ${replays.length} replayed, ${busy.length} ORDER_IN_PROGRESS`);
      // Seed rule 4 for real: requests arriving together while the first is still creating are told so.
      assert.ok(busy.length >= 1, `no loser saw ORDER_IN_PROGRESS: ${results.map((r) => r.status).join(',')}`);
      // The losers retry after Retry-After, all at once again: the order exists by then (a loser is told
      // only once the winner has stored it), and concurrent replays share one answer, never 409.
      await s.retryAfter(1);
      const retries = await s.together(s.acct.client, `${PREFIX}/order`, body, busy.length, headers);
      for (const r of retries) {
        assert.equal(isReplay(r), true, `retry: ${r.status} ${r.text.slice(0, 200)}`);
        assert.deepEqual(r.body, original);
      }
    });
  }

  test(`${PARALLEL} concurrent POST /order of one quote under ${PARALLEL} different keys: one order, the rest QUOTE_ALREADY_USED`, async () => {
    const { acct } = stand();
    const { quote, body } = await newQuote();
    const results = await Promise.all(Array.from({ length: PARALLEL }, (_, i) => acct.client.order(body, `distinct-${i}-${quote.quoteId.slice(-8)}`)));
    const ok = results.filter((r) => r.status === 200);
    assert.equal(ok.length, 1, `statuses ${results.map((r) => r.status).join(',')}`);
    for (const r of results.filter((x) => x.status !== 200)) expectError(r, 409, 'QUOTE_ALREADY_USED');
    assert.equal(await ordersForQuote(quote.quoteId), 1);
  });
}
