import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { HushError } from '../../domain/errors.ts';
import type { Caller } from '../../services/authenticator.ts';
import type { ApiDeps } from '../deps.ts';
import { takeAnonymousToken, type AnonymousLimiter } from '../error-handler.ts';
import { DESCRIPTIONS } from './operation-descriptions.ts';
import { accountRoutes } from './account-routes.ts';
import { BEARER, caller, perKeyLimit } from './route-kit.ts';
import { receiptOfOrder } from '../../store/receipts/receipt-of-order.ts';
import { trackingIdByQuoteKey } from '../../store/order-by-quote.ts';
import { quoteKey } from '../../domain/quote-token.ts';
import { Type } from 'typebox';
import { listReceiptKeys } from '../../store/receipts/receipt-keys.ts';
import { sendTestWebhook, webhookEgressFor } from '../../webhooks/webhook-test.ts';
import type { Clock } from '../../support/clock.ts';
import { requestLane } from '../request-lane.ts';
import {
  DepositHintBody,
  QUOTE_ID_PATTERN,
  EmptyBody,
  NotModified,
  OrderCreatedResponse,
  OrderRequestBody,
  OrderResponse,
  QuoteRequestBody,
  QuoteResponse,
  StatusRecordResponse,
  StatusResponse,
  TokensResponse,
  ReceiptKeysResponse,
  ReceiptResponse,
  TrackingIdParams,
  WebhookTestResponse,
  OPERATION_ERRORS,
  documented,
  errorResponses as errors,
} from '../schemas.ts';

const IDEMPOTENCY_KEY = /^[\x20-\x7e]{1,255}$/;
const RECEIPT_KEYS_URL = '/transfer/v1/receipt-keys';
/** A worker publishes its receipt key when it starts: a new key shows within this long. */
const RECEIPT_KEYS_TTL_MS = 5_000;

/** The last answer of `read` for `ttlMs`; a failed read is not kept. */
function shortLived<T>(clock: Pick<Clock, 'now'>, ttlMs: number, read: () => Promise<T>): { get(): Promise<T> } {
  let kept: { at: number; value: Promise<T> } | null = null;
  return {
    get() {
      if (kept && clock.now() - kept.at < ttlMs) return kept.value;
      const value = read();
      kept = { at: clock.now(), value };
      value.catch(() => (kept = null));
      return value;
    },
  };
}

/**
 * The order's idempotency key: the IETF `Idempotency-Key` header or the interface's `X-Idempotency-Key`
 * (Stripe-style clients send the first); both may be sent only with the same value.
 */
function idempotencyKeyOf(request: FastifyRequest): string | undefined {
  const plain = request.headers['idempotency-key'];
  const legacy = request.headers['x-idempotency-key'];
  const field = plain !== undefined ? 'Idempotency-Key' : 'X-Idempotency-Key';
  const raw = plain ?? legacy;
  if (raw === undefined) return undefined;
  if (typeof raw !== 'string' || !IDEMPOTENCY_KEY.test(raw)) {
    throw new HushError('INVALID_REQUEST', `${field} must be 1–255 printable ASCII characters`, { field });
  }
  if (plain !== undefined && legacy !== undefined && plain !== legacy) {
    throw new HushError('INVALID_REQUEST', 'Idempotency-Key and X-Idempotency-Key differ; send one of them', { field: 'Idempotency-Key' });
  }
  return raw;
}

/**
 * A request no key's bucket covers takes from the client address's anonymous bucket (app.ts), so it carries
 * RateLimit-* like every answer (docs/spec.md §7). Only a refused key becomes 429 once it is empty: another
 * failure (a store outage, 503) is not the client's doing and keeps its own answer. Module-level, not a closure
 * made per request (under tsx's keepNames each such closure also pays a defineProperty).
 */
