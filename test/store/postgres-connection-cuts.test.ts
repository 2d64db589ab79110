/**
 * PostgreSQL connections cut under a running store (src/store/postgres-db.ts), through a TCP proxy: a cut
 * during a transaction rejects that transaction and nothing else (it once emitted 'error' to no listener and
 * ended the process: store-outage's load flake), and LISTEN comes back after an outage longer than one
 * reconnect try, telling its caller twice that notifications may have been lost (when it goes, when it is
 * back), so what was cached in between is dropped.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import pg from 'pg';
import { isStoreUnavailable } from '../../src/store/db.ts';
import { openPostgresDb } from '../../src/store/postgres-db.ts';
import type { Db } from '../../src/store/db.ts';
import { dropSchema, newSchemaName, POSTGRES_URL, postgresSkipReason } from '../support/databases.ts';
import { pollUntil } from '../support/localnet.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { systemClock } from '../../src/support/clock.ts';

describe('PostgreSQL connections cut under the store', { skip: postgresSkipReason ? `skipped: ${postgresSkipReason}` : false }, () => {
  let proxy: Awaited<ReturnType<typeof TcpProxy.start>>;
  let db: Db;
  const schema = newSchemaName();
  const uncaught: unknown[] = [];
  const onUncaught = (e: unknown) => uncaught.push(e);

  before(async () => {
    const target = new URL(POSTGRES_URL);
    proxy = await TcpProxy.start({ host: target.hostname, port: Number(target.port || 5432) });
    const viaProxy = new URL(POSTGRES_URL);
    viaProxy.hostname = '127.0.0.1';
    viaProxy.port = String(proxy.port);
    db = await openPostgresDb(viaProxy.href, { clock: systemClock, schema });
    process.on('uncaughtException', onUncaught);
  });
  after(async () => {
    process.off('uncaughtException', onUncaught);
    await proxy?.set('forward');
    await db?.close().catch(() => {});
    await proxy?.close();
    await dropSchema(schema).catch(() => {});
  });

  test('a cut inside a transaction rejects it (a store outage), never an error without a listener; the pool recovers', async () => {
    await assert.rejects(
      db.transaction(async (tx) => {
        await tx.query('SELECT 1');
        await proxy.set('refuse'); // cuts this transaction's connection between two statements
        await tx.query('SELECT 1');
      }),
      (e: unknown) => isStoreUnavailable(e),
    );
    await new Promise((r) => setTimeout(r, 200)); // an unlistened 'error' would surface by now
    assert.deepEqual(uncaught.map(String), [], 'no uncaught exception');
    await proxy.set('forward');
    assert.deepEqual((await db.query<{ one: number }>('SELECT 1 AS one')).rows, [{ one: 1 }], 'the store answers again');
  });

  test('LISTEN survives an outage longer than one reconnect try, and says so when it goes and when it is back', async () => {
    const channel = 'hush_test_cuts';
    const got: string[] = [];
    let lost = 0;
    const unlisten = await db.listen(channel, (p) => got.push(p), () => lost++);
    const direct = new pg.Client({ connectionString: POSTGRES_URL });
    await direct.connect();
    try {
      await proxy.set('refuse');
      await pollUntil(async () => lost >= 1, { what: 'the loss told', timeoutMs: 10_000, intervalMs: 50 });
      // Refused for more than two of its tries (RECONNECT_MS apart): one try, as before, gave up for good.
      await new Promise((r) => setTimeout(r, 2_500));
      assert.equal(lost, 1, 'told once while it is away');
      await proxy.set('forward');
      await pollUntil(async () => lost >= 2, { what: 'the return told', timeoutMs: 15_000, intervalMs: 50 });
      await pollUntil(
        async () => {
          await direct.query(`SELECT pg_notify($1, 'after')`, [channel]);
          return got.includes('after');
        },
        { what: 'a notification after the outage', timeoutMs: 10_000, intervalMs: 200 },
      );
      assert.deepEqual(uncaught.map(String), [], 'no uncaught exception');
    } finally {
      await direct.end();
      await unlisten();
    }
  });
});
