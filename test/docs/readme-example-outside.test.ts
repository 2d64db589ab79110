/**
 * README.md's partner example, the way a partner gets it: `scripts/sdk-pack-check.sh` runs the README's install
 * commands (pack the SDK, pin commander, install the tarball and @solana/kit from the registry) into a fresh directory
 * outside the repository, failing on any npm warning, and type-checks the example there against what they installed.
 * Then the example runs from that directory, as a Node process of its own that resolves `@hush/sdk` and `@solana/kit`
 * from that directory alone, against a started Hush (real HTTP, the real local chain, privacy on with a short hold),
 * with a sender it funds from the local faucet as docs/local-chain.md shows. So the README cannot drift from what a
 * partner can install and run. Skipped, saying so, only when the registry cannot be reached (`npm ping`).
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { after, before, describe, test } from 'node:test';
import ts from 'typescript';
import { findAssociatedTokenPda } from '@solana-program/token';
import { createKeyPairSignerFromPrivateKeyBytes, type Address } from '@solana/kit';
import { fundedSender, startTestHush, USDC_MINT, type TestHush } from '../support/hush-server.ts';
import { REPO_ROOT } from '../support/readme-examples.ts';

const run = promisify(execFile);

/** Whether the npm registry answers (the one npm is configured with). */
async function registryReachable(): Promise<boolean> {
  return run('npm', ['ping'], { timeout: 30_000 }).then(
    () => true,
    () => false,
  );
}

/**
 * The partner's process: its sender from the key the test funded (SENDER_SEED, confirmed before it starts), the
 * README's privateSend, the result printed.
 */
const DRIVER = `
import { createKeyPairSignerFromPrivateKeyBytes, generateKeyPairSigner } from '@solana/kit';
import { privateSend } from './private-send.mjs';

const sender = await createKeyPairSignerFromPrivateKeyBytes(Buffer.from(process.env.SENDER_SEED, 'hex'));
const recipient = (await generateKeyPairSigner()).address;
const result = await privateSend(sender, recipient);
console.log('RESULT ' + JSON.stringify({ status: result.status, payouts: result.payouts.length, sender: sender.address, recipient }));
`;

describe('README partner example, installed and run from outside the repository', () => {
  let t: TestHush | undefined;
  let base: string | undefined;
  let skip: string | false = false;

  before(async () => {
    if (!(await registryReachable())) {
      skip = 'the npm registry cannot be reached (npm ping failed): the README install path was not checked';
      return;
    }
    base = mkdtempSync(join(tmpdir(), 'hush-partner-app-'));
    assert.ok(!base.startsWith(REPO_ROOT), `${base} is outside the repository`);
  });
  after(async () => {
    await t?.close();
    if (base) rmSync(base, { recursive: true, force: true });
  });

  test("the README's commands install the SDK without a warning, and its example sends a private amount", { timeout: 300_000 }, async (ctx) => {
    if (skip) return ctx.skip(skip);
    const app = join(base!, 'app');
    // Packs, installs as the README says (no warning allowed), type-checks the example against the installed tarball.
    const [check, hush] = await Promise.all([
      run('bash', [join(REPO_ROOT, 'scripts/sdk-pack-check.sh'), app], { timeout: 240_000, maxBuffer: 8 << 20 }).catch((e: { stdout?: string; stderr?: string; message: string }) =>
        assert.fail(`the README's install path failed:\n${e.stdout ?? ''}${e.stderr ?? e.message}`),
      ),
      // Privacy on with the default menu, a hold of seconds instead of minutes.
      startTestHush({ env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_MAX_DELAY_S: '12', HUSH_PRIVACY_MAX_WAIT_S: '16', LOCALNET_SLOT_MS: '200' } }),
    ]);
    t = hush;
    assert.match(check.stdout, /installed as the README says, without a warning/);
    const installed = JSON.parse(readFileSync(join(app, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; overrides?: Record<string, string> };
    assert.match(installed.dependencies['@hush/sdk'] ?? '', /^file:hush-sdk-.*\.tgz$/, 'the packed tarball, not the workspace');
    assert.ok(installed.dependencies['@solana/kit'], 'its peer from the registry');

    // The example as the partner's own ESM module (types stripped; the check above type-checked it as written).
    const source = readFileSync(join(app, 'private-send.ts'), 'utf8');
    const js = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.ESNext, target: ts.ScriptTarget.ES2022 } }).outputText;
    writeFileSync(join(app, 'private-send.mjs'), js);
    writeFileSync(join(app, 'run.mjs'), DRIVER);
    const account = await t.createAccount();
    // The sender is funded here and confirmed (the faucet is the test's, not the partner's), the driver signs with it.
    const seed = randomBytes(32);
    await fundedSender(t, { sol: 1_000_000_000n, usdc: 200_000_000n, wallet: await createKeyPairSignerFromPrivateKeyBytes(seed) });
    const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', HUSH_URL: t.url, HUSH_API_KEY: account.apiKey, SOLANA_RPC_URL: t.chainUrl, SENDER_SEED: seed.toString('hex') };
    const { stdout } = await run(process.execPath, ['run.mjs'], { cwd: app, env, timeout: 180_000, maxBuffer: 8 << 20 }).catch((e: { stdout?: string; stderr?: string; message: string }) =>
      assert.fail(`the README example failed from ${app}:\n${e.stdout ?? ''}${e.stderr ?? e.message}`),
    );

    const line = stdout.split('\n').find((l) => l.startsWith('RESULT '));
    assert.ok(line, `the example returned: ${stdout}`);
    const result = JSON.parse(line.slice('RESULT '.length)) as { status: string; payouts: number; recipient: Address };
    assert.equal(result.status, 'completed', stdout);
    assert.ok(result.payouts >= 1);
    assert.match(stdout, /privacy \{[^}]*standard: true/, 'the example printed the quote: a private amount');
    const [ata] = await findAssociatedTokenPda({ owner: result.recipient, mint: USDC_MINT, tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address });
    const received = BigInt((await t.rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send()).value.amount);
    assert.ok(received > 99_000_000n && received < 100_000_000n, `the recipient got 100 USDC less the fees: ${received}`);
  });
});
