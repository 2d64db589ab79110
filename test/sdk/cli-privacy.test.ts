/**
 * The partner CLI (`hush`, packages/sdk/src/cli-main.ts) run in this process against a Hush on the simulator's
 * clock (privacy on, a class of two, an 8 s budget), with the SDK's fetch, RPC, sleep and clock options: `hush
 * send` verifies, signs and prints each state to completed; `hush quote` says whether an amount is private and
 * what the private amounts nearby get; a private amount's send says while it waits that the payout is held for
 * privacy and until when, then the set it went with; a sender that cannot pay is told so in one line before
 * any order exists; the user's privacy choice reaches the quote. A real webhook receiver, handed the events the
 * run recorded by the real dispatcher (test/support/sim-webhooks.ts), gets the held order's `order.released`
 * exactly once, right after its `sending` transition's `order.status_changed` and with the same sequence, its
 * record carrying heldSeconds (releasedWith is counted once the release has landed); an order of an amount that
 * is not private gets none. What needs a process of its own (argv, environment, exit status, an unreachable
 * Hush) is cli-process.test.ts.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { signAndSend, verifyWebhook, type HushClient, type HushWebhookEvent, type Token } from '../../packages/sdk/src/index.ts';
import { setWebhook } from '../../src/store/webhooks-store.ts';
import { registerSecret } from '../support/api-responses.ts';
import { SOL, startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { keypairFile, seededWallet, simCli, simOrderCount, simSdk } from '../support/sim-sdk.ts';
import { deliverRecorded } from '../support/sim-webhooks.ts';
import { startWebhookReceiver } from '../support/webhook-receiver.ts';

const TEN_USDC = '10000000';

let h: SimHush;
let acct: SimAccount;
let client: HushClient;
let dir: string;

before(async () => {
  h = await startSimHush({ seed: 31, env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_K: '2', HUSH_PRIVACY_MAX_DELAY_S: '8' } });
  acct = await h.createAccount();
  client = simSdk(h, acct.apiKey);
  dir = mkdtempSync(join(tmpdir(), 'hush-cli-privacy-'));
});
after(async () => {
  await h?.close();
  if (dir) rmSync(dir, { recursive: true, force: true });
});

const hush = (args: string[], env: Record<string, string> = {}) => simCli(h, args, { HUSH_API_KEY: acct.apiKey, ...env });

test('hush send verifies, signs and prints each state to completed; tokens, quote with the private amounts nearby, status, watch, errors', async () => {
  const sender = await seededWallet(h, { sol: 2n * SOL });
  const keypair = keypairFile(dir, 'send', sender);
  const recipient = h.address();
  const send = await hush(['send', '--keypair', keypair, '--from', 'sol', '--amount', '100000000', '--recipient', recipient, '--interval', '100']);
  assert.equal(send.code, 0, send.stderr);
  const trackingId = /order (trk_\w+)/.exec(send.stdout)?.[1];
  assert.ok(trackingId, send.stdout);
  assert.match(send.stdout, /deposit verified, signed and sent: \w{64,88}/);
  const states = [...send.stdout.matchAll(new RegExp(`${trackingId} (\\w+)`, 'g'))].map((m) => m[1]);
  assert.equal(states.at(-1), 'completed', send.stdout);
  assert.ok(!send.stdout.includes('\r'), 'plain lines when stdout is not a terminal');

  const listed = await hush(['tokens']);
  assert.ok(JSON.parse(listed.stdout).some((x: Token) => x.assetId === 'usdc'));
  const usage = await hush(['frobnicate']);
  assert.equal(usage.code, 2);
  assert.match(usage.stderr, /unknown command frobnicate/);
  const refused = await hush(['tokens'], { HUSH_API_KEY: 'hush_aaaaaaaaaaaa_nope' });
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /UNAUTHORIZED/);

  const status = await hush(['status', trackingId]);
  assert.equal(JSON.parse(status.stdout).status, 'completed');
  const quoted = await hush(['quote', '--from', 'usdc', '--amount', '5000000', '--sender', sender.address, '--recipient', recipient]);
  assert.equal(quoted.code, 0, quoted.stderr);
  assert.deepEqual([JSON.parse(quoted.stdout).sourceAssetId, JSON.parse(quoted.stdout).amountIn], ['usdc', '5000000']);
  // 5 USDC is not on the decade menu: said so, with the private amounts nearby and what each would get.
  assert.match(quoted.stderr, /5000000 usdc is NOT a private amount/);
  for (const a of JSON.parse(quoted.stdout).privacy.suggestedAmounts) assert.match(quoted.stderr, new RegExp(`^ +${a}  set ≥ \\d+ \\(likely \\d+\\), wait ≤ \\d+ s, 4 times in 5$`, 'm'));
  assert.ok(JSON.parse(quoted.stdout).privacy.suggestedAmounts.includes('10000000'), quoted.stderr);
  const watched = await hush(['watch', trackingId, '--interval', '100']);
  assert.equal(watched.code, 0, watched.stderr);
  assert.match(watched.stdout, new RegExp(`${trackingId} completed`), 'watch prints the final state and ends');
  assert.equal(await h.drive(h.chain.lamports(recipient)), BigInt(JSON.parse(status.stdout).amountOut));
});

test('the help sends a private amount: 10 USDC is on the default menu', async () => {
  const help = await hush(['--help']);
  assert.equal(help.code, 0);
  assert.match(help.stdout, /hush send --keypair \S+ --from usdc --amount 10000000 /);
  const quoted = await hush(['quote', '--from', 'usdc', '--amount', TEN_USDC, '--sender', h.address(), '--recipient', h.address()]);
  assert.equal(quoted.code, 0, quoted.stderr);
  assert.equal(JSON.parse(quoted.stdout).privacy.standard, true, 'the example amount is private');
});

test('a sender that cannot pay: one line with cause and fix, exit 1, and no order created', async () => {
  const recipient = h.address();
  const broke = await seededWallet(h, { sol: 0n });
  const noTokens = await seededWallet(h, { sol: SOL });
  const before = await simOrderCount(h);
  const nothing = await hush(['send', '--keypair', keypairFile(dir, 'broke', broke), '--from', 'usdc', '--amount', TEN_USDC, '--recipient', recipient]);
  const solOnly = await hush(['send', '--keypair', keypairFile(dir, 'no-tokens', noTokens), '--from', 'usdc', '--amount', TEN_USDC, '--recipient', recipient]);
  for (const [r, who] of [[nothing, broke], [solOnly, noTokens]] as const) {
    assert.equal(r.code, 1, r.stderr);
    const lines = r.stderr.trimEnd().split('\n');
    assert.equal(lines.length, 1, `one line: ${r.stderr}`);
    assert.match(lines[0]!, new RegExp(`^hush: the sender ${who.address} cannot pay for this deposit: .*nothing was created — fund ${who.address}`));
    assert.doesNotMatch(r.stderr, /\n\s+at /, 'no stack trace');
    assert.doesNotMatch(r.stdout, /order trk_/);
  }
  assert.match(nothing.stderr, /holds 0 base units of USDC, the deposit is 10000000/);
  assert.match(nothing.stderr, /holds 0 lamports of SOL/);
  assert.doesNotMatch(solOnly.stderr, /lamports of SOL/, 'SOL for fees and rent is there');
  assert.equal(await simOrderCount(h), before, 'no order was created');
});

test('a held private send: the CLI says until when and then the set; order.released arrives once, after its sending event', async (ctx) => {
  const receiver = await startWebhookReceiver();
  ctx.after(() => receiver.close());
  // Set in the store: the partner API refuses a URL on this machine beside a chain that is not embedded.
  const secret = 'whsec_dGVzdC1zZWNyZXQtb2YtdGhpcy1hY2NvdW50';
  registerSecret(secret);
  await setWebhook(h.db, acct.id, receiver.url, secret);
  const sender = await seededWallet(h, { sol: SOL, usdc: 20_000_000n });
  const recipient = h.address();
  // An amount off the menu at the same time: paid at once, never "released".
  const free = await seededWallet(h, { sol: SOL, usdc: 20_000_000n });
  const freeTerms = { senderAddress: free.address, recipientAddress: recipient };
  const freeQuote = await client.quote({ amount: '5370000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', ...freeTerms });
  assert.equal(freeQuote.privacy.standard, false);
  const freeOrder = await client.order(freeQuote, freeTerms);
  await h.drive(signAndSend(client, freeOrder, free.signer, { rpc: h.rpc }));

  const send = await hush(['send', '--keypair', keypairFile(dir, 'sender', sender), '--from', 'usdc', '--amount', TEN_USDC, '--recipient', recipient, '--interval', '500']);
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

  ctx.diagnostic(`delivered in ${await deliverRecorded(h)} passes: ${receiver.received.length} events`);
  const events = (): HushWebhookEvent[] => receiver.received.map((r) => verifyWebhook(r.body, r.headers as Record<string, string>, secret));
  // Every event of both orders delivered (the completed ones come last in each order's stream).
  const done = events().filter((e) => e.type === 'order.status_changed' && e.data.status === 'completed').map((e) => (e.type === 'order.status_changed' ? e.data.trackingId : ''));
  assert.ok(done.includes(trackingId) && done.includes(freeOrder.trackingId), "both orders' completed events");
  const mine = events().filter((e) => e.type !== 'webhook.test' && e.data.trackingId === trackingId);
  const released = mine.filter((e) => e.type === 'order.released');
  assert.equal(released.length, 1, `order.released once: ${mine.map((e) => e.type).join(', ')}`);
  const r = released[0]!;
  assert.ok(r.type === 'order.released');
  assert.equal(r.data.status, 'sending');
  assert.equal(r.data.order.status, 'sending');
  // The set is counted where the release's payouts land, after this event (the status record and the receipt carry it).
  assert.equal(r.data.order.privacy.releasedWith, null);
  assert.ok(Number.isInteger(r.data.order.privacy.heldSeconds) && r.data.order.privacy.heldSeconds >= 0, JSON.stringify(r.data.order.privacy));
  assert.equal(r.data.order.privacy.releaseBy, null);
  const sending = mine.findIndex((e) => e.type === 'order.status_changed' && e.data.status === 'sending');
  assert.ok(sending >= 0 && mine.indexOf(r) === sending + 1, "right after its transition's status event");
  assert.equal(r.data.sequence, (mine[sending] as Extract<HushWebhookEvent, { type: 'order.status_changed' }>).data.sequence);
  assert.notEqual(r.id, mine[sending]!.id, 'an event id of its own');
  assert.equal(new Set(mine.map((e) => e.id)).size, mine.length, 'each event delivered once');
  const freeEvents = events().filter((e) => e.type !== 'webhook.test' && e.data.trackingId === freeOrder.trackingId);
  assert.ok(freeEvents.some((e) => e.data.status === 'sending'));
  assert.equal(freeEvents.filter((e) => e.type === 'order.released').length, 0, 'an amount that is not private is never "released"');
});

test("the user's privacy choice: --min-set and --max-delay reach the quote; --private-only refuses a linkable amount before any order", async () => {
  const [sender, recipient] = [h.address(), h.address()];
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
  const before = await simOrderCount(h);
  const rich = await seededWallet(h, { sol: SOL, usdc: 100_000_000n });
  const linkable = await hush(['send', '--keypair', keypairFile(dir, 'private-only', rich), '--from', 'usdc', '--amount', '25000000', '--recipient', recipient, '--private-only']);
  assert.equal(linkable.code, 1, linkable.stderr);
  assert.match(linkable.stderr, /^hush: 25000000 usdc is not a private amount \(--private-only\) — send a private amount instead: .*10000000/m);
  assert.equal(linkable.stdout, '', 'decided before any quote line: nothing reads as a go-ahead');
  assert.equal(await simOrderCount(h), before, 'refused before any order');
  // `hush quote --private-only` on a linkable amount: refused, and no quote on stdout for a script to take.
  const quoted = await hush(['quote', '--from', 'usdc', '--amount', '25000000', '--sender', sender, '--recipient', recipient, '--private-only']);
  assert.equal(quoted.code, 1, quoted.stderr);
  assert.equal(quoted.stdout, '', 'nothing printed as if it were an answer');
  assert.match(quoted.stderr, /^hush: 25000000 usdc is not a private amount \(--private-only\)/m);
  const fine = await hush([...base, '--private-only']);
  assert.equal(fine.code, 0, fine.stderr);
  assert.equal(JSON.parse(fine.stdout).privacy.standard, true);
});
