/**
 * Treasury funding from the local faucet survives a crash: Hush (a real child process, embedded chain,
 * PGlite) is SIGKILLed after its first start's airdrops confirmed and before their ledger entries were
 * written. The next start on the same DATA_DIR must put them on the ledger, so reconcile is clean.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { spawnHush } from '../support/hush-process.ts';
import { makeTempDir, removeDir } from '../support/localnet.ts';
import { waitForCleanReconcile } from '../support/settlement.ts';

test('a crash between the funding airdrops and their ledger entries: the next start records them', { timeout: 240_000 }, async () => {
  const dataDir = makeTempDir('hush-funding-crash-');
  const adminToken = randomBytes(32).toString('base64url');
  const env = { DATA_DIR: dataDir, PORT: '0', LOCALNET_PORT: '0', LOCALNET_SLOT_MS: '100', HUSH_ADMIN_TOKEN: adminToken };
  try {
    // First life: dies at the fault point, during start-up (before it ever listens).
    const first = await spawnHush({ ...env, HUSH_FAULT: 'funding-confirmed' }, { label: 'first life' }).then(
      () => assert.fail('the first life should have died while funding'),
      (e: Error) => e,
    );
    assert.match(first.message, /exited before it was ready \(SIGKILL\)/);
    // Second life: settles the airdrops the first one left, and funds nothing twice.
    const second = await spawnHush(env, { label: 'second life' });
    try {
      const report = await waitForCleanReconcile(second.opsUrl, adminToken, 60_000);
      assert.equal(report.ok, true, 'every funded wallet is on the ledger');
    } finally {
      await second.stop('SIGTERM');
    }
  } finally {
    removeDir(dataDir);
  }
});
