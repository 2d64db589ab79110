import { createHash } from 'node:crypto';
import { cpSync, existsSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { gunzipSync } from 'node:zlib';
import { PGlite } from '@electric-sql/pglite';
import { migrationFiles } from './migrate.ts';

/**
 * A new PGlite store begins as a copy of an empty, fully migrated one, kept as PGlite's own data-dir dump
 * (dumpDataDir / loadDataDir). PGlite's initdb runs PostgreSQL's bootstrap in WASM: about 6 s of CPU per
 * new store, against about 1.5 s to load the copy — paid by every test and benchmark that starts a Hush.
 * The copy is keyed by PGlite's version and the migrations' text, so a changed migration makes a new one;
 * it is written once per machine (to a temporary name, then renamed, so concurrent starts never read half
 * a file). Its one difference from a store made from scratch: schema_migrations.applied_at is when the
 * copy was made.
 *
 * A store in a directory is made from an unpacked copy of the template instead (templateDirPath), copied
 * file by file: unpacking the dump through PGlite's file system costs about a second of CPU per store (a
 * thousand files written from JavaScript), a native copy of the directory a fifth of that.
 */
export function templatePath(dir = tmpdir()): string {
  const h = createHash('sha256').update(`pglite ${pgliteVersion()}\n`);
  for (const m of migrationFiles()) h.update(`${m.name}\n${m.sql}\n`);
  return join(dir, `hush-pglite-template-${h.digest('hex').slice(0, 16)}.tar.gz`);
}

/** The installed PGlite's version (its package.json is not among its exports: found from its entry point). */
function pgliteVersion(): string {
  let dir = dirname(createRequire(import.meta.url).resolve('@electric-sql/pglite'));
  for (;;) {
    const file = join(dir, 'package.json');
    if (existsSync(file)) {
      const pkg = JSON.parse(readFileSync(file, 'utf8')) as { name?: string; version?: string };
      if (pkg.name === '@electric-sql/pglite') return pkg.version ?? 'unknown';
    }
    if (dirname(dir) === dir) return 'unknown';
    dir = dirname(dir);
  }
}

/**
 * The templates this process has read, decompressed, by path: kept only for in-memory stores, which only tests,
 * the simulator and benchmarks open, many to a process (a running Hush opens one store, in a directory).
 */
const kept = new Map<string, Blob>();

/**
 * The template's tar, made first when missing; null when it cannot be made (the store is then made from scratch).
 * Handed to PGlite decompressed: its own gunzip, through a web stream, cost about 0.3 s of CPU per store against
 * 0.13 s for zlib's, and a store in memory (`keep`) reuses this process's copy of the tar (42 MB) for nothing.
 */
export async function pgliteTemplate(migrate: (pg: PGlite) => Promise<void>, dir?: string, keep = false): Promise<Blob | null> {
  const path = templatePath(dir);
  const known = kept.get(path);
  if (known) return known;
  let bytes: Buffer<ArrayBuffer>;
  try {
    if (!existsSync(path)) await build(path, migrate);
    bytes = readFileSync(path);
  } catch {
    return null;
  }
  let tar: Blob;
  try {
    tar = new Blob([gunzipSync(bytes)]);
  } catch {
    // Not a whole gzip: handed over as it is, for PGlite to refuse (pglite-db.ts then discards it).
    return new Blob([bytes]);
  }
  if (keep) kept.set(path, tar);
  return tar;
}

/** Where the unpacked template is kept: beside the dump, under the same key. */
export function templateDirPath(dir?: string): string {
  return templatePath(dir).replace(/\.tar\.gz$/, '.pgdata');
}

/**
 * Fills the empty directory `into` with a copy of the unpacked template, unpacked first when missing;
 * false when there is no template to copy (the caller then loads the dump or makes the store from scratch).
 */
export async function copyTemplateInto(into: string, migrate: (pg: PGlite) => Promise<void>, dir?: string): Promise<boolean> {
  const unpacked = templateDirPath(dir);
  try {
    if (!existsSync(join(unpacked, 'PG_VERSION'))) {
      const dump = await pgliteTemplate(migrate, dir);
      if (!dump) return false;
      await unpack(dump, unpacked);
    }
    cpSync(unpacked, into, { recursive: true });
    return true;
  } catch {
    return false;
  }
}

/** Unpacks the dump into a directory of a temporary name, closed cleanly, then renamed into place. */
async function unpack(dump: Blob, path: string): Promise<void> {
  const tmp = `${path}.${process.pid}.${Date.now()}`;
  const pg = new PGlite({ dataDir: tmp, loadDataDir: dump });
  try {
    await pg.waitReady;
    await pg.close();
  } catch (e) {
    await pg.close().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
    throw e;
  }
  try {
    renameSync(tmp, path);
  } catch {
    // Another start unpacked it first: theirs is as good.
    rmSync(tmp, { recursive: true, force: true });
  }
}

/** A template that PGlite could not load is removed, dump and unpacked copy, so the next start makes it again. */
export function discardTemplate(dir?: string): void {
  kept.delete(templatePath(dir));
  rmSync(templatePath(dir), { force: true });
  rmSync(templateDirPath(dir), { recursive: true, force: true });
}

async function build(path: string, migrate: (pg: PGlite) => Promise<void>): Promise<void> {
  const pg = new PGlite();
  try {
    await pg.waitReady;
    await migrate(pg);
    const dump = await pg.dumpDataDir('gzip');
    const tmp = `${path}.${process.pid}.${Date.now()}`;
    writeFileSync(tmp, Buffer.from(await dump.arrayBuffer()), { mode: 0o600 });
    renameSync(tmp, path);
  } finally {
    await pg.close();
  }
}
