/**
 * `hush` as a process of its own (packages/sdk/src/cli.ts, bundled as bin/hush.js runs it: test/support/partner-cli.ts):
 * what only a process shows — the arguments it was started with, the environment it reads (HUSH_URL,
 * HUSH_API_KEY), its exit status and its two streams. No Hush runs: each case ends before one would be asked,
 * or finds none listening. What the commands do against a Hush is run in this process on the simulator's
 * clock (cli-privacy.test.ts, self-service-sdk.test.ts).
 */
import assert from 'node:assert/strict';
import { createServer } from 'node:http';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, test } from 'node:test';
import { runPartnerCli } from '../support/partner-cli.ts';

const RECIPIENT = '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM';
const dir = mkdtempSync(join(tmpdir(), 'hush-cli-process-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** A port nothing listens on: one just given up. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

test('the usage on --help exits 0; --version answers the SDK version; an unknown command exits 2; no HUSH_API_KEY exits 1 naming it', async () => {
  const [version, help, usage, keyless] = await Promise.all([
    runPartnerCli(['--version'], { HUSH_API_KEY: '' }),
    runPartnerCli(['--help'], {}),
    runPartnerCli(['frobnicate'], { HUSH_API_KEY: 'hush_aaaaaaaaaaaa_x' }),
    runPartnerCli(['tokens'], { HUSH_API_KEY: '' }),
  ]);
  const { version: sdkVersion } = JSON.parse(readFileSync(new URL('../../packages/sdk/package.json', import.meta.url), 'utf8')) as { version: string };
  assert.deepEqual([version.code, version.stdout, version.stderr], [0, `${sdkVersion}\n`, '']);
  assert.equal(help.code, 0, help.stderr);
  assert.match(help.stdout, /--version/);
  assert.match(help.stdout, /hush send --keypair \S+ --from usdc --amount 10000000 /);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /^hush: unknown command frobnicate — see hush --help\n$/);
  assert.equal(keyless.code, 1);
  assert.match(keyless.stderr, /^hush: HUSH_API_KEY is not set — export HUSH_API_KEY=/);
});

test('errors are one line naming the fix: Hush not running, a bad amount, a missing key pair', async () => {
  const port = await closedPort();
  const env = { HUSH_API_KEY: 'hush_aaaaaaaaaaaa_x' };
  const [down, amount, keypair] = await Promise.all([
    runPartnerCli(['tokens'], { ...env, HUSH_URL: `http://127.0.0.1:${port}` }),
    runPartnerCli(['quote', '--from', 'usdc', '--amount', '25.5', '--sender', RECIPIENT, '--recipient', RECIPIENT], env),
    runPartnerCli(['send', '--keypair', join(dir, 'missing.json'), '--from', 'usdc', '--amount', '10000000', '--recipient', RECIPIENT], env),
  ]);
  assert.equal(down.code, 1);
  assert.equal(down.stderr, `hush: cannot reach http://127.0.0.1:${port} (ECONNREFUSED) — start it with npm start or set HUSH_URL\n`);
  assert.equal(amount.code, 2);
  assert.match(amount.stderr, /^hush: --amount is base units, digits only \(10 USDC = 10000000\), got "25\.5" — see hush --help\n$/);
  assert.equal(keypair.code, 1);
  assert.match(keypair.stderr, /^hush: cannot read the key pair .*missing\.json \(ENOENT\) — pass --keypair a Solana key pair JSON file .*\n$/);
});
