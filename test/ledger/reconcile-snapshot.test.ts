/**
 * Issue 43 item 4: reconcile reads the ledger, then the chain; a transaction booked in between showed as a
 * difference with nothing pending. The books' mark is read before and after: moved, the answer says
 * `consistent: false` (ask again); unmoved, `consistent: true` and a difference is real. Real store and
 * chain; the booking in between is forced by a store handle that books a (balanced, unchecked) movement
 * right after the ledger read.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { reconcile } from '../../src/ledger/reconcile.ts';
import type { Db } from '../../src/store/db.ts';
import { recordMovement } from '../../src/store/settlement/record-movements.ts';
import { startTestHush, type TestHush } from '../support/hush-server.ts';

describe('reconcile reads ledger and chain as of one moment', () => {
  let hush: TestHush;
  before(async () => {
    hush = await startTestHush();
  });
  after(() => hush?.close());

  /** The store, booking a movement after each of the first `times` ledger reads (as a settling transaction would). */
  const bookingAfterLedgerReads = (times: number): { db: Db; reads: () => number } => {
    let reads = 0;
    const db: Db = Object.create(hush.db) as Db;
    db.query = async (sql: string, params?: unknown[]) => {
      const r = await hush.db.query(sql, params);
      if (/sum\(amount\) AS total FROM ledger_entries/.test(sql)) {
        reads++;
        if (reads <= times) {
          await recordMovement(hush.db, `test:interleaved:${Date.now()}:${reads}`, 'funding', [
            { account: 'test:a', assetId: 'sol', amount: 1n },
            { account: 'test:b', assetId: 'sol', amount: -1n },
          ]);
        }
      }
      return r as never;
    };
    return { db, reads: () => reads };
  };

  test('nothing booked between the reads: consistent, and the books agree with the chain', async () => {
    const { db, reads } = bookingAfterLedgerReads(0);
    const report = await reconcile(db, hush.hush.chain, hush.hush.treasury, hush.hush.config.assets);
    assert.equal(reads(), 1);
    assert.equal(report.consistent, true);
    assert.equal(report.ok, true, JSON.stringify(report));
  });

  test('a booking between the ledger read and the chain read: the answer says it is not one moment', async () => {
    const { db, reads } = bookingAfterLedgerReads(1);
    const report = await reconcile(db, hush.hush.chain, hush.hush.treasury, hush.hush.config.assets);
    assert.equal(reads(), 1, 'one read of each: reconcile never multiplies its chain reads');
    assert.equal(report.consistent, false);
    // Asked again with the books still: consistent.
    assert.equal((await reconcile(hush.db, hush.hush.chain, hush.hush.treasury, hush.hush.config.assets)).consistent, true);
  });
});
