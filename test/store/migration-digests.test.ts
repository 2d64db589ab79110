/**
 * A migration that has run is never edited: a store already past it would never see the change (claimed_identities
 * was once added to 038 after 038 had landed). Each migration's SHA-256 is kept in migration-digests.json when it
 * is written; a change to one fails here, and the fix is a new migration. A new migration adds its line.
 */
import assert from 'node:assert/strict';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { test } from 'node:test';
import { migrationFiles } from '../../src/store/migrate.ts';

const kept = JSON.parse(readFileSync(new URL('./migration-digests.json', import.meta.url), 'utf8')) as Record<string, string>;

test('every migration is as it was when it was written, and every one is listed', () => {
  const files = migrationFiles();
  for (const m of files) {
    const digest = createHash('sha256').update(m.sql).digest('hex');
    assert.ok(kept[m.name], `${m.name} is new: add its digest (${digest}) to test/store/migration-digests.json`);
    assert.equal(digest, kept[m.name], `${m.name} was edited after it was written: put the change in a new migration`);
  }
  assert.deepEqual(Object.keys(kept).sort(), files.map((m) => m.name).sort(), 'a listed migration is gone');
});
