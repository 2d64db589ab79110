/**
 * `npm run demo` (scripts/demo.ts) against a started Hush, a crowd of three: it must explain itself as it goes. It says
 * how many of the class are in and why the sends wait, that the complete class is released together, counts down to
 * the last payout (the release's spread, never the hold's six-hour ceiling), says "released together with 3" as each
 * completes, and checks the first order's signed disclosure receipt against the published keys. The demo runs as its
 * own process, bundled once with esbuild (as test/support/partner-cli.ts bundles the CLI), with the account's key in
 * HUSH_API_KEY instead of the demo account's file.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { mkdirSync, rmSync } from 'node:fs';
import { promisify } from 'node:util';
import { after, before, test } from 'node:test';
import { build } from 'esbuild';
import { startTestHush, type TestHush } from '../support/hush-server.ts';

const ROOT = new URL('../../', import.meta.url);
/** Inside the repository, so the demo's packages (left external) resolve from its node_modules. */
const OUT = new URL(`node_modules/.cache/hush-demo/demo-${process.pid}.mjs`, ROOT).pathname;

let t: TestHush;
before(async () => {
  mkdirSync(new URL('node_modules/.cache/hush-demo/', ROOT).pathname, { recursive: true });
  const bundled = build({ entryPoints: [new URL('scripts/demo.ts', ROOT).pathname], outfile: OUT, bundle: true, format: 'esm', platform: 'node', target: 'node20', packages: 'external', logLevel: 'warning' });
  // A release's payouts spread over 1–3 s instead of 5–30 s: the countdown still has something to count.
  [t] = await Promise.all([startTestHush({ env: { HUSH_PAYOUT_DELAY_S: '1-3', LOCALNET_SLOT_MS: '200' } }), bundled]);
});
after(async () => {
  rmSync(OUT, { force: true });
  await t?.close();
});

test('the demo narrates a crowd of three: the class filling, its release together, the countdown, each completion, a verified receipt', { timeout: 180_000 }, async () => {
  const account = await t.createAccount();
  const env = { ...process.env, HUSH_URL: t.url, HUSH_API_KEY: account.apiKey, SOLANA_RPC_URL: t.chainUrl };
  const { stdout } = await promisify(execFile)(process.execPath, [OUT, '--crowd', '3'], { env, cwd: ROOT.pathname, timeout: 150_000 }).catch((e: { stdout?: string; stderr?: string; message: string }) =>
    assert.fail(`the demo failed:\n${e.stdout ?? ''}${e.stderr ?? e.message}`),
  );
  const lines = stdout.split('\n');
  const first = (re: RegExp) => lines.findIndex((l) => re.test(l));
  const held = first(/#\d held: each send asked to go out with at least 3 of its class \(1 SOL\), so its payout waits for the class to have 3/);
  const complete = first(/3 of 3 in the class: the set is complete, so the class is released/);
  const released = first(/released together: 3 payouts, each at its own moment of the release's spread .*the last due in ~\d+ s/);
  assert.ok(held >= 0 && complete > held && released > complete, `in order: why it waits, the set complete, released together:\n${stdout}`);
  assert.ok(first(/1 of 3 in the class; waiting for 2 more/) >= 0, stdout);
  const completions = lines.filter((l) => /#\s?\d completed, released together with 3: held \d+ s, payout \S+/.test(l));
  assert.equal(completions.length, 3, stdout);
  assert.doesNotMatch(stdout, /in ~\d{4,} s/, 'no countdown to the six-hour ceiling');
  assert.match(stdout, /3 of 3 completed in \d+ s; the chain counts each released with 3/);
  assert.match(stdout, /== the disclosure receipt of #1, as its sender would hand it on ==/);
  assert.equal(lines.filter((l) => /^ {2}ok {7}/.test(l)).length, 4, `every receipt check passed:\n${stdout}`);
  assert.match(stdout, /verified {3}signed by receipt key \S+…, published at GET \/transfer\/v1\/receipt-keys/);
});
