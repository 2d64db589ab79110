/** docs/operations.md "Rotate the treasury seed", embedded mode: npm run treasury:rotate and the seeds a worker then loads. */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, describe, it } from 'node:test';
import { lockDirectory } from '../../src/store/directory-lock.ts';
import { rotateSeedFile, RETIRED_SEED_FILE } from '../../src/treasury/seed-rotation.ts';
import { loadRetiredSeeds, loadTreasurySeed } from '../../src/treasury/treasury-keys.ts';

const run = promisify(execFile);
const dirs: string[] = [];
const fresh = () => {
  const d = mkdtempSync(join(tmpdir(), 'hush-rotate-'));
  dirs.push(d);
  return d;
};
after(() => dirs.forEach((d) => rmSync(d, { recursive: true, force: true })));

describe('treasury seed rotation, embedded mode', () => {
  it('the current seed joins the retired ones (0600) and a new one replaces it; each rotation keeps every earlier seed', () => {
    const dir = fresh();
    const first = loadTreasurySeed({ dataDir: dir });
    assert.deepEqual(loadRetiredSeeds({ dataDir: dir }), [], 'nothing retired before a rotation');
    rotateSeedFile(dir);
    const second = loadTreasurySeed({ dataDir: dir });
    assert.notDeepEqual(second, first);
    assert.deepEqual(loadRetiredSeeds({ dataDir: dir }), [first]);
    assert.equal(statSync(join(dir, RETIRED_SEED_FILE)).mode & 0o777, 0o600);
    rotateSeedFile(dir);
    assert.deepEqual(loadRetiredSeeds({ dataDir: dir }), [first, second]);
    // With TREASURY_SEED the environment says which seeds are retired, not the file.
    assert.deepEqual(loadRetiredSeeds({ dataDir: dir, treasurySeed: 'ab'.repeat(32), retiredSeeds: ['cd'.repeat(32)] }), [new Uint8Array(Buffer.from('cd'.repeat(32), 'hex'))]);
    assert.throws(() => loadRetiredSeeds({ dataDir: dir, treasurySeed: 'ab'.repeat(32), retiredSeeds: ['short'] }), /TREASURY_RETIRED_SEEDS must encode at least 32 bytes/);
  });

  it('a seed already retired is not written twice (a rotation interrupted between its writes, run again)', () => {
    const dir = fresh();
    const first = loadTreasurySeed({ dataDir: dir });
    rotateSeedFile(dir);
    const text = readFileSync(join(dir, RETIRED_SEED_FILE), 'utf8');
    assert.equal(text.trim().split('\n').length, 1);
    assert.deepEqual(loadRetiredSeeds({ dataDir: dir }), [first]);
  });

  it('the command: refused while Hush holds the store, and with TREASURY_SEED (it names what to do); rotates otherwise', async () => {
    const dir = fresh();
    const before = loadTreasurySeed({ dataDir: dir });
    const cmd = (env: Record<string, string>) => run(process.execPath, ['--import', 'tsx', 'src/cli/treasury-rotate.ts'], { env: { ...process.env, DATABASE_URL: '', TREASURY_SEED: '', ...env } });
    const viaEnv = await cmd({ DATA_DIR: dir, TREASURY_SEED: 'ab'.repeat(32) }).then(() => null, (e: { code: number; stderr: string }) => e);
    assert.equal(viaEnv?.code, 1);
    assert.match(viaEnv!.stderr, /TREASURY_RETIRED_SEEDS=<old>/);
    assert.ok(!viaEnv!.stderr.includes('ab'.repeat(32)), 'a seed is never echoed');
    const release = lockDirectory(`${join(dir, 'pgdata')}.lock`, 'the test');
    const running = await cmd({ DATA_DIR: dir }).then(() => null, (e: { code: number; stderr: string }) => e);
    release();
    assert.equal(running?.code, 1, 'refused while the store is held');
    assert.deepEqual(loadTreasurySeed({ dataDir: dir }), before, 'nothing changed');
    const ok = await cmd({ DATA_DIR: dir });
    assert.match(ok.stdout, /1 retired seed/);
    assert.deepEqual(loadRetiredSeeds({ dataDir: dir }), [before]);
  });
});
