/**
 * The OpenAPI examples are in the formats Hush really issues, and its error examples say what Hush really
 * says: quoteIds, trackingIds, addresses, signatures, transactions and event ids are checked against the
 * issuers, and error bodies against the answers of the app itself (the real routes, validation, error
 * handler and quote service; only the key lookup is a stand-in, since no request here needs a store).
 */
import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import bs58 from 'bs58';
import { getBase64Encoder, getTransactionDecoder, isAddress } from '@solana/kit';
import type { FastifyInstance } from 'fastify';
import { buildApp, type ApiDeps } from '../../src/api/app.ts';
import { EXAMPLE_QUOTE_KEY, depositTransactionExample, orderRequestExample, quoteExample, quoteRequestExample } from '../../src/api/examples.ts';
import { errorExample } from '../../src/api/examples/error-examples.ts';
import { createMetrics } from '../../src/api/metrics.ts';
import { QUOTE_ID_PATTERN, TRACKING_ID_PATTERN, type OperationId } from '../../src/api/schemas.ts';
import { EXAMPLE_WEBHOOK_SECRET } from '../../src/api/schemas/webhook-events.ts';
import { buildDepositTransaction } from '../../src/chain/deposit-transaction.ts';
import { loadConfig } from '../../src/config/config.ts';
import { HushError, type HushErrorCode } from '../../src/domain/errors.ts';
import { openQuoteId } from '../../src/domain/quote-token.ts';
import { newTrackingId } from '../../src/domain/tracking-id.ts';
import { QuoteService } from '../../src/services/quote-service.ts';
import type { AccountRecord } from '../../src/store/accounts-store.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

type Json = Record<string, any>;
const FEE_RECIPIENT = quoteRequestExample.feeRecipientAddress;
// The account bucket is 1/s by default: the self-service cases below come faster.
const account = (id: string, feeRecipients: string[]): AccountRecord => ({ id, name: id, feeCapBps: 100, status: 'active', rateLimits: { account: 1000 }, feeRecipients });
/** Two accounts: the example's (its fee recipient registered) and one without fee recipients. */
const CALLERS: Record<string, { keyId: string; account: AccountRecord }> = {
  'Bearer example': { keyId: 'k1', account: account(EXAMPLE_QUOTE_KEY.accountId, [FEE_RECIPIENT]) },
  'Bearer bare': { keyId: 'k2', account: account('acct_bare', []) },
};

let app: FastifyInstance;
let doc: Json;

before(async () => {
  const config = loadConfig({});
  const auth = {
    authenticateCached: (header?: string) => {
      const caller = CALLERS[header ?? ''];
      if (!caller) throw new HushError('UNAUTHORIZED', 'Missing or invalid API key');
      return caller;
    },
  };
  const deps = { config, metrics: createMetrics(async () => new Map()), auth, quotes: new QuoteService(config, EXAMPLE_QUOTE_KEY.secret, systemClock, systemRandom), clock: systemClock, random: systemRandom } as unknown as ApiDeps;
  app = await buildApp(deps);
  doc = (await app.inject({ method: 'GET', url: '/docs/json' })).json();
});
after(() => app.close());

/** Every value under a key of that name anywhere in the document (examples included), with its parent. */
function valuesOf(key: string | RegExp, node: unknown = doc, parent: Json | null = null, out: { value: unknown; parent: Json }[] = []) {
  if (Array.isArray(node)) node.forEach((n) => valuesOf(key, n, parent, out));
  else if (typeof node === 'object' && node !== null) {
    for (const [k, v] of Object.entries(node)) {
      if (typeof v === 'string' && (typeof key === 'string' ? k === key : key.test(k))) out.push({ value: v, parent: node as Json });
      valuesOf(key, v, node as Json, out);
    }
  }
  return out;
}

