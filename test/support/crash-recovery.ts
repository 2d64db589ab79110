/** What the SIGKILL crash tests share: reading a crashed store, and the checks that close a recovery. */
import assert from 'node:assert/strict';
import { cpSync } from 'node:fs';
import { join } from 'node:path';
import type { Address } from '@solana/kit';
import { openDb } from '../../src/store/open-db.ts';
import { systemClock } from '../../src/support/clock.ts';
import type { Db } from '../../src/store/db.ts';
import type { HushProcess } from './hush-process.ts';
import { makeTempDir, pollUntil, removeDir } from './localnet.ts';
import { accountExists, waitForCleanReconcile, type Chain } from './settlement.ts';

/** Runs `fn` on the store of DATA_DIR `dataDir`, closed after. */
export async function withStore<T>(dataDir: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const db = await openDb({ dataDir, clock: systemClock });
  try {
    return await fn(db);
  } finally {
    await db.close();
  }
}

/** Runs `fn` on a copy of a crashed process's store, so the original is left for Hush to recover itself. */
export async function withCrashedStoreCopy<T>(dataDir: string, fn: (db: Db) => Promise<T>): Promise<T> {
  const copy = makeTempDir('hush-crash-copy-');
  try {
    cpSync(join(dataDir, 'pgdata'), join(copy, 'pgdata'), { recursive: true });
    return await withStore(copy, fn);
  } finally {
    removeDir(copy);
  }
}

/**
 * The end of a recovery: the deposit accounts swept (once every handed-out transaction is dead), the
 * ledger reconciled with the chain, and a SIGTERM shutting the process down cleanly.
 */
export async function sweptReconciledStopped(p: HushProcess, chain: Chain, depositAccounts: string[], adminToken: string, what: string): Promise<void> {
  await pollUntil(async () => (await Promise.all(depositAccounts.map((a) => accountExists(chain, a as Address)))).every((x) => !x), {
    timeoutMs: 90_000,
    intervalMs: 200,
    what: `${what}: deposits swept (once every handed-out transaction is dead)`,
  });
  await waitForCleanReconcile(p.opsUrl, adminToken, 30_000);
  const stop = await p.stop('SIGTERM');
  assert.deepEqual(stop, { code: 0, signal: null }, `clean shutdown:\n${p.output().slice(-2000)}`);
}
