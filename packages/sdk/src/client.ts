import createClient from 'openapi-fetch';
import type { paths } from './generated/openapi.ts';
import { HushApiError, HushTransportError, retryAfterSeconds, toError } from './errors.ts';
import type { Account, ApiKeyInfo, CreatedApiKey, Order, OrderTerms, Quote, QuoteRequest, Receipt, ReceiptKey, StatusRecord, Token, WebhookSecret } from './types.ts';

export interface HushClientOptions {
  /** e.g. http://127.0.0.1:8787 (the /transfer/v1 prefix is added). */
  baseUrl: string;
  apiKey: string;
  fetch?: typeof globalThis.fetch;
  /** Retries of a request Hush answered 429/503 with Retry-After (or ORDER_IN_PROGRESS); default 2. */
  maxRetries?: number;
  /** Longest Retry-After the client sleeps through before giving the error to the caller; default 10 s. */
  maxRetryAfterS?: number;
  /**
   * How the client waits: Retry-After before a retry, and waitForFinal between polls. Default a real timer
   * (`setTimeout`). It must end early when `signal` aborts (rejecting or resolving: waitForFinal checks the
   * signal after every wait). A test on a simulated or fake clock passes that clock's sleep, so a wait of
   * minutes costs no real time.
   */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /**
   * The time now, milliseconds since the epoch, as `Date.now` (the default): waitForFinal's `elapsedMs`, a held
   * payout's countdown to `releaseBy` and a Retry-After given as a date. A test on a simulated clock passes it.
   */
  now?: () => number;
}

/** An order with the quote and terms it was made from: what signAndSend needs to verify its transaction. */
export interface PlacedOrder extends Order {
  quote: Quote;
  terms: OrderTerms;
  idempotencyKey: string;
}

export type StatusResult = { notModified: true; etag: string } | { notModified: false; etag: string | undefined; order: StatusRecord };

/** What waitForFinal reports after each answered poll (see WaitOptions.onProgress). */
export interface WaitProgress {
  /** The latest status record. */
  order: StatusRecord;
  /** It changed since the last report: another status, a new transition (sequence) or its privacy (held → released). */
  changed: boolean;
  /** How many transitions the order has had (its history's length; the webhooks' `sequence`). */
  sequence: number;
  /** While its payout is held for its class (a private amount): the latest release moment, and the seconds until it. */
  held: { releaseBy: string; secondsLeft: number } | null;
  /** Once released with its class: how many payouts of the class went in the same release, and how long it was held. */
  released: { releasedWith: number; heldSeconds: number | null } | null;
  /** Milliseconds since waitForFinal started. */
  elapsedMs: number;
}

export interface WaitOptions {
  signal?: AbortSignal;
  /** Called with each new status record (not on unchanged polls). */
  onStatus?: (order: StatusRecord) => void;
  /**
   * Called after every answered poll, unchanged ones (304) included, so a countdown can tick without
   * polls of its own: `changed` says whether the record moved. Never adds a request.
   */
  onProgress?: (progress: WaitProgress) => void;
  /** Poll interval, default 3000 ms (the interface's example loop). */
  intervalMs?: number;
}

export interface HushClient {
  tokens(): Promise<Token[]>;
  quote(request: QuoteRequest): Promise<Quote>;
  /** docs/spec.md §4: the quote goes back unchanged; a key is generated when none is given (retries reuse it). */
  order(quote: Quote, terms: OrderTerms, opts?: { idempotencyKey?: string }): Promise<PlacedOrder>;
  /** A new deposit transaction for the same order once the old one's blockhash expired. */
  refresh(order: PlacedOrder): Promise<PlacedOrder>;
  /** Tells Hush the deposit's signature: `pending` (202) while the chain does not show it yet. */
  depositHint(trackingId: string, signature: string): Promise<{ pending: boolean; order: StatusRecord }>;
  status(trackingId: string, opts?: { etag?: string }): Promise<StatusResult>;
  /** The order created from this quote (its quoteId), for a partner that lost the trackingId; HushApiError NOT_FOUND when none. */
  findOrderByQuote(quoteId: string): Promise<StatusRecord>;
  /**
   * Has Hush send a signed `webhook.test` event to the account's webhook now. The outcome only: `delivered`
   * (2xx), `refused` (the URL's address is not one webhooks may reach) or `failed` (anything else).
   */
  testWebhook(): Promise<{ eventId: string; outcome: 'delivered' | 'refused' | 'failed'; delivered: boolean }>;
  /**
   * The final order's signed disclosure receipt (docs/spec.md §12); RECEIPT_NOT_READY (retried for you, as
   * Retry-After says) until it is final and signed. Check it with verifyReceipt and receiptKeys().
   */
  receipt(trackingId: string): Promise<Receipt>;
  /** Every key receipts are signed with, newest first. */
  receiptKeys(): Promise<ReceiptKey[]>;
  /** Polls until `final`, honouring Retry-After, backing off while Hush cannot be reached. */
  waitForFinal(trackingId: string, opts?: WaitOptions): Promise<StatusRecord>;
  /** This key's account: settings, keys (which one is this), webhook URL, rates. Never a secret. */
  account(): Promise<Account>;
  /**
   * Points the webhook at `url` and returns its new signing secret, shown this once; the replaced secret
   * signs beside it until `previousSecretExpiresAt` (24 h). WEBHOOK_URL_REFUSED: an address webhooks may not reach.
   */
  setWebhook(url: string): Promise<WebhookSecret>;
  /** No webhook any more (no events; undelivered ones are given up). */
  clearWebhook(): Promise<void>;
  /** A new signing secret for the webhook, shown this once; the old one signs beside it for 24 h. */
  rotateWebhookSecret(): Promise<WebhookSecret>;
  /** Another key of this account, its `apiKey` shown this once (TOO_MANY_KEYS at 10 active). Rotate: create, deploy, revoke the old. */
  createKey(opts?: { expiresInSeconds?: number }): Promise<CreatedApiKey>;
  /** Revokes a key of this account (this client's own too: `current` says so); LAST_ACTIVE_KEY for the last active one. */
  revokeKey(keyId: string): Promise<ApiKeyInfo>;
}