const send = (method: 'POST' | 'PUT' | 'DELETE') => (url: string, body: unknown, headers: Record<string, string> = {}) =>
  app.inject({ method, url, headers: { authorization: 'Bearer example', 'content-type': 'application/json', ...headers }, payload: typeof body === 'string' ? body : JSON.stringify(body) });
const [post, put, del] = [send('POST'), send('PUT'), send('DELETE')];

describe('OpenAPI examples are what Hush issues', () => {
  test('quoteIds: issued by the real issuer, and a live quote has the same shape', async () => {
    const ids = valuesOf('quoteId');
    assert.ok(ids.length >= 3, `${ids.length} example quoteIds`);
    for (const { value, parent } of ids) {
      assert.match(value as string, new RegExp(QUOTE_ID_PATTERN));
      const opened = openQuoteId(EXAMPLE_QUOTE_KEY.secret, EXAMPLE_QUOTE_KEY.accountId, value as string);
      assert.ok(opened, 'the example quoteId opens as a quote Hush issued');
      assert.deepEqual(parent, opened.quote, 'the example quote is exactly the one its quoteId carries');
    }
    const live = await post('/transfer/v1/quote', quoteRequestExample);
    assert.equal(live.statusCode, 200, live.body);
    const quote = live.json().quote;
    assert.deepEqual(Object.keys(quote), Object.keys(quoteExample), 'same fields in the same order');
    assert.match(quote.quoteId, new RegExp(QUOTE_ID_PATTERN));
    const version = (id: string) => Buffer.from(id.slice(2), 'base64url')[0];
    assert.equal(version(quoteExample.quoteId), version(quote.quoteId), 'same layout version');
    assert.ok(Math.abs(quote.quoteId.length - quoteExample.quoteId.length) <= 4, `same terms, about the same length: ${quote.quoteId.length} vs ${quoteExample.quoteId.length}`);
    assert.equal(quote.privacy.standard, quoteExample.privacy.standard, 'the example amount is a private amount');
    assert.deepEqual(quote.privacy.suggestedAmounts, quoteExample.privacy.suggestedAmounts);
    assert.deepEqual(quote.feeBreakdown, quoteExample.feeBreakdown, 'the default fees');
    assert.equal(quote.amountOut, quoteExample.amountOut);
  });

  test('trackingIds, event ids and request ids have the issued format', () => {
    for (let i = 0; i < 200; i++) assert.match(newTrackingId((n) => systemRandom.int(n)), new RegExp(TRACKING_ID_PATTERN));
    const trackingIds = valuesOf('trackingId');
    assert.ok(trackingIds.length >= 5);
    for (const { value } of trackingIds) assert.match(value as string, new RegExp(TRACKING_ID_PATTERN));
    // As the dispatcher (keyed HMAC) and the webhook test (random bytes) make them.
    const EVENT_ID = /^evt_([A-Za-z0-9_-]{22}|test_[A-Za-z0-9_-]{16})$/;
    assert.match(`evt_${createHmac('sha256', randomBytes(32)).update('17').digest('base64url').slice(0, 22)}`, EVENT_ID);
    assert.match(`evt_test_${randomBytes(12).toString('base64url')}`, EVENT_ID);
    const events = [...valuesOf('eventId'), ...valuesOf('id').filter(({ parent }) => 'createdAt' in parent)];
    assert.ok(events.length >= 5);
    for (const { value } of events) assert.match(value as string, EVENT_ID);
    for (const { value } of valuesOf('requestId')) assert.match(value as string, /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/);
  });

  test('addresses, signatures and the deposit transaction are real Solana values', async () => {
    const addresses = valuesOf(/(Address|^mint|^tokenProgram)$/);
    assert.ok(addresses.length >= 10);
    for (const { value } of addresses) assert.ok(isAddress(value as string) && bs58.decode(value as string).length === 32, `${value} is an address`);
    const signatures = valuesOf('signature');
    assert.ok(signatures.length >= 5);
    for (const { value } of signatures) assert.equal(bs58.decode(value as string).length, 64, `${value} is a signature`);
    const { base64 } = await buildDepositTransaction(depositTransactionExample.input);
    assert.equal(base64, depositTransactionExample.base64, 'the example transaction is what Hush builds from its inputs');
    const transactions = valuesOf('transaction');
    assert.ok(transactions.length >= 2);
    for (const { value } of transactions) {
      assert.equal(value, base64);
      const tx = getTransactionDecoder().decode(getBase64Encoder().encode(value as string));
      assert.deepEqual(Object.keys(tx.signatures), [quoteRequestExample.senderAddress], 'signed by the sender only');
    }
  });

  test('the webhook examples carry the signatures Hush would send with them', () => {
    const key = Buffer.from(EXAMPLE_WEBHOOK_SECRET.replace(/^whsec_/, ''), 'base64');
    for (const [type, item] of Object.entries(doc.webhooks as Json)) {
      const op = item.post;
      const header = (name: string) => (op.parameters as Json[]).find((p) => p.name === name)?.example as string;
      const event = op.requestBody.content['application/json'].example;
      const body = JSON.stringify(event);
      assert.equal(header('webhook-id'), event.id, type);
      const ts = header('webhook-timestamp');
      assert.match(ts, /^\d{10}$/);
      assert.ok(Math.abs(Number(ts) - Date.parse(event.createdAt) / 1000) < 60, `${type}: sent right after the event`);
      const expected = createHmac('sha256', key).update(`${event.id}.${ts}.${body}`).digest('base64');
      assert.equal(header('webhook-signature'), `v1,${expected}`, `${type}: Standard Webhooks signature`);
      assert.equal(header('hush-signature'), `t=${ts},v1=${createHmac('sha256', EXAMPLE_WEBHOOK_SECRET).update(`${ts}.${body}`).digest('hex')}`, `${type}: legacy signature`);
    }
  });

  /** Requests that draw a code from the app, and the operation whose example they check. */
  const LIVE: { op: OperationId; code: HushErrorCode; send: () => Promise<{ statusCode: number; json: () => Json }> }[] = [
    { op: 'createQuote', code: 'INVALID_REQUEST', send: () => post('/transfer/v1/quote', { ...quoteRequestExample, amount: '25.5' }) },
    { op: 'createQuote', code: 'UNSUPPORTED_ASSET', send: () => post('/transfer/v1/quote', { ...quoteRequestExample, destinationAssetId: 'usdt2' }) },
    { op: 'createQuote', code: 'UNSUPPORTED_MODE', send: () => post('/transfer/v1/quote', { ...quoteRequestExample, destinationAssetId: 'usdc', mode: 'exact_out' }) },
    { op: 'createQuote', code: 'PAIR_NOT_SUPPORTED', send: () => post('/transfer/v1/quote', { ...quoteRequestExample, destinationAssetId: 'bonk' }) },
    { op: 'createQuote', code: 'INVALID_ADDRESS', send: () => post('/transfer/v1/quote', { ...quoteRequestExample, recipientAddress: 'not-an-address' }) },
    { op: 'createQuote', code: 'AMOUNT_TOO_LOW', send: () => post('/transfer/v1/quote', { ...quoteRequestExample, amount: '1000' }) },
    { op: 'createQuote', code: 'AMOUNT_TOO_HIGH', send: () => post('/transfer/v1/quote', { ...quoteRequestExample, amount: '2000000000000' }) },
    { op: 'createQuote', code: 'FEE_BPS_TOO_HIGH', send: () => post('/transfer/v1/quote', { ...quoteRequestExample, feeBps: 101 }) },
    { op: 'createQuote', code: 'FEE_RECIPIENT_REQUIRED', send: () => post('/transfer/v1/quote', { ...quoteRequestExample, feeRecipientAddress: undefined }) },
    { op: 'createQuote', code: 'FEE_RECIPIENT_NOT_REGISTERED', send: () => post('/transfer/v1/quote', quoteRequestExample, { authorization: 'Bearer bare' }) },
    { op: 'createQuote', code: 'UNSUPPORTED_MEDIA_TYPE', send: () => post('/transfer/v1/quote', 'amount=1', { 'content-type': 'text/plain' }) },
    { op: 'createQuote', code: 'PAYLOAD_TOO_LARGE', send: () => post('/transfer/v1/quote', { ...quoteRequestExample, pad: 'x'.repeat(70_000) }) },
    { op: 'createQuote', code: 'UNAUTHORIZED', send: () => post('/transfer/v1/quote', quoteRequestExample, { authorization: 'Bearer nobody' }) },
    { op: 'createOrder', code: 'INVALID_REQUEST', send: () => post('/transfer/v1/order', orderRequestExample, { 'idempotency-key': 'clé' }) },
    { op: 'getStatus', code: 'INVALID_REQUEST', send: () => app.inject({ method: 'GET', url: '/transfer/v1/status/%ff', headers: { authorization: 'Bearer example' } }) },
    { op: 'sendDepositHint', code: 'INVALID_REQUEST', send: () => post('/transfer/v1/deposit', { trackingId: 'trk_2JryitQJkiaRiDSdak1qQ1' }) },
    { op: 'sendTestWebhook', code: 'INVALID_REQUEST', send: () => post('/transfer/v1/webhooks/test', '{') },
    { op: 'refreshOrder', code: 'INVALID_REQUEST', send: () => post('/transfer/v1/order/trk_2JryitQJkiaRiDSdak1qQ1/refresh', '{') },
    // The partner's own account: what is refused before any store read.
    { op: 'setWebhook', code: 'INVALID_REQUEST', send: () => put('/transfer/v1/account/webhook', { url: 'ftp://hooks.partner.example/hush' }) },
    { op: 'setWebhook', code: 'WEBHOOK_URL_REFUSED', send: () => put('/transfer/v1/account/webhook', { url: 'https://10.20.30.40/hush' }) },
    { op: 'rotateWebhookSecret', code: 'INVALID_REQUEST', send: () => post('/transfer/v1/account/webhook/rotate-secret', '{') },
    { op: 'createApiKey', code: 'INVALID_REQUEST', send: () => post('/transfer/v1/account/keys', { expiresInSeconds: 30 }) },
    // A DELETE's body is parsed when one is sent: its errors are the operation's.
    { op: 'clearWebhook', code: 'INVALID_REQUEST', send: () => del('/transfer/v1/account/webhook', '{') },
    { op: 'revokeApiKey', code: 'INVALID_REQUEST', send: () => del('/transfer/v1/account/keys/b3nt5vd6ye2c', '{') },
  ];
  for (const { op, code, send } of LIVE) {
    test(`${op} ${code}: the example is what the app answers`, async () => {
      const res = await send();
      const live = res.json();
      assert.equal(live.error?.code, code, JSON.stringify(live));
      const documented = (errorExample(op, code).value as Json).error;
      assert.deepEqual({ ...live.error, requestId: '' }, { ...documented, requestId: '' });
    });
  }

  test('common mistakes are answered with the fix', async () => {
    for (const amount of ['25.5', '1e6', 25500000, '-1', '025']) {
      const res = await post('/transfer/v1/quote', { ...quoteRequestExample, amount });
      assert.equal(res.statusCode, 400);
      assert.match(res.json().error.message, /amount must be an amount in base units: decimal digits only.*"25500000"/, `amount ${JSON.stringify(amount)}`);
    }
    const res = await post('/transfer/v1/quote', { ...quoteRequestExample, sourceAssetId: 'SOL' });
    assert.equal(res.json().error.code, 'UNSUPPORTED_ASSET');
    assert.match(res.json().error.message, /valid asset ids: sol, usdc, usdt, bonk$/);
  });
});
