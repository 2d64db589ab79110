import pg from 'pg';
import type { Clock } from '../support/clock.ts';
import type { Db, Queryable } from './db.ts';

/** Between tries to get a lost LISTEN connection back. */
const RECONNECT_MS = 1_000;

/** A PostgreSQL server through a connection pool. */
/** `createSchema: false` (read-only opens): a missing schema stays missing. */
export async function openPostgresDb(url: string, opts: { clock: Clock; max?: number; schema?: string; createSchema?: boolean }): Promise<Db> {
  if (opts.schema !== undefined && !/^[a-z_][a-z0-9_]{0,62}$/.test(opts.schema)) throw new Error(`invalid schema name "${opts.schema}"`);
  if (opts.schema && opts.createSchema !== false) {
    // A private schema (tests, side-by-side deployments): every pooled connection searches it first.
    const setup = new pg.Client({ connectionString: url });
    await setup.connect();
    await setup
      .query(`CREATE SCHEMA IF NOT EXISTS ${opts.schema}`)
      .catch((e: { code?: string }) => {
        // Concurrent starts race on the catalog: the loser gets a unique violation (or duplicate_schema),
        // but the schema exists then, which is all this statement wanted.
        if (e?.code !== '23505' && e?.code !== '42P06') throw e;
      })
      .finally(() => setup.end());
  }
  // A server that does not answer fails a request after 5 s (503) instead of holding it indefinitely.
  const pool = new pg.Pool({
    connectionString: url,
    max: opts.max ?? 10,
    connectionTimeoutMillis: 5_000,
    ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}),
  });
  // An idle client that errors (server restart) must not crash the process; the pool replaces it.
  pool.on('error', () => {});
  const wrap = (c: pg.Pool | pg.PoolClient): Queryable => ({
    async query<T>(sql: string, params?: unknown[]) {
      const r = await c.query(sql, params as unknown[]);
      return { rows: r.rows as T[], rowCount: r.rowCount ?? 0 };
    },
  });
  const base = wrap(pool);
  await base.query('SELECT 1');
  return {
    kind: 'postgres',
    query: base.query,
    async transaction(fn) {
      const client = await pool.connect();
      // The pool takes its own 'error' listener off a client while it is checked out: a connection cut
      // during the transaction (between statements or in one) would emit 'error' to no listener and end
      // the process. Caught here, the transaction's next statement rejects (a 503), and the client is
      // released as broken so the pool drops it.
      let cut: Error | undefined;
      const onCut = (e: Error) => (cut ??= e);
      client.on('error', onCut);
      try {
        await client.query('BEGIN');
        const out = await fn(wrap(client));
        // A transaction that hit an error (one the callback caught) answers COMMIT with ROLLBACK and no
        // error: its caller would act on records that do not exist. PGlite raises here; so do we.
        const commit = await client.query('COMMIT');
        if (commit.command === 'ROLLBACK') throw new Error('Transaction was rolled back instead of committed');
        return out;
      } catch (e) {
        await client.query('ROLLBACK').catch(() => {});
        throw e;
      } finally {
        client.removeListener('error', onCut);
        client.release(cut);
      }
    },
    async listen(channel, onNotify, onLost) {
      if (!/^[a-z_][a-z0-9_]*$/.test(channel)) throw new Error(`invalid channel ${channel}`);
      let client: pg.Client | null = null;
      let stopped = false;
      // A dedicated connection: LISTEN holds it. After an error it reconnects, every RECONNECT_MS until
      // it succeeds (an outage longer than one try must not end notifications for the process's life);
      // onLost tells the caller that notifications may have been lost, when the connection goes and
      // again once it is back (what the caller cached in between was never notified).
      const connect = async (): Promise<void> => {
        const c = new pg.Client({ connectionString: url, ...(opts.schema ? { options: `-c search_path=${opts.schema}` } : {}) });
        c.on('notification', (n) => n.channel === channel && onNotify(n.payload ?? ''));
        c.on('error', () => {
          c.end().catch(() => {});
          if (client !== c) return; // a connect that failed: its caller tries again
          client = null;
          onLost?.();
          reconnect();
        });
        try {
          await c.connect();
          await c.query(`LISTEN ${channel}`);
        } catch (e) {
          c.end().catch(() => {});
          throw e;
        }
        if (stopped) return void c.end().catch(() => {});
        client = c;
      };
      const reconnect = (): void => {
        if (stopped) return;
        opts.clock.after(RECONNECT_MS, () => {
          if (stopped) return;
          connect().then(() => onLost?.(), reconnect);
        });
      };
      await connect();
      return async () => {
        stopped = true;
        await client?.end().catch(() => {});
      };
    },
    exec: async (sql) => {
      await pool.query(sql);
    },
    close: () => pool.end(),
  };
}
