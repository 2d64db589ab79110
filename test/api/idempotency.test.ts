/**
 * Order idempotency (seed part 4, rules 1–4, and docs/spec.md §4) on a simulated Hush on PGlite
 * (test/support/sim-hush.ts): the matrix of test/support/idempotency-matrix.ts. The 20 concurrent requests are
 * injected in one synchronous loop, so they reach the app in the same turn, as requests on 20 connections
 * read in one turn do; a loser waits in memory for the winner and is told ORDER_IN_PROGRESS, and its retry
 * comes after Retry-After on the simulated clock. The same matrix on PostgreSQL, and across two API
 * processes sharing it: test/api/idempotency-postgres.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, describe } from 'node:test';
import { idempotencyMatrix, type IdempotencyStand } from '../support/idempotency-matrix.ts';
import { simQuery, startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimHush } from '../support/sim-hush.ts';

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
