/**
 * The partner SDK (packages/sdk) against a whole Hush on the simulator's clock (test/support/sim-hush.ts: API,
 * worker, class release and local chain in one process, privacy on), its requests through the SDK's `fetch`
 * option and its waits through `sleep`/`now`. For SOL, USDC and a SOL→USDC swap it quotes, orders, verifies
 * and signs the deposit with a kit signer, sends it, hints it, and waits for `completed`; the recipient then
 * holds exactly amountOut. Also: errors arrive as HushApiError with the docs/spec.md §6 code and the request
 * id; the SDK's Idempotency-Key replays an order; status revalidates with its ETag; 429s are ridden out as
 * Retry-After asks; a sending signer submits itself; the chain's refusals come back typed; the SDK's
 * committed types are what the OpenAPI document this Hush serves renders to; and README.md's partner example,
 * its text unchanged (test/support/sim-readme.ts), asked to wait for a set its class never brings, is held (the
 * detail printed says until when) and goes alone at the ceiling, with its own 3 s polls in simulated time (that
 * it runs as written over real HTTP and timers is readme-partner-example.test.ts). The partner CLI is in
 * cli-privacy.test.ts (in this process) and cli-process.test.ts (as a process).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { getBase58Encoder, getBase64EncodedWireTransaction, getSignatureFromTransaction, partiallySignTransactionWithSigners, type Address, type TransactionSendingSigner } from '@solana/kit';
import { DepositVerificationError, HushApiError, HushSdkError, InsufficientFundsError, signAndSend, verifyDepositTransaction, type HushClient, type StatusRecord, type Token } from '../../packages/sdk/src/index.ts';
import { committedTypes, renderTypes } from '../../scripts/sdk-types.ts';
import { capturedLog, readmeExample, type PrivateSend } from '../support/readme-examples.ts';
import { SOL, startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { importOnSim } from '../support/sim-readme.ts';
import { seededWallet, SIM_HUSH_URL, simSdk } from '../support/sim-sdk.ts';

let h: SimHush;
let acct: SimAccount;
let client: HushClient;
let tokens: Token[];
let readme: { module: { privateSend?: PrivateSend }; close(): void };

before(async () => {
  // Privacy on with the default menu; a menu amount whose class has traffic is held at most 12 s, and a
  // payout whose partner asked for a set its class never brings goes at the 16 s ceiling.
  h = await startSimHush({ seed: 21, env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_MAX_DELAY_S: '12', HUSH_PRIVACY_MAX_WAIT_S: '16' } });
  acct = await h.createAccount();
  client = simSdk(h, acct.apiKey);
  tokens = await client.tokens();
  readme = await importOnSim(h, readmeExample('README.md', 'partner'), acct.apiKey);
});
after(async () => {
  readme?.close();
  await h?.close();
});

test('the SDK types are the ones the served OpenAPI document generates (npm run generate:sdk)', async () => {
  const doc = await (await h.fetch(`${SIM_HUSH_URL}/transfer/v1/openapi.json`)).json();
  assert.equal(await renderTypes(doc), committedTypes(), 'packages/sdk/src/generated/openapi.ts is stale: run `npm run generate:sdk`');
  const ops = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((m) => Object.values(m).map((o) => o.operationId));
  assert.deepEqual(ops.sort(), [
    'clearWebhook', 'createApiKey', 'createOrder', 'createQuote', 'findOrderByQuote', 'getAccount', 'getReceipt', 'getStatus',
    'listReceiptKeys', 'listTokens', 'receiptCheckPage', 'refreshOrder', 'revokeApiKey', 'rotateWebhookSecret', 'sendDepositHint', 'sendTestWebhook', 'setWebhook',
  ]);
});

const holding = (owner: string, token: Token) => h.drive(h.chain.holding(owner, token.assetId as 'sol' | 'usdc'));

async function transfer(from: string, to: string, amount: bigint) {
  const destination = tokens.find((x) => x.assetId === to)!;
  const sender = await seededWallet(h, { sol: 5n * SOL, ...(from === 'usdc' ? { usdc: 2n * amount } : {}) });
  const recipient = h.address();
  const terms = { senderAddress: sender.address, recipientAddress: recipient, feeBps: 25, feeRecipientAddress: acct.feeRecipients[0]! };
  const quote = await client.quote({ amount: amount.toString(), sourceAssetId: from, destinationAssetId: to, ...terms });
  const order = await client.order(quote, terms);
  const sent = await h.drive(signAndSend(client, order, sender.signer, { rpc: h.rpc, refreshExpired: true }));
  assert.ok(sent.hint, 'the deposit hint was answered');
  const seen: StatusRecord[] = [];
  const final = await h.drive(client.waitForFinal(order.trackingId, { intervalMs: 100, onStatus: (s) => seen.push(s), signal: h.clock.timeout(600_000) }));
  assert.equal(final.status, 'completed', `${from}→${to}: ${JSON.stringify(final)}`);
  assert.equal(final.deposit?.signature, sent.signature);
  assert.equal(seen.at(-1)?.status, 'completed');
  // Once per change of the record (a status, or the release deciding `privacy.releasedWith`), never twice
  // the same, and never back to an earlier status.
  const lifecycle = ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'swapping', 'sending', 'completed'];
  for (let i = 1; i < seen.length; i++) {
    assert.ok(seen[i]!.updatedAt !== seen[i - 1]!.updatedAt || seen[i]!.status !== seen[i - 1]!.status, `onStatus saw one record twice: ${JSON.stringify(seen[i])}`);
    assert.ok(lifecycle.indexOf(seen[i]!.status) >= lifecycle.indexOf(seen[i - 1]!.status), `onStatus went back: ${seen.map((s) => s.status).join(' → ')}`);
  }
  assert.equal(await holding(recipient, destination), BigInt(quote.amountOut), `${from}→${to}: the recipient holds amountOut`);
  return { quote, order, final };
}

test('SOL, USDC and a SOL→USDC swap: quote → order → verify, sign, send → completed', async () => {
  const sol = await transfer('sol', 'sol', 100_000_000n);
  const usdc = await transfer('usdc', 'usdc', 25_000_000n);
  const swap = await transfer('sol', 'usdc', 500_000_000n);
  assert.equal(sol.quote.amountIn, '100000000');
  assert.equal(usdc.order.sourceSymbol, 'USDC');
  assert.equal(swap.final.destinationAssetId, 'usdc');
  assert.equal(swap.final.amountOut, swap.quote.amountOut);

  // The hint retried once the sweep has closed the SOL order's wrapped-SOL deposit account (docs/spec.md §4: safe
  // to retry): the recorded deposit, as before (it was refused as SOL sent before the account existed).
  const { rows } = await h.drive(h.db.query<{ deposit_account: Address }>('SELECT deposit_account FROM orders WHERE tracking_id = $1', [sol.order.trackingId]));
  const closed = async () => (await h.rpc.getAccountInfo(rows[0]!.deposit_account, { commitment: 'confirmed', encoding: 'base64' }).send()).value === null;
  await h.until('the SOL deposit account swept and closed', closed, 1_800_000, 1_000);
  const retried = await client.depositHint(sol.order.trackingId, sol.final.deposit!.signature);
  assert.equal(retried.pending, false);
  assert.equal(retried.order.status, 'completed');
  assert.deepEqual(retried.order.deposit, sol.final.deposit);
});

test('errors are HushApiError with the docs/spec.md §6 code, status and request id', async () => {
  const wallet = h.address();
  const err = await client.quote({ amount: '1000', sourceAssetId: 'nope', destinationAssetId: 'nope', senderAddress: wallet, recipientAddress: wallet }).catch((e: unknown) => e);
  assert.ok(err instanceof HushApiError, String(err));
  assert.equal(err.code, 'UNSUPPORTED_ASSET');
  assert.equal(err.status, 400);
  assert.match(err.requestId ?? '', /.+/);
  const missing = await client.status('trk_1111111111111111111111').catch((e: unknown) => e);
  assert.ok(missing instanceof HushApiError && missing.code === 'NOT_FOUND');
  const bad = await simSdk(h, 'hush_aaaaaaaaaaaa_nope').tokens().catch((e: unknown) => e);
  assert.ok(bad instanceof HushApiError && bad.code === 'UNAUTHORIZED' && bad.status === 401);
});

test('the Idempotency-Key the SDK sends replays the order; status revalidates with its ETag', async () => {
  const terms = { senderAddress: h.address(), recipientAddress: h.address() };
  const quote = await client.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms });
  const first = await client.order(quote, terms);
  assert.match(first.idempotencyKey, /^sdk-/);
  const again = await client.order(quote, terms, { idempotencyKey: first.idempotencyKey });
  assert.equal(again.trackingId, first.trackingId);
  assert.equal(again.transaction, first.transaction, 'the replay is the original answer');
  const other = await client.order(quote, terms, { idempotencyKey: 'another-key' }).catch((e: unknown) => e);
  assert.ok(other instanceof HushApiError && other.code === 'QUOTE_ALREADY_USED', String(other));
  // Both names at once only with one value.
  const both = await h.fetch(`${SIM_HUSH_URL}/transfer/v1/order`, {
    method: 'POST',
    headers: { authorization: `Bearer ${acct.apiKey}`, 'content-type': 'application/json', 'idempotency-key': 'a', 'x-idempotency-key': 'b' },
    body: JSON.stringify({ quote, ...terms }),
  });
  assert.equal(both.status, 400);
  assert.equal(((await both.json()) as { error: { code: string } }).error.code, 'INVALID_REQUEST');
  const s = await client.status(first.trackingId);
  assert.ok(!s.notModified && s.order.status === 'awaiting_deposit' && s.etag);
  const again304 = await client.status(first.trackingId, { etag: s.etag });
  assert.equal(again304.notModified, true);
  const refreshed = await client.refresh(first);
  assert.equal(refreshed.trackingId, first.trackingId);
  assert.equal(refreshed.quote, quote);
});

test('every deposit transaction Hush issues verifies: each asset, both modes, a swap, refreshed ones', async () => {
  const cases = [
    ...tokens.flatMap((token) => (['exact_in', 'exact_out'] as const).map((mode) => ({ from: token, to: token, mode }))),
    { from: tokens.find((x) => x.assetId === 'sol')!, to: tokens.find((x) => x.assetId === 'usdc')!, mode: 'exact_in' as const },
  ];
  for (const { from, to, mode } of cases) {
    const terms = { senderAddress: h.address(), recipientAddress: h.address() };
    const quote = await client.quote({ amount: (2n * BigInt(from.min)).toString(), sourceAssetId: from.assetId, destinationAssetId: to.assetId, mode, ...terms });
    const order = await client.order(quote, terms);
    const refreshed = await client.refresh(order);
    for (const o of [order, refreshed]) {
      const ok = await verifyDepositTransaction(o.transaction, { quote, asset: from, ...terms });
      assert.ok(ok.computeUnitLimit !== null, `${from.assetId} ${mode}`);
    }
  }
  assert.ok(cases.length >= 7);
});

test('waitForFinal rides out 429s: it waits as Retry-After asks and still sees the order complete', async () => {
  const slow = await h.createAccount({ rateLimits: { quote: 100, order: 100, status: 1, tokens: 100 } });
  const statuses: number[] = [];
  const counting: typeof fetch = async (input, init) => {
    const res = await h.fetch(input, init);
    if (String((input as Request).url ?? input).includes('/status/')) statuses.push(res.status);
    return res;
  };
  const sdk = simSdk(h, slow.apiKey, { fetch: counting });
  const sender = await seededWallet(h, { sol: 2n * SOL });
  const terms = { senderAddress: sender.address, recipientAddress: h.address() };
  const order = await sdk.order(await sdk.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms }), terms);
  // Poll far faster than the 1/s bucket allows: a client that ignored 429s would fail or spin.
  const final = await h.drive(Promise.all([sdk.waitForFinal(order.trackingId, { intervalMs: 10, signal: h.clock.timeout(600_000) }), signAndSend(sdk, order, sender.signer, { rpc: h.rpc })]));
  assert.equal(final[0].status, 'completed');
  assert.ok(statuses.includes(429), `the bucket was exceeded: ${statuses.join(',')}`);
  const burst = statuses.slice(statuses.indexOf(429));
  assert.ok(burst.length < 60, `after a 429 it waited instead of hammering: ${burst.length} polls`);
});

test('a sending signer (as a Wallet Standard wallet exposes) gets the verified transaction and submits it itself', async () => {
  const key = await seededWallet(h, { sol: 2n * SOL });
  const submitted: string[] = [];
  // A wallet's signAndSendTransactions: signs with its key and submits to its own RPC.
  const wallet: TransactionSendingSigner = {
    address: key.address,
    async signAndSendTransactions(txs) {
      return Promise.all(
        txs.map(async (tx) => {
          const signed = await partiallySignTransactionWithSigners([key.signer], tx);
          submitted.push(getBase64EncodedWireTransaction(signed));
          await h.rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
          return getBase58Encoder().encode(getSignatureFromTransaction(signed)) as never;
        }),
      );
    },
  };
  const terms = { senderAddress: key.address, recipientAddress: h.address() };
  const order = await client.order(await client.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms }), terms);
  // A transaction that moves another amount (here: another order's) never reaches the wallet.
  const other = await client.order(await client.quote({ amount: '200000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms }), terms);
  const refused = await h.drive(signAndSend(client, { ...order, transaction: other.transaction }, wallet)).catch((e: unknown) => e);
  assert.ok(refused instanceof DepositVerificationError && refused.reason === 'transfer', String(refused));
  assert.equal(submitted.length, 0, 'nothing was signed');
  const sent = await h.drive(signAndSend(client, order, wallet)); // no rpc: the wallet sends
  assert.equal(submitted.length, 1);
  const final = await h.drive(client.waitForFinal(order.trackingId, { intervalMs: 100, signal: h.clock.timeout(600_000) }));
  assert.equal(final.status, 'completed');
  assert.equal(final.deposit?.signature, sent.signature);
});

test('the chain\'s refusals as typed errors: an expired transaction (refreshed and sent when asked), an unfunded sender with the amounts', async () => {
  const sender = await seededWallet(h, { sol: 5n * SOL });
  const terms = { senderAddress: sender.address, recipientAddress: h.address() };
  const order = await client.order(await client.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms }), terms);
  // Its blockhash known dead (the order says when): refused before anything is signed, with the fix named.
  const dead = { ...order, blockhashExpiresAtSlot: 0 };
  const e = await h.drive(signAndSend(client, dead, sender.signer, { rpc: h.rpc })).catch((x: unknown) => x);
  assert.ok(e instanceof HushSdkError && e.code === 'BLOCKHASH_EXPIRED', String(e));
  assert.match((e as Error).message, /hush\.refresh\(order\)/);
  // Asked to: refreshed, verified, signed and sent; the order completes with the new transaction.
  const sent = await h.drive(signAndSend(client, dead, sender.signer, { rpc: h.rpc, refreshExpired: true }));
  assert.equal((await h.drive(client.waitForFinal(order.trackingId, { intervalMs: 100, signal: h.clock.timeout(600_000) }))).deposit?.signature, sent.signature);

  // A sender without the SOL: the chain's refusal comes back with what is missing.
  const poor = await seededWallet(h, { sol: 0n });
  const poorTerms = { senderAddress: poor.address, recipientAddress: h.address() };
  const unfunded = await client.order(await client.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...poorTerms }), poorTerms);
  const f = await h.drive(signAndSend(client, unfunded, poor.signer, { rpc: h.rpc })).catch((x: unknown) => x);
  assert.ok(f instanceof InsufficientFundsError && f.code === 'INSUFFICIENT_FUNDS', String(f));
  assert.ok(f.funds.shortfalls.length > 0);
});

test('README.md\'s example, asked to wait for a set, is held for its class (the detail says until when) and goes at the ceiling alone', async () => {
  const { privateSend } = readme.module;
  assert.equal(typeof privateSend, 'function', 'the README example exports privateSend(sender, recipient, usdcBaseUnits?, privacy?)');
  const sender = await seededWallet(h, { usdc: 200_000_000n });
  const log = capturedLog();
  log.start();
  const result = await h.drive(privateSend!(sender.signer, h.address(), '10000000', { minAnonymitySet: 2 })).finally(() => log.stop());
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
