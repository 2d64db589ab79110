/**
 * The partner CLI and the release event with privacy on, against a real Hush (API + worker + embedded
 * local chain, a class of two, an 8 s budget): `hush send` of a private amount says while it waits that
 * the payout is held for privacy and until when, then the set it went with; a sender that cannot pay is
 * told so in one line before any order exists; an unreachable Hush is one line naming the fix. A real
 * webhook receiver gets `order.released` exactly once for the held order, after the `sending`
 * transition's `order.status_changed` and with the same sequence, its record carrying heldSeconds (releasedWith
 * is counted once the release has landed: issue 54); an order of an amount that is not private gets none.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { createServer } from 'node:http';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { createKeyPairSignerFromPrivateKeyBytes, generateKeyPairSigner, getAddressEncoder, lamports, type KeyPairSigner } from '@solana/kit';
import { createHushClient, signAndSend, verifyWebhook, type HushClient, type HushWebhookEvent } from '../../packages/sdk/src/index.ts';
import { HushClient as RawClient, expectOk, fundedSender, orderCount, registerSecret, startTestHush, SOL, USDC_MINT, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { makeTempDir, pollUntil, removeDir, requestTokenAirdrop, waitForStatus } from '../support/localnet.ts';
import { startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver.ts';
import { runPartnerCli } from '../support/partner-cli.ts';

const TEN_USDC = '10000000';

let t: TestHush;
let acct: TestAccount;
let client: HushClient;
let dir: string;
let receiver: WebhookReceiver;
let secret: string;

before(async () => {
  t = await startTestHush({
    admin: true,
    env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_K: '2', HUSH_PRIVACY_MAX_DELAY_S: '8', LOCALNET_SLOT_MS: '100' },
  });
  acct = await t.createAccount();
  client = createHushClient({ baseUrl: t.url, apiKey: acct.apiKey });
  dir = makeTempDir('hush-cli-privacy-');
  receiver = await startWebhookReceiver();
  ({ secret } = expectOk(await new RawClient(t.opsUrl, t.adminToken!).request('PUT', `/admin/v1/accounts/${acct.id}/webhook`, { body: { url: receiver.url } })));
  registerSecret(secret);
});
after(async () => {
  await t?.close();
  await receiver?.close();
  if (dir) removeDir(dir);
});

/** The partner CLI in its own process, configured by the environment. */
function hush(args: string[], env: Record<string, string> = {}): Promise<{ code: number; stdout: string; stderr: string }> {
  return runPartnerCli(args, { HUSH_URL: t.url, HUSH_API_KEY: acct.apiKey, SOLANA_RPC_URL: t.chainUrl, ...env });
}

/** A sender key pair file (the Solana CLI's format) with what the test gives it. */
async function senderFile(name: string, funds: { sol?: bigint; usdc?: bigint }): Promise<{ path: string; signer: KeyPairSigner }> {
  const seed = randomBytes(32);
  const signer = await createKeyPairSignerFromPrivateKeyBytes(seed);
  const path = join(dir, `${name}.json`);
  writeFileSync(path, JSON.stringify([...seed, ...getAddressEncoder().encode(signer.address)]));
  if (funds.sol) await waitForStatus(t.rpc, await t.rpc.requestAirdrop(signer.address, lamports(funds.sol)).send(), 'confirmed');
  if (funds.usdc) await waitForStatus(t.rpc, await requestTokenAirdrop(t.chainUrl, signer.address, USDC_MINT, funds.usdc), 'confirmed');
  return { path, signer };
}

const events = (): HushWebhookEvent[] => receiver.received.map((r) => verifyWebhook(r.body, r.headers as Record<string, string>, secret));

test('the help sends a private amount: 10 USDC is on the default menu', async () => {
  const help = await hush(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /hush send --keypair \S+ --from usdc --amount 10000000 /);
  const quoted = await hush(['quote', '--from', 'usdc', '--amount', TEN_USDC, '--sender', (await generateKeyPairSigner()).address, '--recipient', (await generateKeyPairSigner()).address]);
  assert.equal(quoted.code, 0, quoted.stderr);
  assert.equal(JSON.parse(quoted.stdout).privacy.standard, true, 'the example amount is private');
});

