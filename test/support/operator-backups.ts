/**
 * The operator's own backup tools on the simulator's PostgreSQL store (docs/operations.md "Back up", "Restore"):
 * `pg_dump --format=custom --schema` while Hush runs, `pg_restore --clean --if-exists --schema` with it stopped.
 * A backup is a file; restoring it replaces the schema's every table, sequence, function and trigger.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

export interface PgDumpBackup {
  restore(): Promise<void>;
  discard(): void;
}

/** Whether pg_dump and pg_restore are on this machine (Debian's postgresql-client): the reason to skip if not. */
export async function pgToolsSkipReason(): Promise<string | undefined> {
  try {
    await run('pg_dump', ['--version']);
    await run('pg_restore', ['--version']);
    return undefined;
  } catch {
    return 'pg_dump/pg_restore are not installed (Debian: postgresql-client)';
  }
}

export async function pgDump(databaseUrl: string, schema: string): Promise<PgDumpBackup> {
  const dir = mkdtempSync(join(tmpdir(), 'hush-pg-dump-'));
  const file = join(dir, 'hush.dump');
  await run('pg_dump', ['--format=custom', `--schema=${schema}`, `--file=${file}`, databaseUrl]);
  return {
    restore: async () => void (await run('pg_restore', ['--clean', '--if-exists', `--schema=${schema}`, `--dbname=${databaseUrl}`, file])),
    discard: () => rmSync(dir, { recursive: true, force: true }),
  };
}
