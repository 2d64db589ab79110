/**
 * The partner SDK (packages/sdk) against a real Hush: API + worker + embedded local chain over HTTP, no
 * payout delay. For SOL, USDC and a SOL→USDC swap it quotes, orders, verifies and signs the deposit with a
 * kit KeyPairSigner, sends it, hints it, and waits for `completed`; the recipient then holds exactly
 * amountOut. Also: errors arrive as HushApiError with the docs/spec.md §6 code and the request id; the SDK's
 * Idempotency-Key (the plain IETF header) replays an order; status revalidates with its ETag; and the
 * SDK's committed types are what the OpenAPI document this server serves renders to.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, test } from 'node:test';
import { address as toAddress, createKeyPairSignerFromPrivateKeyBytes, getBase64EncodedWireTransaction, getSignatureFromTransaction, getBase58Encoder, partiallySignTransactionWithSigners, type TransactionSendingSigner, generateKeyPairSigner, getAddressEncoder, lamports, type Address } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { createHushClient, DepositVerificationError, HushApiError, HushSdkError, InsufficientFundsError, signAndSend, verifyDepositTransaction, type HushClient, type StatusRecord, type Token } from '../../packages/sdk/src/index.ts';
import { committedTypes, renderTypes } from '../../scripts/sdk-types.ts';
import { fundedSender, startTestHush, SOL, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { makeTempDir, pollUntil, removeDir, waitForStatus } from '../support/localnet.ts';
import { runPartnerCli } from '../support/partner-cli.ts';

let t: TestHush;
let acct: TestAccount;
let client: HushClient;
let tokens: Token[];

before(async () => {
  t = await startTestHush();
  acct = await t.createAccount();
  client = createHushClient({ baseUrl: t.url, apiKey: acct.apiKey });
  tokens = await client.tokens();
});
after(async () => {
  await t?.close();
});

test('the SDK types are the ones the served OpenAPI document generates (npm run generate:sdk)', async () => {
  const doc = await (await fetch(`${t.url}/transfer/v1/openapi.json`)).json();
  assert.equal(await renderTypes(doc), committedTypes(), 'packages/sdk/src/generated/openapi.ts is stale: run `npm run generate:sdk`');
  const ops = Object.values(doc.paths as Record<string, Record<string, { operationId?: string }>>).flatMap((m) => Object.values(m).map((o) => o.operationId));
  assert.deepEqual(ops.sort(), [
    'clearWebhook', 'createApiKey', 'createOrder', 'createQuote', 'findOrderByQuote', 'getAccount', 'getReceipt', 'getStatus',
    'listReceiptKeys', 'listTokens', 'receiptCheckPage', 'refreshOrder', 'revokeApiKey', 'rotateWebhookSecret', 'sendDepositHint', 'sendTestWebhook', 'setWebhook',
  ]);
});

async function balanceOf(owner: Address, token: Token): Promise<bigint> {
  if (token.native) return (await t.rpc.getBalance(owner, { commitment: 'confirmed' }).send()).value;
  const [ata] = await findAssociatedTokenPda({ owner, mint: toAddress(token.mint), tokenProgram: toAddress(token.tokenProgram) });
  return BigInt((await t.rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send()).value.amount);
}

async function transfer(from: string, to: string, amount: bigint) {
  const destination = tokens.find((x) => x.assetId === to)!;
  const sender = await fundedSender(t, { sol: 5n * SOL, ...(from === 'usdc' ? { usdc: 2n * amount } : {}) });
  const recipient = await generateKeyPairSigner();
  const terms = { senderAddress: sender.address, recipientAddress: recipient.address, feeBps: 25, feeRecipientAddress: acct.feeRecipients[0]! };
  const quote = await client.quote({ amount: amount.toString(), sourceAssetId: from, destinationAssetId: to, ...terms });
  const order = await client.order(quote, terms);
  // 50 ms slots give a blockhash 7.5 s: a loaded machine can spend that between the order and the send, and
  // a partner's remedy is the SDK's own (the expired path itself is the test further down).
  const sent = await signAndSend(client, order, sender, { rpc: t.rpc, refreshExpired: true });
  assert.ok(sent.hint, 'the deposit hint was answered');
  const seen: StatusRecord[] = [];
  const final = await client.waitForFinal(order.trackingId, { intervalMs: 100, onStatus: (s) => seen.push(s), signal: AbortSignal.timeout(60_000) });
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
  assert.equal(await balanceOf(recipient.address, destination), BigInt(quote.amountOut), `${from}→${to}: the recipient holds amountOut`);
  return { quote, order, final };
}

test('SOL, USDC and a SOL→USDC swap: quote → order → verify, sign, send → completed', async () => {
  const [sol, usdc, swap] = await Promise.all([transfer('sol', 'sol', 100_000_000n), transfer('usdc', 'usdc', 25_000_000n), transfer('sol', 'usdc', 500_000_000n)]);
  assert.equal(sol.quote.amountIn, '100000000');
  assert.equal(usdc.order.sourceSymbol, 'USDC');
  assert.equal(swap.final.destinationAssetId, 'usdc');
  assert.equal(swap.final.amountOut, swap.quote.amountOut);

  // The hint retried once the sweep has closed the SOL order's wrapped-SOL deposit account (docs/spec.md §4: safe
  // to retry): the recorded deposit, as before (it was refused as SOL sent before the account existed).
  const { rows } = await t.db.query<{ deposit_account: Address }>('SELECT deposit_account FROM orders WHERE tracking_id = $1', [sol.order.trackingId]);
  const closed = async () => (await t.rpc.getAccountInfo(rows[0]!.deposit_account, { commitment: 'confirmed', encoding: 'base64' }).send()).value === null;
  await pollUntil(async () => ((await t.hush.worker!.sweepTick()) >= 0 && (await closed())) || null, { timeoutMs: 60_000, intervalMs: 250, what: 'the SOL deposit account swept and closed' });
  const retried = await client.depositHint(sol.order.trackingId, sol.final.deposit!.signature);
  assert.equal(retried.pending, false);
  assert.equal(retried.order.status, 'completed');
  assert.deepEqual(retried.order.deposit, sol.final.deposit);
});

test('errors are HushApiError with the docs/spec.md §6 code, status and request id', async () => {
  const wallet = (await generateKeyPairSigner()).address;
  const err = await client.quote({ amount: '1000', sourceAssetId: 'nope', destinationAssetId: 'nope', senderAddress: wallet, recipientAddress: wallet }).catch((e: unknown) => e);
  assert.ok(err instanceof HushApiError, String(err));
  assert.equal(err.code, 'UNSUPPORTED_ASSET');
  assert.equal(err.status, 400);
  assert.match(err.requestId ?? '', /.+/);
  const missing = await client.status('trk_1111111111111111111111').catch((e: unknown) => e);
  assert.ok(missing instanceof HushApiError && missing.code === 'NOT_FOUND');
  const bad = await createHushClient({ baseUrl: t.url, apiKey: 'hush_aaaaaaaaaaaa_nope' }).tokens().catch((e: unknown) => e);
  assert.ok(bad instanceof HushApiError && bad.code === 'UNAUTHORIZED' && bad.status === 401);
});

test('the Idempotency-Key the SDK sends replays the order; status revalidates with its ETag', async () => {
  const sender = (await generateKeyPairSigner()).address;
  const terms = { senderAddress: sender, recipientAddress: (await generateKeyPairSigner()).address };
  const quote = await client.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms });
  const first = await client.order(quote, terms);
  assert.match(first.idempotencyKey, /^sdk-/);
  const again = await client.order(quote, terms, { idempotencyKey: first.idempotencyKey });
  assert.equal(again.trackingId, first.trackingId);
  assert.equal(again.transaction, first.transaction, 'the replay is the original answer');
  const other = await client.order(quote, terms, { idempotencyKey: 'another-key' }).catch((e: unknown) => e);
  assert.ok(other instanceof HushApiError && other.code === 'QUOTE_ALREADY_USED', String(other));
  // Both names at once only with one value.
  const both = await fetch(`${t.url}/transfer/v1/order`, {
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
  await Promise.all(
    cases.map(async ({ from, to, mode }) => {
      const terms = { senderAddress: (await generateKeyPairSigner()).address, recipientAddress: (await generateKeyPairSigner()).address };
      const quote = await client.quote({ amount: (2n * BigInt(from.min)).toString(), sourceAssetId: from.assetId, destinationAssetId: to.assetId, mode, ...terms });
      const order = await client.order(quote, terms);
      const refreshed = await client.refresh(order);
      for (const o of [order, refreshed]) {
        const ok = await verifyDepositTransaction(o.transaction, { quote, asset: from, ...terms });
        assert.ok(ok.computeUnitLimit !== null, `${from.assetId} ${mode}`);
      }
    }),
  );
  assert.ok(cases.length >= 7);
});

/** The partner CLI as a partner runs it: its own process, configured by the environment. */
function hush(args: string[], apiKey = acct.apiKey): Promise<{ code: number; stdout: string; stderr: string }> {
  return runPartnerCli(args, { HUSH_URL: t.url, HUSH_API_KEY: apiKey, SOLANA_RPC_URL: t.chainUrl });
}

