import { existsSync, mkdirSync, readdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { Clock } from '../support/clock.ts';
import type { Db, Queryable } from './db.ts';
import { lockDirectory } from './directory-lock.ts';
import { migrate } from './migrate.ts';
import { preparedStatements } from './pglite-prepared.ts';
import { replanAsTablesGrow } from './pglite-replan.ts';
import { keepSpare, takeSpare } from './pglite-spares.ts';
import { copyTemplateInto, discardTemplate, pgliteTemplate } from './pglite-template.ts';

interface TemplateOptions {
  /** Whose time paces the re-plan check (pglite-replan.ts). */
  clock: Clock;
  fromScratch?: boolean;
  /** Where the template is kept (default: the OS's temporary directory). */
  templateDir?: string;
  /** How often the tables' sizes are checked for plans made for smaller ones (pglite-replan.ts); a test that checks by itself passes a long one. */
  replanCheckMs?: number;
}

/**
 * Embedded Postgres (WASM) in a directory; `dir` null keeps it in memory (tests). A new store is made from
 * the migrated template unless `fromScratch` (the migration tests' empty database).
 */
export async function openPgliteDb(dir: string | null, opts: TemplateOptions): Promise<Db> {
  if (dir) mkdirSync(dir, { recursive: true, mode: 0o700 });
  const release = dir ? lockDirectory(`${dir}.lock`, `The PGlite store ${dir}`) : () => {};
  let pg: PGlite;
  try {
    // A spare was made from the default template: a store asked of another template, or of none, is made anew.
    pg = (dir === null && opts.fromScratch !== true && opts.templateDir === undefined ? takeSpare() : undefined) ?? (await startPglite(dir, opts));
  } catch (e) {
    release();
    throw e;
  }
  // A new 16 MB WAL segment is otherwise zero-filled before use: a 50–200 ms stall of the one thread
  // every statement runs on, at random under load. Skipping the fill changes no durability guarantee
  // (PostgreSQL's own option; the zeroes only pre-allocate space). PGlite has a single session.
  await pg.exec('SET wal_init_zero = off');
  const db = pgliteDb(pg, release, dir === null);
  const replanner = replanAsTablesGrow(db, opts.clock, opts.replanCheckMs);
  return {
    ...db,
    close: async () => {
      replanner.stop();
      await db.close();
    },
  };
}

/** A new store starts from the migrated template (pglite-template.ts); an existing one opens as it is. */
async function startPglite(dir: string | null, opts: TemplateOptions): Promise<PGlite> {
  const fresh = opts.fromScratch !== true && (dir === null || !existsSync(join(dir, 'PG_VERSION')));
  const migrateRaw = async (raw: PGlite) => void (await migrate(pgliteDb(raw, () => {}, false)));
  if (fresh && dir !== null && (await copyTemplateInto(dir, migrateRaw, opts.templateDir))) {
    const pg = await tryStart(() => new PGlite(dir), dir, opts);
    if (pg) return pg;
  }
  const template = fresh ? await pgliteTemplate(migrateRaw, opts.templateDir, dir === null) : null;
  if (template) {
    const pg = await tryStart(() => new PGlite({ dataDir: dir ?? undefined, loadDataDir: template, ...inMemory(dir) }), dir, opts);
    if (pg) return pg;
  }
  const pg = new PGlite({ dataDir: dir ?? undefined, ...inMemory(dir) });
  await pg.waitReady;
  return pg;
}

/**
 * A store in memory (tests, the simulator, a benchmark: never a running Hush's) keeps 16 MB of PostgreSQL's
 * buffers, not the 128 MB its configuration names: PostgreSQL clears its buffers' memory as it starts, about
 * 0.13 s of CPU per store at 128 MB, and hundreds of stores are started in a test run. Their files are in memory
 * too (PGlite's own file system), and no test store holds 16 MB of tables. Nothing SQL answers depends on it.
 */
function inMemory(dir: string | null): { startParams?: string[] } {
  return dir === null ? { startParams: [...PGlite.defaultStartParams, '-c', 'shared_buffers=16MB'] } : {};
}

/** A store started from the template, or null when PGlite could not load it: the template is then discarded. */
async function tryStart(open: () => PGlite, dir: string | null, opts: TemplateOptions): Promise<PGlite | null> {
  const pg = open();
  try {
    await pg.waitReady;
    return pg;
  } catch {
    await pg.close().catch(() => {});
    discardTemplate(opts.templateDir);
    // The directory was new: what the failed load left in it is worth nothing.
    if (dir) for (const f of readdirSync(dir)) rmSync(join(dir, f), { recursive: true, force: true });
    return null;
  }
}

/**
 * `pg` behind the Db port. Closed, it refuses every call: an in-memory store's PGlite lives on as a spare
 * (pglite-spares.ts), and a loop of a stopped process must never write into the next store.
 */
function pgliteDb(pg: PGlite, release: () => void, recycle: boolean): Db {
  const prepared = preparedStatements(pg);
  let closed = false;
  const open = () => {
    // PGlite's own words (db.ts isStoreUnavailable: a 503, not a 500), whether or not the PGlite lives on as a spare.
    if (closed) throw new Error('PGlite is closed');
  };
  const unlistens = new Set<() => Promise<void>>();
  // Same meaning as pg's rowCount: rows returned when there are any (SELECT, RETURNING, a CTE's final
  // SELECT), else rows affected. PGlite reports affectedRows 0 for those, not undefined.
  const counted = <T>(r: { rows: T[]; affectedRows?: number }) => ({ rows: r.rows, rowCount: r.rows.length > 0 ? r.rows.length : (r.affectedRows ?? 0) });
  const inTransaction: Queryable = {
    query: async (sql, params) => {
      open();
      return counted(await prepared.queryInTransaction(sql, params));
    },
  };
  return {
    kind: 'pglite',
    query: async (sql, params) => {
      open();
      return counted(await prepared.query(sql, params));
    },
    transaction: async (fn) => {
      open();
      return await pg.transaction(() => fn(inTransaction));
    },
    listen: async (channel, onNotify) => {
      open();
      const unlisten = await pg.listen(channel, onNotify);
      unlistens.add(unlisten);
      return async () => {
        unlistens.delete(unlisten);
        await unlisten();
      };
    },
    exec: async (sql) => {
      open();
      // A script may change the schema, and a prepared statement's result type may not change under it.
      await prepared.forgetAll();
      await pg.exec(sql);
    },
    close: async () => {
      if (closed) return;
      closed = true;
      try {
        if (recycle) {
          for (const unlisten of unlistens) await unlisten().catch(() => {});
          if (await keepSpare(pg)) return;
        }
        await pg.close();
      } finally {
        release();
      }
    },
  };
}
