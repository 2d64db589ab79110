import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { Clock } from '../support/clock.ts';
import { clockedDb } from './clocked-db.ts';
import type { Db } from './db.ts';
import { migrate, pendingMigrations } from './migrate.ts';
import { openPgliteDb } from './pglite-db.ts';
import { openPostgresDb } from './postgres-db.ts';

export interface OpenDbOptions {
  databaseUrl?: string;
  dataDir: string | null;
  poolSize?: number;
  schema?: string;
  /** The time every now() of the store's statements reads (clocked-db.ts). */
  clock: Clock;
}

/**
 * PostgreSQL when DATABASE_URL is set, else PGlite under DATA_DIR; migrated before use. Migrations run on
 * the engine as it is (their DDL takes no parameters, and reads no time); everything after, on the clock.
 */
export async function openDb(opts: OpenDbOptions): Promise<Db> {
  const db = opts.databaseUrl
    ? await openPostgresDb(opts.databaseUrl, { clock: opts.clock, max: opts.poolSize, schema: opts.schema })
    : await openPgliteDb(opts.dataDir === null ? null : join(opts.dataDir, 'pgdata'), { clock: opts.clock });
  await migrate(db);
  return clockedDb(db, opts.clock);
}

/** There is no (up-to-date) Hush store where the settings point: the message names the place and the fix. */
export class NoStoreError extends Error {}

/** A PostgreSQL URL for messages: host, port and database, never the user, password or options. */
function postgresWhere(url: string): string {
  try {
    const u = new URL(url);
    return `${u.protocol}//${u.host}${u.pathname}`;
  } catch {
    return 'DATABASE_URL';
  }
}

/** The schema the connection searches first (current_schema() is null when that schema does not exist). */
async function schemaOf(db: Db): Promise<string> {
  const { rows } = await db.query<{ s: string | null; p: string }>(`SELECT current_schema() AS s, current_setting('search_path') AS p`);
  return rows[0]?.s ?? rows[0]?.p.split(',')[0]?.trim().replace(/^"|"$/g, '') ?? 'public';
}

/**
 * An existing store, for reading (the admin CLI's read-only commands): nothing is created or migrated, not
 * even the PGlite directory or the PostgreSQL schema. Where no migrated Hush store is (a mistyped schema
 * or DATA_DIR), throws NoStoreError instead of answering from an empty one.
 */
export async function openExistingDb(opts: OpenDbOptions & { dataDir: string }): Promise<Db> {
  const fix = 'check DATABASE_URL / DATA_DIR';
  const pgdata = join(opts.dataDir, 'pgdata');
  if (!opts.databaseUrl && !existsSync(join(pgdata, 'PG_VERSION'))) throw new NoStoreError(`no Hush store at ${pgdata} (no PGlite store there): ${fix}`);
  const db = opts.databaseUrl
    ? await openPostgresDb(opts.databaseUrl, { clock: opts.clock, max: opts.poolSize, schema: opts.schema, createSchema: false })
    : await openPgliteDb(pgdata, { clock: opts.clock });
  try {
    const pending = await pendingMigrations(db);
    const where = opts.databaseUrl ? postgresWhere(opts.databaseUrl) : pgdata;
    if (pending === null) throw new NoStoreError(`no Hush store at ${where} (schema ${opts.schema ?? (await schemaOf(db))} has no migrations table): ${fix}`);
    if (pending.length > 0) throw new NoStoreError(`the Hush store at ${where} lacks migration(s) ${pending.join(', ')}: start this version of Hush once (it migrates the store), then retry`);
    return clockedDb(db, opts.clock);
  } catch (e) {
    await db.close().catch(() => {});
    throw e;
  }
}