test('the partner CLI: send verifies, signs and prints each state to completed; tokens, quote, status, watch, errors', async () => {
  const dir = makeTempDir('hush-cli-');
  try {
    const seed = randomBytes(32);
    const sender = await createKeyPairSignerFromPrivateKeyBytes(seed);
    const keypair = join(dir, 'sender.json');
    writeFileSync(keypair, JSON.stringify([...seed, ...getAddressEncoder().encode(sender.address)]));
    await waitForStatus(t.rpc, await t.rpc.requestAirdrop(sender.address, lamports(2n * SOL)).send(), 'confirmed');
    const recipient = (await generateKeyPairSigner()).address;
    const [send, listed, usage, refused] = await Promise.all([
      hush(['send', '--keypair', keypair, '--from', 'sol', '--amount', '100000000', '--recipient', recipient, '--interval', '100']),
      hush(['tokens']),
      hush(['frobnicate']),
      hush(['tokens'], 'hush_aaaaaaaaaaaa_nope'),
    ]);
    assert.equal(send.code, 0, send.stderr);
    const trackingId = /order (trk_\w+)/.exec(send.stdout)?.[1];
    assert.ok(trackingId, send.stdout);
    assert.match(send.stdout, /deposit verified, signed and sent: \w{64,88}/);
    const states = [...send.stdout.matchAll(new RegExp(`${trackingId} (\\w+)`, 'g'))].map((m) => m[1]);
    assert.equal(states.at(-1), 'completed', send.stdout);
    assert.ok(!send.stdout.includes('\r'), 'plain lines when stdout is not a terminal');
    assert.ok(JSON.parse(listed.stdout).some((x: Token) => x.assetId === 'usdc'));
    assert.equal(usage.code, 2);
    assert.match(usage.stderr, /unknown command frobnicate/);
    assert.equal(refused.code, 1);
    assert.match(refused.stderr, /UNAUTHORIZED/);
    const [status, quoted, watched] = await Promise.all([
      hush(['status', trackingId]),
      hush(['quote', '--from', 'usdc', '--amount', '5000000', '--sender', sender.address, '--recipient', recipient]),
      hush(['watch', trackingId, '--interval', '100']),
    ]);
    assert.equal(JSON.parse(status.stdout).status, 'completed');
    assert.equal(quoted.code, 0, quoted.stderr);
    assert.deepEqual([JSON.parse(quoted.stdout).sourceAssetId, JSON.parse(quoted.stdout).amountIn], ['usdc', '5000000']);
    // 5 USDC is not on the decade menu: said so, with the private amounts nearby and what each would get.
    assert.match(quoted.stderr, /5000000 usdc is NOT a private amount/);
    for (const a of JSON.parse(quoted.stdout).privacy.suggestedAmounts) assert.match(quoted.stderr, new RegExp(`^ +${a}  set ≥ \\d+ \\(likely \\d+\\), wait ≤ \\d+ s, 4 times in 5$`, 'm'));
    assert.ok(JSON.parse(quoted.stdout).privacy.suggestedAmounts.includes('10000000'), quoted.stderr);
    assert.equal(watched.code, 0, watched.stderr);
    assert.match(watched.stdout, new RegExp(`${trackingId} completed`), 'watch prints the final state and ends');
    assert.equal(await balanceOf(recipient, tokens.find((x) => x.assetId === 'sol')!), BigInt(JSON.parse(status.stdout).amountOut));
  } finally {
    removeDir(dir);
  }
});