function refuse(limitAnonymous: AnonymousLimiter | undefined, request: FastifyRequest, reply: FastifyReply, done: (e?: Error) => void, e: Error): void {
  void takeAnonymousToken(limitAnonymous, request, reply).then((limited) =>
    done(e instanceof HushError && (e.code === 'UNAUTHORIZED' || e.code === 'ACCOUNT_SUSPENDED') ? (limited ?? e) : e),
  );
}

/** The partner API (seed + docs/spec.md §4), every route behind a bearer key and a per-key rate limit. */
export async function transferRoutes(fastify: FastifyInstance, { deps, limitAnonymous }: { deps: ApiDeps; limitAnonymous?: AnonymousLimiter }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const { config } = deps;

  // Callback style with a synchronous path for cached keys: this hook runs on every partner request.
  app.addHook('onRequest', (request, reply, done) => {
    // The published receipt keys answer without a key too: the public receipt-check page fetches them
    // (docs/decisions.md "Receipt keys are public"). A key, when sent, is checked as anywhere else.
    if (request.headers.authorization === undefined && request.routeOptions.url === RECEIPT_KEYS_URL) return done();
    let cached: Caller | undefined;
    try {
      cached = deps.auth.authenticateCached(request.headers.authorization);
    } catch (e) {
      return refuse(limitAnonymous, request, reply, done, e as Error);
    }
    if (cached) {
      request.caller = cached;
      return done();
    }
    deps.auth.authenticate(request.headers.authorization).then((caller) => {
      request.caller = caller;
      done();
    }, (e: Error) => refuse(limitAnonymous, request, reply, done, e));
  });

  const limit = perKeyLimit(config.rateLimits);
  const security = BEARER;
  // Asked by anonymous pages too: at most one store read per few seconds, whoever asks.
  const receiptKeys = shortLived(deps.clock, RECEIPT_KEYS_TTL_MS, () => listReceiptKeys(deps.db));

  app.get(
    '/tokens',
    { config: limit('tokens'), exposeHeadRoute: false, schema: { operationId: 'listTokens', tags: ['transfer'], summary: 'Assets usable as source and destination', description: DESCRIPTIONS.listTokens, security, response: { 200: documented(TokensResponse, 'Every asset Hush moves'), ...errors(OPERATION_ERRORS.listTokens) } } },
    async (request) => ({
      success: true as const,
      tokens: config.assets.list.map((a) => ({
        assetId: a.assetId,
        symbol: a.symbol,
        name: a.name,
        decimals: a.decimals,
        mint: a.mint,
        tokenProgram: a.tokenProgram,
        native: a.native,
        swappable: a.swappable,
        min: deps.quotes.bounds(a, caller(request).account.id).min.toString(),
        max: deps.quotes.bounds(a, caller(request).account.id).max.toString(),
        denominations: a.denominations.map(String),
        swapGrid: a.swapGrid.toString(),
      })),
    }),
  );

  app.post(
    '/quote',
    {
      config: limit('quote'),
      schema: {
        operationId: 'createQuote',
        tags: ['transfer'],
        summary: 'Price a transfer: amounts, fees, limits, delivery time, privacy',
        description: DESCRIPTIONS.createQuote,
        security,
        body: QuoteRequestBody,
        response: {
          200: documented(QuoteResponse, 'A firm quote until expiresAt'),
          ...errors(OPERATION_ERRORS.createQuote),
        },
      },
    },
    async (request) => {
      refuseWhilePaused(deps);
      return { success: true as const, quote: await deps.quotes.quote(caller(request).account, request.body) };
    },
  );

  app.post(
    '/order',
    {
      config: limit('order'),
      schema: {
        operationId: 'createOrder',
        tags: ['transfer'],
        summary: 'Create an order from a quote; returns the unsigned deposit transaction',
        description: DESCRIPTIONS.createOrder,
        security,
        body: OrderRequestBody,
        headers: {
          type: 'object',
          properties: {
            'idempotency-key': {
              type: 'string',
              description:
                'One key per order (IETF Idempotency-Key, 1–255 printable ASCII characters); reuse it only to retry that order: the same terms get the original answer, other terms IDEMPOTENCY_CONFLICT',
            },
            'x-idempotency-key': { type: 'string', description: 'The same as Idempotency-Key, under its older name; send one of them (both only with the same value)' },
          },
        },
        response: {
          200: OrderCreatedResponse,
          ...errors(OPERATION_ERRORS.createOrder),
        },
      },
    },
    async (request, reply) => {
      refuseWhilePaused(deps);
      const raw = idempotencyKeyOf(request);
      const outcome = await deps.orders.create(caller(request).account, { ...request.body, quote: request.body.quote as Record<string, unknown> }, raw, requestLane(reply));
      if (outcome.replayed) reply.header('idempotent-replayed', 'true');
      return reply.code(outcome.status).send(outcome.body);
    },
  );

  app.post(
    '/order/:trackingId/refresh',
    {
      config: limit('order'),
      schema: {
        operationId: 'refreshOrder',
        tags: ['transfer'],
        summary: 'A new deposit transaction for the same order after the blockhash expired',
        description: DESCRIPTIONS.refreshOrder,
        security,
        params: TrackingIdParams,
        body: EmptyBody,
        response: { 200: documented(OrderResponse, 'The same order with a new deposit transaction'), ...errors(OPERATION_ERRORS.refreshOrder) },
      },
    },
    async (request, reply) => deps.orders.refresh(caller(request).account, request.params.trackingId, requestLane(reply)),
  );

  app.get(
    '/status/:trackingId',
    {
      config: limit('status'),
      // No automatic HEAD twin (docs/spec.md §4: GET routes have none).
      exposeHeadRoute: false,
      schema: {
        operationId: 'getStatus',
        tags: ['transfer'],
        summary: 'Order status; poll until final',
        description: DESCRIPTIONS.getStatus,
        security,
        params: TrackingIdParams,
        response: { 200: StatusRecordResponse, 304: NotModified, ...errors(OPERATION_ERRORS.getStatus) },
      },
    },
    async (request, reply) => {
      const account = caller(request).account;
      const id = request.params.trackingId;
      const cached = /^trk_[1-9A-HJ-NP-Za-km-z]{22}$/.test(id) ? (deps.statusCache.peek(id, account.id) ?? (await deps.statusCache.get(id, account.id))) : null;
      if (!cached) throw new HushError('NOT_FOUND', 'No order with this trackingId');
      reply.header('etag', cached.etag).header('cache-control', 'no-cache');
      const inm = request.headers['if-none-match'];
      if (typeof inm === 'string' && inm.split(',').some((t) => t.trim() === '*' || t.trim().replace(/^W\//, '') === cached.etag)) return reply.code(304 as 200).send(undefined as never);
      // Pre-serialized by the cache (same shape as StatusResponse).
      return reply.type('application/json; charset=utf-8').send(cached.json as never);
    },
  );

  app.get(
    '/orders',
    {
      config: limit('status'),
      exposeHeadRoute: false,
      schema: {
        operationId: 'findOrderByQuote',
        tags: ['transfer'],
        summary: 'The order a quote backs (recovering a lost trackingId)',
        description: DESCRIPTIONS.findOrderByQuote,
        security,
        querystring: Type.Object({ quoteId: Type.String({ pattern: QUOTE_ID_PATTERN, maxLength: 400, description: 'The quote.quoteId the order was created from' }) }, { additionalProperties: false }),
        response: { 200: documented(StatusResponse, "The order's status record"), ...errors(OPERATION_ERRORS.findOrderByQuote) },
      },
    },
    async (request, reply) => {
      const account = caller(request).account;
      let key: string | null = null;
      try {
        key = quoteKey(request.query.quoteId);
      } catch {
        // Not a quote Hush could have issued: no order backs it.
      }
      const trackingId = key ? await trackingIdByQuoteKey(deps.db, account.id, key) : null;
      const cached = trackingId ? await deps.statusCache.get(trackingId, account.id) : null;
      if (!cached) throw new HushError('NOT_FOUND', 'No order of this account was created from this quote');
      return reply.type('application/json; charset=utf-8').send(cached.json as never);
    },
  );

  app.get(
    '/status/:trackingId/receipt',
    {
      config: limit('status'),
      exposeHeadRoute: false,
      schema: {
        operationId: 'getReceipt',
        tags: ['transfer'],
        summary: "The final order's signed disclosure receipt",
        description: DESCRIPTIONS.getReceipt,
        security,
        params: TrackingIdParams,
        response: { 200: documented(ReceiptResponse, "The order's signed disclosure receipt"), ...errors(OPERATION_ERRORS.getReceipt) },
      },
    },
    async (request) => {
      const found = await receiptOfOrder(deps.db, request.params.trackingId, caller(request).account.id);
      if (!found) throw new HushError('NOT_FOUND', 'No order with this trackingId');
      if (!found.receipt) throw new HushError('RECEIPT_NOT_READY', `The order is ${found.status}; its receipt is signed once it is final`, { status: found.status });
      return { success: true as const, receipt: { document: JSON.parse(found.receipt.document), algorithm: 'ed25519' as const, signature: found.receipt.signature } };
    },
  );

  app.get(
    '/receipt-keys',
    {
      config: limit('tokens'),
      exposeHeadRoute: false,
      schema: {
        operationId: 'listReceiptKeys',
        tags: ['transfer'],
        summary: 'The public keys disclosure receipts are signed with',
        description: DESCRIPTIONS.listReceiptKeys,
        // Optional: the receipt-check page asks without a key (the anonymous bucket of the caller's address).
        security: [{}, ...security],
        response: { 200: documented(ReceiptKeysResponse, 'Every receipt key, newest first'), ...errors(OPERATION_ERRORS.listReceiptKeys) },
      },
    },
    async () => ({ success: true as const, keys: await receiptKeys.get() }),
  );

  app.post(
    '/deposit',
    {
      config: limit('order'),
      schema: {
        operationId: 'sendDepositHint',
        tags: ['transfer'],
        summary: 'Hint that the deposit was sent; verified against the chain',
        description: DESCRIPTIONS.sendDepositHint,
        security,
        body: DepositHintBody,
        response: {
          200: documented(StatusResponse, 'The deposit is on the chain and matches the order'),
          202: documented(StatusResponse, 'The transaction is not visible at confirmed yet; Hush keeps watching the deposit account'),
          ...errors(OPERATION_ERRORS.sendDepositHint),
        },
      },
    },
    async (request, reply) => {
      const out = await deps.deposits.hint(caller(request).account, request.body.trackingId, request.body.signature, requestLane(reply));
      return reply.code(out.status).send(out.body as never);
    },
  );

  app.post(
    '/webhooks/test',
    {
      config: limit('order'),
      schema: {
        operationId: 'sendTestWebhook',
        tags: ['transfer'],
        summary: "Send a signed webhook.test event to the account's webhook now",
        description: DESCRIPTIONS.sendTestWebhook,
        security,
        body: EmptyBody,
        response: { 200: documented(WebhookTestResponse, 'The outcome of the send'), ...errors(OPERATION_ERRORS.sendTestWebhook) },
      },
    },
    async (request) => ({ success: true as const, ...(await sendTestWebhook(deps.db, caller(request).account.id, webhookEgressFor(deps.config), deps.clock, deps.random)) }),
  );

  // The partner's own account (self-service): a child scope, so the authentication hook above covers it.
  await app.register(accountRoutes, { deps, limit });
}

/**
 * docs/operations.md "store_behind_chain": while payouts are paused nothing new is taken on, since an order taken
 * then would wait, unpaid, for an operator (the same 503 a load balancer sees on /readyz).
 */
function refuseWhilePaused(deps: Pick<ApiDeps, 'settlementPaused'>): void {
  const paused = deps.settlementPaused?.();
  if (paused) throw new HushError('SERVICE_UNAVAILABLE', `Payouts are paused (${paused}) until an operator acts; try again later`, undefined, { retryAfterSeconds: 60 });
}
