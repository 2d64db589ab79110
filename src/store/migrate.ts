import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { dirname, join } from 'node:path';
import type { Db, Queryable } from './db.ts';

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');
/** Arbitrary constant naming the migration lock among all Hush processes sharing a database. */
const MIGRATION_LOCK = 87870001;

export function migrationFiles(): { version: number; name: string; sql: string }[] {
  return readdirSync(MIGRATIONS_DIR)
    .filter((f) => /^\d{3}-[a-z0-9-]+\.sql$/.test(f))
    .sort()
    .map((f) => ({ version: Number(f.slice(0, 3)), name: f, sql: readFileSync(join(MIGRATIONS_DIR, f), 'utf8') }));
}

/**
 * Applies numbered forward-only migrations. Each one runs in a transaction that first takes a
 * transaction-scoped advisory lock, so concurrent starts serialize and apply every migration once.
 * `db` is the engine itself, not the store on the clock (open-db.ts): a migration's DDL cannot take the
 * parameter a bound now() would be, so `applied_at` is the server's time, the wall time of the deployment.
 */
export async function migrate(db: Db): Promise<number[]> {
  // Under the lock too: concurrent CREATE TABLE IF NOT EXISTS can collide in the catalog (23505, or 42710
  // on the table's row type).
  await db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await tx.query(`CREATE TABLE IF NOT EXISTS schema_migrations (version integer PRIMARY KEY, name text NOT NULL, applied_at timestamptz NOT NULL)`);
  });
  await refuseNewerSchema(db);
  const applied: number[] = [];
  for (const m of migrationFiles()) {
    const done = await db.transaction(async (tx) => {
      await tx.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
      const { rows } = await tx.query('SELECT 1 FROM schema_migrations WHERE version = $1', [m.version]);
      if (rows.length > 0) return false;
      for (const statement of splitStatements(m.sql)) await tx.query(statement);
      await tx.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())', [m.version, m.name]);
      return true;
    });
    if (done) applied.push(m.version);
  }
  return applied;
}

/** Thrown when the store was migrated by a newer Hush: this code would read and write tables it does not know. */
export class SchemaNewerError extends Error {
  constructor(readonly unknown: { version: number; name: string }[]) {
    super(`the store's schema is newer than this code: migration${unknown.length > 1 ? 's' : ''} ${unknown.map((u) => `${u.version} (${u.name})`).join(', ')} unknown here; run the Hush that migrated it (docs/operations.md "Schema newer than the code")`);
    this.name = 'SchemaNewerError';
  }
}

/** A store with a migration this code does not have (a rollback of the code, not of the store): refused, before anything runs. */
export async function refuseNewerSchema(db: Queryable): Promise<void> {
  const known = new Set(migrationFiles().map((m) => m.version));
  const { rows } = await db.query<{ version: number; name: string }>('SELECT version, name FROM schema_migrations ORDER BY version');
  const unknown = rows.map((r) => ({ version: Number(r.version), name: r.name })).filter((r) => !known.has(r.version));
  if (unknown.length > 0) throw new SchemaNewerError(unknown);
}

/**
 * The migrations a store lacks, or null when it has no migrations table (no Hush store there at all).
 * Reads only: a read-only open checks with it and creates nothing.
 */
export async function pendingMigrations(db: Queryable): Promise<number[] | null> {
  const { rows } = await db.query<{ t: string | null }>(`SELECT to_regclass('schema_migrations')::text AS t`);
  if (!rows[0]?.t) return null;
  const applied = new Set((await db.query<{ version: number }>('SELECT version FROM schema_migrations')).rows.map((r) => Number(r.version)));
  return migrationFiles()
    .map((m) => m.version)
    .filter((v) => !applied.has(v));
}

/**
 * Statements end with a semicolon at a line end, except inside a $$-quoted function body (PGlite's
 * extended protocol takes one statement per query).
 */
function splitStatements(sql: string): string[] {
  const statements: string[] = [];
  let pending = '';
  for (const part of sql.split(/;\s*$/m)) {
    pending += pending ? `;${part}` : part;
    if ((pending.match(/\$\$/g) ?? []).length % 2 === 0) {
      statements.push(pending);
      pending = '';
    }
  }
  if (pending) statements.push(pending);
  return statements.map((s) => s.replace(/^\s*--.*$/gm, '').trim()).filter((s) => s.length > 0);
}