test('waitForFinal rides out 429s: it waits as Retry-After asks and still sees the order complete', async () => {
  const slow = await t.createAccount({ rateLimits: { quote: 100, order: 100, status: 1, tokens: 100 } });
  const statuses: number[] = [];
  const counting: typeof fetch = async (input, init) => {
    const res = await fetch(input, init);
    if (String((input as Request).url ?? input).includes('/status/')) statuses.push(res.status);
    return res;
  };
  const sdk = createHushClient({ baseUrl: t.url, apiKey: slow.apiKey, fetch: counting });
  const sender = await fundedSender(t, { sol: 2n * SOL });
  const terms = { senderAddress: sender.address, recipientAddress: (await generateKeyPairSigner()).address };
  const order = await sdk.order(await sdk.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms }), terms);
  // Poll far faster than the 1/s bucket allows: a client that ignored 429s would fail or spin.
  const final = await Promise.all([sdk.waitForFinal(order.trackingId, { intervalMs: 10, signal: AbortSignal.timeout(60_000) }), signAndSend(sdk, order, sender, { rpc: t.rpc })]);
  assert.equal(final[0].status, 'completed');
  assert.ok(statuses.includes(429), `the bucket was exceeded: ${statuses.join(',')}`);
  const burst = statuses.slice(statuses.indexOf(429));
  assert.ok(burst.length < 60, `after a 429 it waited instead of hammering: ${burst.length} polls`);
});

