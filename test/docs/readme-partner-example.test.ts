/**
 * The READMEs' partner examples, run as written against a real Hush: the fenced block after `<!-- readme-example:
 * partner -->` in README.md (and after `<!-- readme-example: sdk -->` in packages/sdk/README.md) is saved as a
 * module beside a link to this repo's node_modules (so `@hush/sdk` is the workspace package `npm ci` builds, as a
 * partner's install would give it), pointed by HUSH_URL / HUSH_API_KEY / SOLANA_RPC_URL at a listening Hush (real
 * local chain, real store, privacy on with a short hold) and called with a funded wallet (imported through tsx's
 * tsImport, as the suite runs bundled). What a partner copies must send a private amount, say so, and deliver it:
 * over real HTTP, the real RPC and the SDK's own timers, which is what this file is for. The example's wait for a
 * set, held to the ceiling, runs on the simulator's clock (test/sdk/sdk-end-to-end.test.ts).
 */
import assert from 'node:assert/strict';
import { existsSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import ts from 'typescript';
import { tsImport } from 'tsx/esm/api';
import { after, before, describe, test } from 'node:test';
import { findAssociatedTokenPda } from '@solana-program/token';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { fundedSender, orderCount, SOL, startTestHush, USDC_MINT, type TestHush } from '../support/hush-server.ts';
import { capturedLog, readmeExample, REPO_ROOT, type PrivateSend, type SendSol } from '../support/readme-examples.ts';

describe('README partner examples', () => {
  let t: TestHush;
  let dir: string;
  let privateSend: PrivateSend;
  let sendSol: SendSol;
  const log = capturedLog();
  const { printed } = log;

  before(async () => {
    const sdkEntry = join(REPO_ROOT, 'node_modules/@hush/sdk/dist/index.js');
    assert.ok(existsSync(sdkEntry), `${sdkEntry} is missing: \`npm ci\` builds @hush/sdk (the root package's prepare script)`);
    // Privacy on with the default menu (decade), a hold of about 9 s instead of 14 minutes: polls every 3 s see it.
    t = await startTestHush({ env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_MAX_DELAY_S: '12', HUSH_PRIVACY_MAX_WAIT_S: '16', LOCALNET_SLOT_MS: '200' } });
    const account = await t.createAccount();
    dir = mkdtempSync(join(tmpdir(), 'hush-readme-example-'));
    symlinkSync(join(REPO_ROOT, 'node_modules'), join(dir, 'node_modules'), 'dir');
    writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
    writeFileSync(join(dir, 'private-send.ts'), readmeExample('README.md', 'partner'));
    writeFileSync(join(dir, 'send-sol.ts'), readmeExample('packages/sdk/README.md', 'sdk'));
    // The examples read these at load, as a partner's process would.
    Object.assign(process.env, { HUSH_URL: t.url, HUSH_API_KEY: account.apiKey, SOLANA_RPC_URL: t.chainUrl });
    const mod = (await tsImport(pathToFileURL(join(dir, 'private-send.ts')).href, import.meta.url)) as { privateSend?: PrivateSend };
    assert.equal(typeof mod.privateSend, 'function', 'the README example exports privateSend(sender, recipient, usdcBaseUnits?)');
    privateSend = mod.privateSend!;
    const sdk = (await tsImport(pathToFileURL(join(dir, 'send-sol.ts')).href, import.meta.url)) as { sendSol?: SendSol };
    assert.equal(typeof sdk.sendSol, 'function', 'the SDK README example exports sendSol(sender, recipient, lamports?)');
    sendSol = sdk.sendSol!;
    log.start();
  });
  after(async () => {
    log.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
    await t?.close();
  });

  test('the examples type-check as a partner compiles them (strict, NodeNext, the SDK as npm ci builds it)', () => {
    const program = ts.createProgram([join(dir, 'private-send.ts'), join(dir, 'send-sol.ts')], {
      strict: true, noEmit: true, skipLibCheck: true, types: ['node'],
      module: ts.ModuleKind.NodeNext, moduleResolution: ts.ModuleResolutionKind.NodeNext, target: ts.ScriptTarget.ES2022,
    });
    const errors = ts.getPreEmitDiagnostics(program).map((d) => `${d.file?.fileName ?? ''}: ${ts.flattenDiagnosticMessageText(d.messageText, '\n')}`);
    assert.deepEqual(errors, []);
  });

  const usdcOf = async (owner: Address): Promise<bigint> => {
    const [ata] = await findAssociatedTokenPda({ owner, mint: USDC_MINT, tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address });
    return BigInt((await t.rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send()).value.amount);
  };

  test('its default amount is private: the quote says so; on a Hush nobody else uses it is not held for nothing, and delivered', async () => {
    printed.length = 0;
    const sender = await fundedSender(t, { usdc: 200_000_000n });
    const recipient = (await generateKeyPairSigner()).address;
    const result = await privateSend(sender, recipient);

    const privacy = printed.find((args) => args[0] === 'privacy')?.[1] as { standard: boolean; anonymitySet: number; delaySeconds: number; suggestedAmounts: string[]; basis: string } | undefined;
    assert.ok(privacy, `the example prints the quote's privacy; it printed ${JSON.stringify(printed)}`);
    assert.equal(privacy.standard, true, 'the README sends a private amount');
    assert.deepEqual([privacy.anonymitySet, privacy.basis], [1, 'no_traffic'], 'nobody else uses this Hush: the quote says so');
    assert.ok(privacy.suggestedAmounts.includes('100000000'), `100 USDC is on the menu: ${privacy.suggestedAmounts}`);

    const states = printed.filter((args) => typeof args[0] === 'string' && /^[a-z_]+$/.test(args[0]) && args[0] !== 'privacy' && args[0] !== 'final').map((a) => a[0]);
    assert.equal(states.at(-1), 'completed', `states printed: ${states}`);
    const final = printed.find((args) => args[0] === 'final');
    assert.ok(final, 'the example prints the final status and privacy');
    assert.equal(final[1], 'completed');
    const got = final[2] as { standard: boolean; releasedWith: number | null; heldSeconds: number | null };
    assert.equal(got.standard, true);
    assert.equal(got.releasedWith, 1, 'alone in its class on this Hush: released with nobody else');
    assert.ok(got.heldSeconds !== null && got.heldSeconds <= 5, `not held for nothing (the hold is 9.4 s): ${got.heldSeconds} s`);

    assert.equal(result.status, 'completed');
    assert.ok(result.payouts.length >= 1);
    const received = await usdcOf(recipient);
    assert.ok(received > 99_000_000n && received < 100_000_000n, `the recipient got 100 USDC less the fees: ${received}`);
    assert.equal(await usdcOf(sender.address), 100_000_000n, 'the sender paid exactly 100 USDC');
  });

  test('a non-private amount is refused before any order, naming the private amounts nearby', async () => {
    printed.length = 0;
    const sender = await fundedSender(t, { usdc: 200_000_000n });
    const before = await orderCount(t.db);
    await assert.rejects(privateSend(sender, (await generateKeyPairSigner()).address, '25000000'), /not a private amount.*10000000.*100000000/);
    const privacy = printed.find((args) => args[0] === 'privacy')?.[1] as { standard: boolean; anonymitySet: number } | undefined;
    assert.deepEqual(privacy && { standard: privacy.standard, anonymitySet: privacy.anonymitySet }, { standard: false, anonymitySet: 1 });
    assert.equal(await orderCount(t.db), before, 'no order for an amount that is not private');
  });

  test('the SDK README example sends 1 SOL privately and offers private amounts for 0.5 SOL', async () => {
    printed.length = 0;
    const sender = await fundedSender(t, { sol: 3n * SOL });
    const recipient = (await generateKeyPairSigner()).address;
    const sent = await sendSol(sender, recipient);
    const privacy = printed.find((args) => args[0] === 'privacy')?.[1] as { standard: boolean } | undefined;
    assert.equal(privacy?.standard, true, 'the SDK README sends a private amount');
    assert.deepEqual(sent, { status: 'completed', releasedWith: 1 });
    const { value } = await t.rpc.getBalance(recipient, { commitment: 'confirmed' }).send();
    assert.ok(value > 990_000_000n && value < SOL, `the recipient got 1 SOL less the fees: ${value}`);

    printed.length = 0;
    const offered = await sendSol(sender, recipient, '500000000');
    assert.equal((printed.find((args) => args[0] === 'privacy')?.[1] as { standard: boolean }).standard, false);
    assert.equal(offered.status, undefined, 'no order for 0.5 SOL');
    assert.ok(offered.choices?.some((c) => c.amount === '1000000000' && c.anonymitySet !== null), JSON.stringify(offered.choices));
  });
});
