/**
 * `npm start` refusing to start: one line naming the cause on stderr, exit code 1, no stack trace and no
 * secret from the environment.
 */
import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { makeTempDir, removeDir } from '../support/localnet.ts';

function start(env: Record<string, string>) {
  const dataDir = makeTempDir('hush-start-cli-');
  try {
    const r = spawnSync(process.execPath, ['--import', 'tsx', 'src/cli/start.ts'], {
      env: { ...process.env, DATA_DIR: dataDir, PORT: '0', LOCALNET_PORT: '0', DATABASE_URL: '', REDIS_URL: '', SOLANA_RPC_URL: '', ...env },
      encoding: 'utf8',
      timeout: 60_000,
    });
    return { status: r.status, stderr: r.stderr.trim() };
  } finally {
    removeDir(dataDir);
  }
}

for (const [env, cause] of [
  [{ HUSH_PAYOUT_DELAY_S: '30-5' }, /HUSH_PAYOUT_DELAY_S/],
  [{ DATABASE_URL: 'mysql://hush:s3cr3t@db/x' }, /DATABASE_URL must be a postgres/],
  [{ DATABASE_URL: 'postgres://hush:s3cr3t@127.0.0.1:1/x' }, /ECONNREFUSED/],
  [{ TREASURY_SEED: 'zz' }, /TREASURY_SEED/],
] as const) {
  test(`a start that fails on ${JSON.stringify(env)} says why in one line and exits 1`, () => {
    const r = start(env as Record<string, string>);
    assert.equal(r.status, 1, r.stderr);
    const lines = r.stderr.split('\n').filter((l) => l.startsWith('hush:') || /^\s+at /.test(l) || /Error/.test(l));
    assert.equal(lines.length, 1, `one line, no stack:\n${r.stderr}`);
    assert.match(lines[0]!, /^hush: cannot start: /);
    assert.match(lines[0]!, cause);
    assert.ok(!r.stderr.includes('s3cr3t'), 'no secret from the environment');
  });
}