test('a sender that cannot pay: one line with cause and fix, exit 1, and no order created', async () => {
  const recipient = (await generateKeyPairSigner()).address;
  const broke = await senderFile('broke', {});
  const noTokens = await senderFile('no-tokens', { sol: SOL });
  const before = await orderCount(t.db);
  const [nothing, solOnly] = await Promise.all([
    hush(['send', '--keypair', broke.path, '--from', 'usdc', '--amount', TEN_USDC, '--recipient', recipient]),
    hush(['send', '--keypair', noTokens.path, '--from', 'usdc', '--amount', TEN_USDC, '--recipient', recipient]),
  ]);
  for (const [r, who] of [[nothing, broke], [solOnly, noTokens]] as const) {
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line: ${r.stderr}`);
    assert.match(lines[0]!, new RegExp(`^hush: the sender ${who.signer.address} cannot pay for this deposit: .*nothing was created — fund ${who.signer.address}`));
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.doesNotMatch(r.stdout, /order trk_/);
  }
  assert.match(nothing.stderr, /holds 0 base units of USDC, the deposit is 10000000/);
  assert.match(nothing.stderr, /holds 0 lamports of SOL/);
  assert.doesNotMatch(solOnly.stderr, /lamports of SOL/, 'SOL for fees and rent is there');
  assert.equal(await orderCount(t.db), before, 'no order was created');
});

/** A port nothing listens on: one just given up. */
async function closedPort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', r));
  const { port } = s.address() as { port: number };
  await new Promise((r) => s.close(r));
  return port;
}

test('errors are one line naming the fix: Hush not running, a bad amount, a missing key pair', async () => {
  const recipient = (await generateKeyPairSigner()).address;
  const port = await closedPort();
  const [down, amount, keypair] = await Promise.all([
    hush(['tokens'], { HUSH_URL: `http://127.0.0.1:${port}` }),
    hush(['quote', '--from', 'usdc', '--amount', '25.5', '--sender', recipient, '--recipient', recipient]),
    hush(['send', '--keypair', join(dir, 'missing.json'), '--from', 'usdc', '--amount', TEN_USDC, '--recipient', recipient]),
  ]);
  assert.equal(down.code, 1);
  assert.equal(down.stderr, `hush: cannot reach http://127.0.0.1:${port} (ECONNREFUSED) — start it with npm start or set HUSH_URL\n`);
  assert.equal(amount.code, 2);
  assert.match(amount.stderr, /^hush: --amount is base units, digits only \(10 USDC = 10000000\), got "25\.5" — see hush --help\n$/);
  assert.equal(keypair.code, 1);
  assert.match(keypair.stderr, /^hush: cannot read the key pair .*missing\.json \(ENOENT\) — pass --keypair a Solana key pair JSON file .*\n$/);
});

test('a held private send: the CLI says until when and then the set; order.released arrives once, after its sending event', { timeout: 120_000 }, async (ctx) => {
  const sender = await senderFile('sender', { sol: SOL, usdc: 20_000_000n });
  const recipient = (await generateKeyPairSigner()).address;
  // An amount off the menu at the same time: paid at once, never "released".
  const free = await fundedSender(t, { sol: SOL, usdc: 20_000_000n });
  const freeTerms = { senderAddress: free.address, recipientAddress: recipient };
  const freeQuote = await client.quote({ amount: '5370000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', ...freeTerms });
  assert.equal(freeQuote.privacy.standard, false);
  const freeOrder = await client.order(freeQuote, freeTerms);
  await signAndSend(client, freeOrder, free, { rpc: t.rpc });

  const send = await hush(['send', '--keypair', sender.path, '--from', 'usdc', '--amount', TEN_USDC, '--recipient', recipient, '--interval', '500']);
  assert.equal(send.code, 0, `${send.stdout}\n${send.stderr}`);
  ctx.diagnostic(send.stdout);
  const trackingId = /order (trk_\w+)/.exec(send.stdout)?.[1];
  assert.ok(trackingId, send.stdout);
  assert.match(send.stdout, /is a private amount.*anonymity set \d+/);
  // Held: the latest release moment, a real time within the budget, and the seconds to it.
  const held = new RegExp(`${trackingId} deposit_confirmed held for privacy: released by (\\S+) \\(in ~(\\d+) s\\)`).exec(send.stdout);
  assert.ok(held, send.stdout);
  assert.ok(Number(held[2]) <= 8 && Number.isFinite(Date.parse(held[1]!)), held[0]);
  assert.match(send.stdout, new RegExp(`${trackingId} completed payout \\w+ \\(released with its class: 1 payout, after \\d+ s\\)`));
  const watched = await hush(['watch', trackingId, '--interval', '500']);
  assert.equal(watched.code, 0, watched.stderr);
  assert.match(watched.stdout, /completed payout \w+ \(released with its class: 1 payout, after \d+ s\)/);

  // Every event of both orders delivered (the completed ones come last in each order's stream).
  await pollUntil(async () => {
    const done = events().filter((e) => e.type === 'order.status_changed' && e.data.status === 'completed').map((e) => (e.type === 'order.status_changed' ? e.data.trackingId : ''));
    return done.includes(trackingId) && done.includes(freeOrder.trackingId) ? true : null;
  }, { timeoutMs: 30_000, what: 'both orders\' completed events' });
  const mine = events().filter((e) => e.type !== 'webhook.test' && e.data.trackingId === trackingId);
  const released = mine.filter((e) => e.type === 'order.released');
  assert.equal(released.length, 1, `order.released once: ${mine.map((e) => e.type).join(', ')}`);
  const r = released[0]!;
  assert.ok(r.type === 'order.released');
  assert.equal(r.data.status, 'sending');
  assert.equal(r.data.order.status, 'sending');
  // Issue 54: the set is counted where the release's payouts land, after this event (the status record and the receipt carry it).
  assert.equal(r.data.order.privacy.releasedWith, null);
  assert.ok(Number.isInteger(r.data.order.privacy.heldSeconds) && r.data.order.privacy.heldSeconds >= 0, JSON.stringify(r.data.order.privacy));
  assert.equal(r.data.order.privacy.releaseBy, null);
  const sending = mine.findIndex((e) => e.type === 'order.status_changed' && e.data.status === 'sending');
  assert.ok(sending >= 0 && mine.indexOf(r) === sending + 1, 'right after its transition\'s status event');
  assert.equal(r.data.sequence, (mine[sending] as Extract<HushWebhookEvent, { type: 'order.status_changed' }>).data.sequence);
  assert.notEqual(r.id, mine[sending]!.id, 'an event id of its own');
  assert.equal(new Set(mine.map((e) => e.id)).size, mine.length, 'each event delivered once');
  const freeEvents = events().filter((e) => e.type !== 'webhook.test' && e.data.trackingId === freeOrder.trackingId);
  assert.ok(freeEvents.some((e) => e.data.status === 'sending'));
  assert.equal(freeEvents.filter((e) => e.type === 'order.released').length, 0, 'an amount that is not private is never "released"');
});

