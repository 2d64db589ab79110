// SCRATCH (debugging store-outage flake): a proxy cut while a store transaction holds a pooled client.
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { POSTGRES_URL } from '../support/databases.ts';
import { TcpProxy } from '../support/tcp-proxy.ts';
import { openPostgresDb } from '../../src/store/postgres-db.ts';

test('cut during a transaction', async () => {
  const u = new URL(POSTGRES_URL);
  const proxy = await TcpProxy.start({ host: u.hostname, port: Number(u.port || 5432) });
  u.hostname = '127.0.0.1'; u.port = String(proxy.port);
  const db = await openPostgresDb(u.href);
  const mode = process.env.SCRATCH_MODE ?? 'between';
  const tx = db.transaction(async (q) => {
    await q.query('SELECT 1');
    if (mode === 'active') await q.query('SELECT pg_sleep(1)');
    else await new Promise((r) => setTimeout(r, 1000)); // app work between statements
    await q.query('SELECT 1');
  });
  const outcome = tx.then(() => null, (e) => e);
  await new Promise((r) => setTimeout(r, 200));
  await proxy.set('refuse');
  assert.ok(await outcome instanceof Error);
  await proxy.set('forward');
  await db.close();
  await proxy.close();
});
