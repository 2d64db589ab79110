import type { Queryable } from './db.ts';
import { every } from '../support/periodic.ts';
import type { Clock } from '../support/clock.ts';

/** How often the tables' sizes are read (one catalog statement, ~1 ms on PGlite). */
export const REPLAN_CHECK_MS = 5_000;

/** Below this many 8 KB pages a table is ignored: a scan of it costs less than planning a statement again. */
export const REPLAN_FLOOR_PAGES = 16;

/**
 * PGlite runs no autovacuum, so nothing invalidates a cached plan as the tables grow, and every statement is
 * prepared (pglite-prepared.ts): after five runs PostgreSQL keeps a statement's generic plan, and on a new
 * store that plan was made for empty tables. It scans them whole, for the life of the process: at 50,000
 * orders the pools' commitments took 16.8 ms and the class traffic 19.6 ms on the event loop, against 0.2 and
 * 0.4 ms planned again (docs/performance.md, run 18).
 *
 * So the sizes are read every REPLAN_CHECK_MS, and when a table has doubled or halved since the plans were
 * last made, `DISCARD PLANS` has every statement planned again at its next use (the prepared statements stay).
 * A cached plan then never serves a table more than twice the size it was made for, and a table that grows
 * without end is planned again a logarithmic number of times.
 */
export function replanAsTablesGrow(db: Queryable, clock: Clock, checkMs = REPLAN_CHECK_MS): Replanner {
  // As if planned at the floor: a new store's plans were made for empty tables (an existing store's first
  // check has its plans made once more, at the sizes it opened with).
  let plannedFor = new Map<string, number>();
  const check = async () => {
    const now = await tablePages(db);
    if (!outgrown(plannedFor, now)) return false;
    await db.query('DISCARD PLANS');
    plannedFor = now;
    return true;
  };
  return { stop: every(clock, checkMs, check), check };
}

export interface Replanner {
  stop(): void;
  /** One check now (the timer's): whether it had the plans made again. */
  check(): Promise<boolean>;
}

/** Whether any table has doubled or halved (counted from the floor) since `planned`. */
export function outgrown(planned: ReadonlyMap<string, number>, now: ReadonlyMap<string, number>): boolean {
  for (const [table, pages] of now) {
    const was = Math.max(planned.get(table) ?? 0, REPLAN_FLOOR_PAGES);
    if (pages > 2 * was || (was > REPLAN_FLOOR_PAGES && pages < was / 2)) return true;
  }
  return false;
}

async function tablePages(db: Queryable): Promise<Map<string, number>> {
  const { rows } = await db.query<{ t: string; pages: string }>(
    `SELECT c.relname AS t, (pg_relation_size(c.oid) / 8192)::text AS pages FROM pg_class c
      WHERE c.relnamespace = current_schema()::regnamespace AND c.relkind = 'r'`,
  );
  return new Map(rows.map((r) => [r.t, Number(r.pages)]));
}