/** The default wait: a real timer, cut short (rejecting) when `signal` aborts. */
export const realSleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort);
      resolve();
    }, ms);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    signal?.addEventListener('abort', onAbort, { once: true });
  });

const RETRY_CODES = new Set(['RATE_LIMITED', 'ORDER_IN_PROGRESS', 'SERVICE_UNAVAILABLE', 'CHAIN_UNAVAILABLE', 'RECEIPT_NOT_READY']);
/**
 * A call that makes something new each time (a key, a webhook secret) is retried only when it was refused
 * before it ran (429): after a 503 it may have run, and a second secret would end the first one's grace.
 */
const ONLY_REFUSED = new Set(['RATE_LIMITED']);

export function createHushClient(options: HushClientOptions): HushClient {
  const api = createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ''),
    headers: { authorization: `Bearer ${options.apiKey}` },
    ...(options.fetch ? { fetch: options.fetch } : {}),
  });
  const maxRetries = options.maxRetries ?? 2;
  const maxRetryAfterS = options.maxRetryAfterS ?? 10;
  const sleep = options.sleep ?? realSleep;
  const now = options.now ?? Date.now;

  /** One call: its data, or a HushApiError / HushTransportError; retried on `retryOn` codes, as Retry-After says. */
  async function call<T>(send: () => Promise<{ data?: T; error?: unknown; response: Response }>, retryOn = RETRY_CODES): Promise<{ data: T; response: Response }> {
    for (let attempt = 0; ; attempt++) {
      let out: { data?: T; error?: unknown; response: Response };
      try {
        out = await send();
      } catch (e) {
        throw new HushTransportError(`cannot reach Hush at ${options.baseUrl}: ${(e as Error).message}`, undefined, { cause: e });
      }
      if (out.response.ok && out.data !== undefined) return { data: out.data, response: out.response };
      const error = await toError(out.response, out.error, now());
      const wait = error instanceof HushApiError && retryOn.has(error.code) ? (error.retryAfterS ?? 1) : undefined;
      if (wait === undefined || attempt >= maxRetries || wait > maxRetryAfterS) throw error;
      await sleep(wait * 1000);
    }
  }

  const client: HushClient = {
    async tokens() {
      return (await call(() => api.GET('/transfer/v1/tokens'))).data.tokens;
    },
    async quote(request) {
      return (await call(() => api.POST('/transfer/v1/quote', { body: request }))).data.quote;
    },
    async order(quote, terms, opts = {}) {
      const idempotencyKey = opts.idempotencyKey ?? `sdk-${crypto.randomUUID()}`;
      const { data } = await call(() => api.POST('/transfer/v1/order', { body: { quote, ...terms }, headers: { 'idempotency-key': idempotencyKey } }));
      return { ...data.order, quote, terms, idempotencyKey };
    },
    async refresh(order) {
      const { data } = await call(() => api.POST('/transfer/v1/order/{trackingId}/refresh', { params: { path: { trackingId: order.trackingId } }, body: {} }));
      return { ...data.order, quote: order.quote, terms: order.terms, idempotencyKey: order.idempotencyKey };
    },
    async findOrderByQuote(quoteId) {
      return (await call(() => api.GET('/transfer/v1/orders', { params: { query: { quoteId } } }))).data.order;
    },
    async receipt(trackingId) {
      return (await call(() => api.GET('/transfer/v1/status/{trackingId}/receipt', { params: { path: { trackingId } } }))).data.receipt;
    },
    async receiptKeys() {
      return (await call(() => api.GET('/transfer/v1/receipt-keys'))).data.keys;
    },
    async depositHint(trackingId, signature) {
      const { data, response } = await call(() => api.POST('/transfer/v1/deposit', { body: { trackingId, signature } }));
      return { pending: response.status === 202, order: data.order };
    },
    async status(trackingId, opts = {}) {
      const out = await api
        .GET('/transfer/v1/status/{trackingId}', { params: { path: { trackingId } }, ...(opts.etag ? { headers: { 'if-none-match': opts.etag } } : {}) })
        .catch((e: unknown) => {
          throw new HushTransportError(`cannot reach Hush at ${options.baseUrl}: ${(e as Error).message}`, undefined, { cause: e });
        });
      const etag = out.response.headers.get('etag') ?? undefined;
      if (out.response.status === 304) return { notModified: true, etag: etag ?? opts.etag! };
      if (!out.response.ok || !out.data) throw await toError(out.response, out.error, now());
      return { notModified: false, etag, order: out.data.order };
    },
    async testWebhook() {
      const { data } = await call(() => api.POST('/transfer/v1/webhooks/test', { body: {} }));
      return { eventId: data.eventId, outcome: data.outcome, delivered: data.delivered };
    },
    async account() {
      return (await call(() => api.GET('/transfer/v1/account'))).data.account;
    },
    async setWebhook(url) {
      const { data } = await call(() => api.PUT('/transfer/v1/account/webhook', { body: { url } }), ONLY_REFUSED);
      return { url: data.url, secret: data.secret, previousSecretExpiresAt: data.previousSecretExpiresAt };
    },
    async clearWebhook() {
      await call(() => api.DELETE('/transfer/v1/account/webhook'));
    },
    async rotateWebhookSecret() {
      const { data } = await call(() => api.POST('/transfer/v1/account/webhook/rotate-secret', { body: {} }), ONLY_REFUSED);
      return { url: data.url, secret: data.secret, previousSecretExpiresAt: data.previousSecretExpiresAt };
    },
    async createKey(opts = {}) {
      const { data } = await call(() => api.POST('/transfer/v1/account/keys', { body: opts.expiresInSeconds === undefined ? {} : { expiresInSeconds: opts.expiresInSeconds } }), ONLY_REFUSED);
      return { apiKey: data.apiKey, key: data.key };
    },
    async revokeKey(keyId) {
      return (await call(() => api.DELETE('/transfer/v1/account/keys/{keyId}', { params: { path: { keyId } } }))).data.key;
    },
    async waitForFinal(trackingId, opts = {}) {
      const interval = opts.intervalMs ?? 3000;
      const started = now();
      let etag: string | undefined;
      let last: StatusRecord | undefined;
      let failures = 0;
      for (;;) {
        opts.signal?.throwIfAborted();
        let wait = interval;
        try {
          const r = await client.status(trackingId, etag ? { etag } : {});
          failures = 0;
          const previous = last;
          if (!r.notModified) {
            etag = r.etag;
            if (!last || last.status !== r.order.status || last.updatedAt !== r.order.updatedAt) opts.onStatus?.(r.order);
            last = r.order;
          }
          if (last) opts.onProgress?.(waitProgress(last, previous, started, now()));
          if (!r.notModified && r.order.final) return r.order;
        } catch (e) {
          if (e instanceof HushApiError && !e.retryable) throw e;
          // 429/503: as long as Hush asks; unreachable: exponential backoff up to 30 s.
          failures++;
          const asked = e instanceof HushApiError ? e.retryAfterS : undefined;
          wait = Math.max(interval, asked !== undefined ? asked * 1000 : Math.min(30_000, interval * 2 ** failures));
        }
        await sleep(wait, opts.signal);
      }
    },
  };
  return client;
}

/** One progress report: `previous` is the record the last report carried (undefined for the first). */
export function waitProgress(order: StatusRecord, previous: StatusRecord | undefined, started: number, now = Date.now()): WaitProgress {
  const { privacy } = order;
  const changed =
    !previous ||
    previous.status !== order.status ||
    previous.history.length !== order.history.length ||
    previous.privacy.releaseBy !== privacy.releaseBy ||
    previous.privacy.releasedWith !== privacy.releasedWith;
  return {
    order,
    changed,
    sequence: order.history.length,
    held: privacy.releaseBy ? { releaseBy: privacy.releaseBy, secondsLeft: Math.max(0, Math.ceil((Date.parse(privacy.releaseBy) - now) / 1000)) } : null,
    released: privacy.releasedWith !== null ? { releasedWith: privacy.releasedWith, heldSeconds: privacy.heldSeconds } : null,
    elapsedMs: now - started,
  };
}

export { retryAfterSeconds };
