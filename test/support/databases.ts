/**
 * Real databases for store-level tests: every suite written with `forEachEngine` runs once against an
 * in-memory PGlite and once against PostgreSQL (a private, randomly named schema that is dropped
 * afterwards). When PostgreSQL is not reachable the Postgres variant is skipped with the reason.
 *
 * PostgreSQL URL: HUSH_TEST_DATABASE_URL, default postgres://postgres@127.0.0.1:5432/test. DATABASE_URL
 * is deliberately NOT used, so a developer's real database is never touched by the suite.
 */
import { randomBytes } from 'node:crypto';
import { after, before, describe } from 'node:test';
import { afterTestFile } from './after-test-file.ts';
import './store-spares.ts';
import pg from 'pg';
import type { Db } from '../../src/store/db.ts';
import { openDb } from '../../src/store/open-db.ts';
import { systemClock, type Clock } from '../../src/support/clock.ts';

export type Engine = 'pglite' | 'postgres';

export const POSTGRES_URL = process.env.HUSH_TEST_DATABASE_URL || 'postgres://postgres@127.0.0.1:5432/test';

/** The URL without its password, for messages. */
export function redactedPostgresUrl(url = POSTGRES_URL): string {
  try {
    const u = new URL(url);
    if (u.password) u.password = '***';
    return u.toString();
  } catch {
    return '(unparseable URL)';
  }
}

// A server that is not there refuses at once; a loaded machine can take seconds to accept (2 s skipped whole
// suites silently under load).
async function probePostgres(): Promise<string | undefined> {
  const client = new pg.Client({ connectionString: POSTGRES_URL, connectionTimeoutMillis: 15_000 });
  client.on('error', () => {});
  try {
    await client.connect();
    await client.query('SELECT 1');
    return undefined;
  } catch (e) {
    const err = e as { code?: string; message?: string };
    return `PostgreSQL not reachable at ${redactedPostgresUrl()} (${err.code ?? err.message ?? String(e)}); set HUSH_TEST_DATABASE_URL to run these cases`;
  } finally {
    await client.end().catch(() => {});
  }
}

/** Why the Postgres variants are skipped, or undefined when PostgreSQL answers. */
export const postgresSkipReason: string | undefined = await probePostgres();

export const ENGINES: readonly Engine[] = ['pglite', 'postgres'];

export function newSchemaName(): string {
  return `hush_test_${randomBytes(6).toString('hex')}`;
}

export async function dropSchema(schema: string): Promise<void> {
  if (!/^hush_test_[a-f0-9]{12}$/.test(schema)) throw new Error(`refusing to drop schema "${schema}"`);
  const client = new pg.Client({ connectionString: POSTGRES_URL });
  await client.connect();
  try {
    await client.query(`DROP SCHEMA IF EXISTS ${schema} CASCADE`);
  } finally {
    await client.end();
  }
}

export interface TestDatabase {
  engine: Engine;
  db: Db;
  /** The private schema on PostgreSQL; undefined on PGlite. */
  schema?: string;
  close(): Promise<void>;
}

/** A fresh, migrated, empty database of the engine; its now() is `clock`'s (the system's unless given). */
export async function openTestDb(engine: Engine, opts: { poolSize?: number; clock?: Clock } = {}): Promise<TestDatabase> {
  const clock = opts.clock ?? systemClock;
  if (engine === 'pglite') {
    const db = await openDb({ dataDir: null, clock });
    return { engine, db, close: () => db.close() };
  }
  const schema = newSchemaName();
  let db: Db;
  try {
    db = await openDb({ databaseUrl: POSTGRES_URL, dataDir: null, schema, poolSize: opts.poolSize ?? 5, clock });
  } catch (e) {
    await dropSchema(schema).catch(() => {});
    throw e;
  }
  return {
    engine,
    db,
    schema,
    close: async () => {
      await db.close().catch(() => {});
      await dropSchema(schema);
    },
  };
}

export interface EngineContext {
  readonly engine: Engine;
  /**
   * The engine's shared database for this test file: opened before the suite's first test, closed when
   * the file's tests are done. Suites in one file share it (a fresh PGlite costs seconds), so tests use
   * their own accounts; use `fresh()` when a test needs an empty store.
   */
  readonly db: Db;
  /** Another fresh database of the same engine, closed when the suite ends (on `clock` when given). */
  fresh(opts?: { poolSize?: number; clock?: Clock }): Promise<TestDatabase>;
  /** Registers cleanup to run when the suite ends. */
  defer(fn: () => Promise<void> | void): void;
}

const shared = new Map<Engine, Promise<TestDatabase>>();

function sharedDb(engine: Engine): Promise<TestDatabase> {
  let p = shared.get(engine);
  if (!p) {
    p = openTestDb(engine);
    shared.set(engine, p);
  }
  return p;
}

// Runs once this file's tests are done.
afterTestFile(async () => {
  for (const p of shared.values()) await (await p.catch(() => undefined))?.close();
  shared.clear();
});

/**
 * Declares `suite` once per engine, as `<title> [pglite]` and `<title> [postgres]`. The Postgres copy
 * is skipped, with the reason, when the server does not answer.
 */
export function forEachEngine(title: string, suite: (ctx: EngineContext) => void): void {
  for (const engine of ENGINES) {
    const skip = engine === 'postgres' ? postgresSkipReason : undefined;
    describe(`${title} [${engine}]`, { skip: skip ?? false }, () => {
      let main: TestDatabase | undefined;
      const cleanups: (() => Promise<void> | void)[] = [];
      const ctx: EngineContext = {
        engine,
        get db(): Db {
          if (!main) throw new Error(`${engine} test database is not open`);
          return main.db;
        },
        async fresh(opts) {
          const t = await openTestDb(engine, opts);
          cleanups.push(() => t.close());
          return t;
        },
        defer(fn) {
          cleanups.push(fn);
        },
      };
      before(async () => {
        main = await sharedDb(engine);
      });
      after(async () => {
        for (const fn of cleanups.reverse()) await fn();
      });
      suite(ctx);
    });
  }
}