test('the user\'s privacy choice: --min-set and --max-delay reach the quote; --private-only refuses a linkable amount before any order', async () => {
  const [sender, recipient] = [(await generateKeyPairSigner()).address, (await generateKeyPairSigner()).address];
  const base = ['quote', '--from', 'usdc', '--amount', TEN_USDC, '--sender', sender, '--recipient', recipient];
  const set = await hush([...base, '--min-set', '5']);
  assert.equal(set.code, 0, set.stderr);
  assert.deepEqual(JSON.parse(set.stdout).privacy.requested, { minAnonymitySet: 5 });
  assert.match(set.stderr, /asked: wait for a set of 5/);
  const bounded = await hush([...base, '--max-delay', '6']);
  assert.deepEqual(JSON.parse(bounded.stdout).privacy.requested, { maxDelaySeconds: 6 });
  for (const [args, message] of [
    [['--min-set', '5', '--max-delay', '6'], /one choice/],
    [['--min-set', '0'], /--min-set is a set size/],
    [['--max-delay', 'soon'], /--max-delay is whole seconds/],
  ] as const) {
    const r = await hush([...base, ...args]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
    assert.match(r.stderr, message);
  }
  const before = await orderCount(t.db);
  const linkable = await hush(['send', '--keypair', (await senderFile('private-only', { sol: SOL, usdc: 100_000_000n })).path, '--from', 'usdc', '--amount', '25000000', '--recipient', recipient, '--private-only']);
  assert.equal(linkable.code, 1, linkable.stderr);
  assert.match(linkable.stderr, /^hush: 25000000 usdc is not a private amount \(--private-only\) — send a private amount instead: .*10000000/m);
  assert.equal(await orderCount(t.db), before, 'refused before any order');
  // `hush quote --private-only` on a linkable amount: refused, and no quote on stdout for a script to take (issue 53).
  const quoted = await hush(['quote', '--from', 'usdc', '--amount', '25000000', '--sender', sender, '--recipient', recipient, '--private-only']);
  assert.equal(quoted.code, 1, quoted.stderr);
  assert.equal(quoted.stdout, '', 'nothing printed as if it were an answer');
  assert.match(quoted.stderr, /^hush: 25000000 usdc is not a private amount \(--private-only\)/m);
  const fine = await hush([...base, '--private-only']);
  assert.equal(fine.code, 0, fine.stderr);
  assert.equal(JSON.parse(fine.stdout).privacy.standard, true);
});
