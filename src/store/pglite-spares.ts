import type { PGlite } from '@electric-sql/pglite';

/**
 * Closed in-memory PGlite stores, emptied and kept for the next in-memory store of this process. Only tests,
 * the simulator and benchmarks open a store in memory (a running Hush always has a directory), and they open
 * hundreds, one after another: a new one costs about 1.7 s of CPU (a WASM instance, PostgreSQL's start, the
 * template's thousand files loaded through PGlite's file system), emptying a used one about 0.1 s.
 *
 * An emptied store is the template again, as far as anything Hush reads can tell: the session is reset
 * (open transaction rolled back, settings, LISTENs, advisory locks, cached plans), every table but
 * schema_migrations is truncated with its sequences restarted, and the planner's statistics on them are
 * dropped (a truncated table's size is reset by TRUNCATE itself). Migrations write no rows of their own but
 * schema_migrations' (test/store/pglite-spares.test.ts holds both to a store made from the template).
 * What differs is invisible to SQL Hush runs: transaction ids and relation file numbers go on counting.
 */
let kept = 0;
const spares: PGlite[] = [];

/**
 * From now on keeps up to `max` closed in-memory stores of this process (none unless asked: a live PGlite
 * keeps its process running — PostgreSQL's idle timers are ref'd timeouts in PGlite — so whoever asks
 * closes them, with closeSpares, before the process should end).
 */
export function keepClosedMemoryStores(max: number): void {
  kept = max;
}

/**
 * Closed since the last closeSpares with no store opened after it: a store closed now is closed for good (a
 * test file's own `after` hooks may close its stores after its support modules' cleanup has run).
 */
let draining = false;

/** Closes every kept store, and every in-memory store closed from now until the next one opens. */
export async function closeSpares(): Promise<void> {
  draining = true;
  for (const pg of spares.splice(0)) await pg.close().catch(() => {});
}

/** A spare emptied store, or undefined when there is none. */
export function takeSpare(): PGlite | undefined {
  draining = false;
  return spares.pop();
}

/** Empties `pg` and keeps it; false (and `pg` is the caller's to close) when it cannot be emptied or enough are kept. */
export async function keepSpare(pg: PGlite): Promise<boolean> {
  if (draining || spares.length >= kept || pg.closed) return false;
  try {
    await empty(pg);
  } catch {
    return false;
  }
  spares.push(pg);
  return true;
}

async function empty(pg: PGlite): Promise<void> {
  // Outside a transaction ROLLBACK only warns. DISCARD ALL but its DEALLOCATE ALL: the named statements stay
  // prepared for the next store (pglite-prepared.ts keeps them per PGlite), planned again at their next use.
  await pg.exec('ROLLBACK');
  await pg.exec('CLOSE ALL; SET SESSION AUTHORIZATION DEFAULT; RESET ALL; UNLISTEN *; SELECT pg_advisory_unlock_all(); DISCARD PLANS; DISCARD TEMP; DISCARD SEQUENCES;');
  const { rows } = await pg.query<{ t: string | null; ids: string | null }>(
    `SELECT string_agg(format('%I', c.relname), ', ') AS t, string_agg(c.oid::text, ',') AS ids FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind IN ('r', 'p') AND c.relname <> 'schema_migrations'`,
  );
  const tables = rows[0]?.t;
  if (!tables) return;
  await pg.exec(`TRUNCATE ${tables} RESTART IDENTITY CASCADE; DELETE FROM pg_statistic WHERE starelid IN (${rows[0]!.ids});`);
}

/** How many emptied stores are kept (tests). */
export function keptSpares(): number {
  return spares.length;
}