test('a sending signer (as a Wallet Standard wallet exposes) gets the verified transaction and submits it itself', async () => {
  const key = await fundedSender(t, { sol: 2n * SOL });
  const submitted: string[] = [];
  // A wallet's signAndSendTransactions: signs with its key and submits to its own RPC.
  const wallet: TransactionSendingSigner = {
    address: key.address,
    async signAndSendTransactions(txs) {
      return Promise.all(
        txs.map(async (tx) => {
          const signed = await partiallySignTransactionWithSigners([key], tx);
          submitted.push(getBase64EncodedWireTransaction(signed));
          await t.rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64' }).send();
          return getBase58Encoder().encode(getSignatureFromTransaction(signed)) as never;
        }),
      );
    },
  };
  const terms = { senderAddress: key.address, recipientAddress: (await generateKeyPairSigner()).address };
  const order = await client.order(await client.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms }), terms);
  // A transaction that moves another amount (here: another order's) never reaches the wallet.
  const other = await client.order(await client.quote({ amount: '200000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms }), terms);
  const refused = await signAndSend(client, { ...order, transaction: other.transaction }, wallet).catch((e: unknown) => e);
  assert.ok(refused instanceof DepositVerificationError && refused.reason === 'transfer', String(refused));
  assert.equal(submitted.length, 0, 'nothing was signed');
  const sent = await signAndSend(client, order, wallet); // no rpc: the wallet sends
  assert.equal(submitted.length, 1);
  const final = await client.waitForFinal(order.trackingId, { intervalMs: 100, signal: AbortSignal.timeout(60_000) });
  assert.equal(final.status, 'completed');
  assert.equal(final.deposit?.signature, sent.signature);
});

test('the chain\'s refusals as typed errors: an expired transaction (refreshed and sent when asked), an unfunded sender with the amounts', async () => {
  const sender = await fundedSender(t, { sol: 5n * SOL });
  const terms = { senderAddress: sender.address, recipientAddress: (await generateKeyPairSigner()).address };
  const order = await client.order(await client.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...terms }), terms);
  // Its blockhash known dead (the order says when): refused before anything is signed, with the fix named.
  const dead = { ...order, blockhashExpiresAtSlot: 0 };
  const e = await signAndSend(client, dead, sender, { rpc: t.rpc }).catch((x: unknown) => x);
  assert.ok(e instanceof HushSdkError && e.code === 'BLOCKHASH_EXPIRED', String(e));
  assert.match((e as Error).message, /hush\.refresh\(order\)/);
  // Asked to: refreshed, verified, signed and sent; the order completes with the new transaction.
  const sent = await signAndSend(client, dead, sender, { rpc: t.rpc, refreshExpired: true });
  assert.equal((await client.waitForFinal(order.trackingId, { intervalMs: 100, signal: AbortSignal.timeout(60_000) })).deposit?.signature, sent.signature);

  // A sender without the SOL: the chain's refusal comes back with what is missing.
  const poor = await generateKeyPairSigner();
  const poorTerms = { senderAddress: poor.address, recipientAddress: (await generateKeyPairSigner()).address };
  const unfunded = await client.order(await client.quote({ amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', ...poorTerms }), poorTerms);
  const f = await signAndSend(client, unfunded, poor, { rpc: t.rpc }).catch((x: unknown) => x);
  assert.ok(f instanceof InsufficientFundsError && f.code === 'INSUFFICIENT_FUNDS', String(f));
  assert.ok(f.funds.shortfalls.length > 0);
});
