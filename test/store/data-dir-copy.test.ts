/**
 * docs/operations.md "Back up" for the default store: stop Hush, copy DATA_DIR whole, start again. The copy, put back
 * in place of the directory, opens (no lock left behind) as the store was when it was taken; what was written after
 * is gone, which is what the chain check then settles (test/settlement/restore-drills.test.ts).
 */
import assert from 'node:assert/strict';
import { cpSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'node:test';
import { openDb } from '../../src/store/open-db.ts';
import { systemClock } from '../../src/support/clock.ts';
import { orderIn } from '../support/settlement-fixtures.ts';

const trackingIds = async (db: Awaited<ReturnType<typeof openDb>>) =>
  (await db.query<{ tracking_id: string }>('SELECT tracking_id FROM orders ORDER BY tracking_id')).rows.map((r) => r.tracking_id);

test('a copy of a stopped DATA_DIR, put back, opens as the store was when it was copied', { timeout: 120_000 }, async () => {
  const root = mkdtempSync(join(tmpdir(), 'hush-data-dir-'));
  const dataDir = join(root, 'data');
  const copy = join(root, 'backup');
  try {
    let db = await openDb({ dataDir, clock: systemClock });
    const before = (await orderIn(db, 'deposit_confirmed')).order.trackingId;
    await db.close();
    cpSync(dataDir, copy, { recursive: true });

    db = await openDb({ dataDir, clock: systemClock });
    const after = (await orderIn(db, 'completed')).order.trackingId;
    assert.deepEqual((await trackingIds(db)).sort(), [before, after].sort());
    await db.close();

    rmSync(dataDir, { recursive: true });
    cpSync(copy, dataDir, { recursive: true });
    db = await openDb({ dataDir, clock: systemClock });
    try {
      assert.deepEqual(await trackingIds(db), [before], 'the order written after the copy is gone');
      const { rows } = await db.query<{ status: string }>('SELECT status FROM orders WHERE tracking_id = $1', [before]);
      assert.equal(rows[0]!.status, 'deposit_confirmed');
    } finally {
      await db.close();
    }
  } finally {
    rmSync(root, { recursive: true, force: true });
  }
});
