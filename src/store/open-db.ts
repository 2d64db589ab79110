import { join } from 'node:path';
import type { Db } from './db.ts';
import { migrate } from './migrate.ts';
import { openPgliteDb } from './pglite-db.ts';
import { openPostgresDb } from './postgres-db.ts';

/** PostgreSQL when DATABASE_URL is set, else PGlite under DATA_DIR; migrated before use. */
export async function openDb(opts: { databaseUrl?: string; dataDir: string | null; poolSize?: number; schema?: string }): Promise<Db> {
  const db = opts.databaseUrl
    ? await openPostgresDb(opts.databaseUrl, { max: opts.poolSize, schema: opts.schema })
    : await openPgliteDb(opts.dataDir === null ? null : join(opts.dataDir, 'pgdata'));
  await migrate(db);
  return db;
}
