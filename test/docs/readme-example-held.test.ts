/**
 * README.md's partner example (`<!-- readme-example: partner -->`), its text unchanged, on a Hush on the
 * simulator's clock (test/support/sim-readme.ts: the built SDK given the simulator's fetch, sleep and clock,
 * the chain's RPC in process), privacy on with the default menu, a budget of 12 s and a ceiling of 16 s: asked
 * to wait for a set its class never brings, the payout is held (the detail printed says until when) and goes
 * alone at the ceiling, in simulated seconds and with the example's own 3 s polls. That it runs as written
 * over real HTTP and timers is readme-partner-example.test.ts.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { capturedLog, readmeExample, type PrivateSend } from '../support/readme-examples.ts';
import { startSimHush, type SimHush } from '../support/sim-hush.ts';
import { importOnSim } from '../support/sim-readme.ts';
import { seededWallet } from '../support/sim-sdk.ts';

let h: SimHush;
let example: { module: { privateSend?: PrivateSend }; close(): void };
const log = capturedLog();

before(async () => {
  h = await startSimHush({ seed: 51, env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_MAX_DELAY_S: '12', HUSH_PRIVACY_MAX_WAIT_S: '16' } });
  const account = await h.createAccount();
  example = await importOnSim(h, readmeExample('README.md', 'partner'), account.apiKey);
});
after(async () => {
  log.stop();
  example?.close();
  await h?.close();
});

test('asked to wait for a set, it is held for its class (the detail says until when) and goes at the ceiling alone', async () => {
  const { privateSend } = example.module;
  assert.equal(typeof privateSend, 'function', 'the README example exports privateSend(sender, recipient, usdcBaseUnits?, privacy?)');
  const sender = await seededWallet(h, { usdc: 200_000_000n });
  log.start();
  const result = await h.drive(privateSend!(sender.signer, h.address(), '10000000', { minAnonymitySet: 2 }));
  log.stop();
  const { printed } = log;
  const privacy = printed.find((args) => args[0] === 'privacy')?.[1] as { requested?: unknown } | undefined;
  assert.deepEqual(privacy?.requested, { minAnonymitySet: 2 });
  const held = printed.filter((a) => a[0] === 'deposit_confirmed');
  assert.ok(held.length >= 1, `the wait for its class is printed: ${JSON.stringify(printed)}`);
  // Held: "released by <time>"; a poll between its release at the ceiling and the send may print the release.
  assert.match(String(held[0]![1]), /released by \d{4}-\d\d-\d\dT/);
  for (const args of held) assert.match(String(args[1]), /released by \d{4}-\d\d-\d\dT|released for privacy with its class/);
  const got = printed.find((args) => args[0] === 'final')![2] as { releasedWith: number | null; heldSeconds: number | null };
  assert.equal(got.releasedWith, 1, 'nobody came: it went alone at its ceiling');
  assert.ok(got.heldSeconds !== null && got.heldSeconds >= 10, `held to its ceiling: ${got.heldSeconds} s`);
  assert.equal(result.status, 'completed');
});
