/**
 * A real, listening Hush for end-to-end HTTP tests: `startHush(loadConfig(env))` on 127.0.0.1 port 0 with
 * its embedded localnet on port 0, a fresh temp DATA_DIR, a short slot time, and either PGlite (in the
 * temp dir) or PostgreSQL in a fresh private schema (dropped on close).
 *
 * Tests talk to it with `fetch` through `HushClient`, which checks on EVERY response what docs/spec.md §2 and §6
 * promise for all of them: an `X-Request-Id` header, the error body shape on failures, and that no body
 * leaks a key secret, the treasury seed, the admin token, a stack frame or SQL text.
 */
import type { RecordSink } from '../../src/support/alerts.ts';
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import {
  createSolanaRpc,
  decompileTransactionMessage,
  generateKeyPairSigner,
  getCompiledTransactionMessageDecoder,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  lamports,
  signTransaction,
  type Address,
  type Instruction,
  type KeyPairSigner,
  type ReadonlyUint8Array,
  type Signature,
} from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { loadConfig } from '../../src/config/config.ts';
import { startHush, type RunningHush } from '../../src/runtime/start-hush.ts';
import { generateApiKey } from '../../src/services/api-keys.ts';
import { addFeeRecipient, insertAccount, insertApiKey, updateAccount, type AccountRecord } from '../../src/store/accounts-store.ts';
import type { Db } from '../../src/store/db.ts';
import { dropSchema, newSchemaName, POSTGRES_URL, postgresSkipReason, type Engine } from './databases.ts';
import { assertDocumented } from './openapi-conformance.ts';
import { fetchFrom } from './http-from.ts';
import { workerCustodyStandIn } from './custody-stand-in.ts';
import { makeTempDir, removeDir, requestTokenAirdrop, waitForStatus, type LocalRpc } from './localnet.ts';

export { postgresSkipReason, type Engine };

export const PREFIX = '/transfer/v1';
export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' as Address;
export const SOL = 1_000_000_000n;

/** Every secret any test server handed out; no response body may ever contain one of them. */
const SECRETS = new Set<string>();

export function base58(n: number): string {
  const alphabet = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
  let s = '';
  for (const b of randomBytes(n)) s += alphabet[b % 58];
  return s;
}

// ------------------------------------------------------------------------------------------ HTTP

export interface ApiResponse {
  status: number;
  headers: Headers;
  /** Parsed JSON, or the raw text when the body is not JSON. */
  body: any;
  text: string;
  /** The X-Request-Id the request carried (undefined when none was sent). */
  sentRequestId?: string;
}

export interface RequestOptions {
  /** API key; `null` sends no Authorization header. Defaults to the client's key. */
  key?: string | null;
  /** Sent as JSON unless `raw` is given. */
  body?: unknown;
  /** Sent verbatim (with `content-type: application/json` unless overridden in headers). */
  raw?: string | Uint8Array<ArrayBuffer>;
  headers?: Record<string, string>;
  /** Send from this local address (127.x.y.z) instead of the default one: a different client to per-address limits. */
  from?: string;
}

const STACK_FRAME = /\bat (?:async )?[\w.<>$]+ \(|\bat (?:file|node):|\.(?:ts|js|mjs):\d+:\d+|node_modules/;
const SQL_TEXT = /\b(?:SELECT\s+[\w*]|INSERT\s+INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|ON CONFLICT|RETURNING|CREATE\s+TABLE)\b|syntax error at|violates (?:unique|check|foreign key|not-null)|duplicate key value|relation "\w+"|idempotency_keys|tracking_id|account_id/i;

/** The checks that hold for every response of the API (docs/spec.md §2, §6). */
export function assertResponseInvariants(res: ApiResponse, where: string): void {
  const rid = res.headers.get('x-request-id');
  assert.ok(rid && rid.length > 0, `${where}: X-Request-Id header missing (status ${res.status})`);
  if (res.sentRequestId !== undefined && /^[A-Za-z0-9._:-]{1,128}$/.test(res.sentRequestId)) {
    assert.equal(rid, res.sentRequestId, `${where}: well-formed X-Request-Id not echoed`);
  }
  assert.ok(res.status < 500 || res.status === 503, `${where}: unexpected server error ${res.status}: ${res.text.slice(0, 500)}`);
  for (const s of SECRETS) assert.ok(!res.text.includes(s), `${where}: response leaks a secret`);
  // HTML (the /docs page) and Prometheus text are not error bodies; everything else is checked for leaks.
  const ctype = res.headers.get('content-type') ?? '';
  if (ctype.includes('json')) {
    assert.ok(!STACK_FRAME.test(res.text), `${where}: response contains a stack trace: ${res.text.slice(0, 300)}`);
    assert.ok(!SQL_TEXT.test(res.text), `${where}: response contains SQL text: ${res.text.slice(0, 300)}`);
  }
  // A HEAD response has no body by definition (RFC 9110); everything else that fails carries the shape.
  if (res.status >= 400 && !where.startsWith('HEAD ')) assertErrorShape(res, where);
}

/** docs/spec.md §6, transcribed independently of src/domain/errors.ts: every code and its HTTP status. */
export const SPEC_ERROR_STATUS: Readonly<Record<string, number>> = {
  INVALID_REQUEST: 400, INVALID_ADDRESS: 400, UNSUPPORTED_ASSET: 400, UNSUPPORTED_MODE: 400, PAIR_NOT_SUPPORTED: 400,
  AMOUNT_TOO_LOW: 400, AMOUNT_TOO_HIGH: 400, FEE_BPS_TOO_HIGH: 400, FEE_RECIPIENT_REQUIRED: 400, INVALID_SIGNATURE: 400,
  UNAUTHORIZED: 401,
  FEE_RECIPIENT_NOT_REGISTERED: 403, ACCOUNT_SUSPENDED: 403,
  NOT_FOUND: 404, QUOTE_NOT_FOUND: 404,
  QUOTE_MISMATCH: 409, QUOTE_ALREADY_USED: 409, IDEMPOTENCY_CONFLICT: 409, ORDER_IN_PROGRESS: 409, ORDER_NOT_REFRESHABLE: 409, DEPOSIT_MISMATCH: 409,
  QUOTE_EXPIRED: 410, ORDER_EXPIRED: 410,
  PAYLOAD_TOO_LARGE: 413,
  UNSUPPORTED_MEDIA_TYPE: 415,
  RATE_LIMITED: 429, TOO_MANY_OPEN_ORDERS: 429,
  INTERNAL_ERROR: 500,
  CHAIN_UNAVAILABLE: 503, INSUFFICIENT_LIQUIDITY: 503, SERVICE_UNAVAILABLE: 503,
};
/** Codes whose response must carry Retry-After (docs/spec.md §4, §6). */
const RETRY_AFTER_CODES = new Set(['ORDER_IN_PROGRESS', 'RATE_LIMITED', 'TOO_MANY_OPEN_ORDERS', 'CHAIN_UNAVAILABLE', 'INSUFFICIENT_LIQUIDITY', 'SERVICE_UNAVAILABLE']);

/**
 * `{ success: false, error: { code, message, details?, requestId } }` with requestId = X-Request-Id, a
 * docs/spec.md §6 code whose HTTP status is the response's, and Retry-After where SPEC requires it.
 */
export function assertErrorShape(res: ApiResponse, where = 'response'): void {
  assert.match(res.headers.get('content-type') ?? '', /^application\/json/, `${where}: error content-type`);
  const b = res.body;
  assert.equal(typeof b, 'object', `${where}: error body is not JSON: ${res.text.slice(0, 200)}`);
  assert.ok(b !== null && !Array.isArray(b));
  assert.deepEqual(Object.keys(b).sort(), ['error', 'success'], `${where}: top-level keys ${JSON.stringify(Object.keys(b))}`);
  assert.equal(b.success, false);
  const e = b.error;
  assert.equal(typeof e, 'object');
  for (const k of Object.keys(e)) assert.ok(['code', 'message', 'details', 'requestId'].includes(k), `${where}: unexpected error key ${k}`);
  assert.match(e.code, /^[A-Z][A-Z_]+$/);
  assert.equal(typeof e.message, 'string');
  assert.ok(e.message.length > 0);
  if ('details' in e) assert.ok(typeof e.details === 'object' && e.details !== null && !Array.isArray(e.details), `${where}: details must be an object`);
  assert.equal(e.requestId, res.headers.get('x-request-id'), `${where}: error.requestId must equal X-Request-Id`);
  assert.ok(e.code in SPEC_ERROR_STATUS, `${where}: ${e.code} is not a docs/spec.md §6 code`);
  assert.equal(res.status, SPEC_ERROR_STATUS[e.code], `${where}: ${e.code} must be HTTP ${SPEC_ERROR_STATUS[e.code]}, got ${res.status}`);
  if (RETRY_AFTER_CODES.has(e.code)) assert.match(res.headers.get('retry-after') ?? '', /^[1-9]\d*$/, `${where}: ${e.code} needs Retry-After`);
}

/** Asserts an error response with the exact status and code; returns the error object. */
export function expectError(res: ApiResponse, status: number, code: string): { code: string; message: string; details?: any; requestId: string } {
  assert.equal(res.status, status, `expected ${status} ${code}, got ${res.status}: ${res.text.slice(0, 400)}`);
  assertErrorShape(res);
  assert.equal(res.body.error.code, code, `expected ${code}, got ${res.body.error.code}: ${res.body.error.message}`);
  return res.body.error;
}

export function expectOk(res: ApiResponse, status = 200): any {
  assert.equal(res.status, status, `expected ${status}, got ${res.status}: ${res.text.slice(0, 400)}`);
  assert.equal(res.body.success, true);
  return res.body;
}

/** A raw HTTP/1.1 response with a Content-Length body; null while it is incomplete. */
function parseRawResponse(raw: string): { status: number; headers: Headers; text: string } | null {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) return null;
  const [statusLine, ...lines] = raw.slice(0, split).split('\r\n');
  const headers = new Headers(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as [string, string]));
  const text = raw.slice(split + 4);
  return Buffer.byteLength(text) >= Number(headers.get('content-length') ?? Infinity) ? { status: Number(statusLine!.split(' ')[1]), headers, text } : null;
}

export class HushClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string | null = null,
  ) {}

  withKey(key: string | null): HushClient {
    return new HushClient(this.baseUrl, key);
  }

  async request(method: string, path: string, opts: RequestOptions = {}): Promise<ApiResponse> {
    const headers: Record<string, string> = {};
    const key = opts.key === undefined ? this.key : opts.key;
    if (key !== null) headers.authorization = `Bearer ${key}`;
    let body: string | Uint8Array<ArrayBuffer> | undefined;
    if (opts.raw !== undefined) {
      body = opts.raw;
      headers['content-type'] = 'application/json';
    } else if (opts.body !== undefined) {
      body = JSON.stringify(opts.body);
      headers['content-type'] = 'application/json';
    }
    Object.assign(headers, opts.headers ?? {});
    for (const [k, v] of Object.entries(headers)) if (v === undefined) delete headers[k];
    const res = opts.from
      ? await fetchFrom(opts.from, this.baseUrl + path, { method, headers, body })
      : await fetch(this.baseUrl + path, { method, headers, body }).then(async (r) => ({ status: r.status, headers: r.headers, text: await r.text() }));
    const text = res.text;
    let parsed: unknown = text;
    try {
      parsed = text === '' ? null : JSON.parse(text);
    } catch {
      /* not JSON */
    }
    const sentRequestId = Object.entries(headers).find(([k]) => k.toLowerCase() === 'x-request-id')?.[1];
    const out: ApiResponse = { status: res.status, headers: res.headers, body: parsed, text, sentRequestId };
    assertResponseInvariants(out, `${method} ${path}`);
    await assertDocumented(this.baseUrl, method, path, out.status, out.body);
    return out;
  }

  get(path: string, opts?: RequestOptions) {
    return this.request('GET', path, opts);
  }
  post(path: string, body?: unknown, opts: RequestOptions = {}) {
    return this.request('POST', path, { ...opts, body: opts.body ?? body });
  }

  /**
   * `n` copies of one JSON POST that reach the server together: each on its own connection, already
   * accepted and used once (GET of the OpenAPI document, which no bucket covers), all written in one synchronous loop, so the server reads them
   * in the same turn. (fetch in the server's own process spaces concurrent requests out: new connections
   * are accepted one per event-loop turn.)
   */
  async simultaneousPosts(path: string, body: unknown, n: number, headers: Record<string, string> = {}): Promise<ApiResponse[]> {
    const { hostname, port } = new URL(this.baseUrl);
    const host = `${hostname}:${port}`;
    const payload = JSON.stringify(body);
    const head = { host, 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(payload)), connection: 'close', ...(this.key ? { authorization: `Bearer ${this.key}` } : {}), ...headers };
    const post = `POST ${path} HTTP/1.1\r\n${Object.entries(head).map(([k, v]) => `${k}: ${v}\r\n`).join('')}\r\n${payload}`;
    const sockets = await Promise.all(
      Array.from({ length: n }, () => new Promise<Socket>((resolve, reject) => { const s = connect(Number(port), hostname, () => resolve(s)).once('error', reject); })),
    );
    const received = sockets.map(() => [] as Buffer[]);
    sockets.forEach((s, i) => s.on('data', (d: Buffer) => received[i]!.push(d)));
    const answer = (i: number) => parseRawResponse(Buffer.concat(received[i]!).toString('utf8'));
    // Warm each connection with one whole exchange: the server has accepted it and reads it at once.
    for (const s of sockets) s.write(`GET ${PREFIX}/openapi.json HTTP/1.1\r\nhost: ${host}\r\n\r\n`);
    while (!sockets.every((_, i) => answer(i))) await sleep(5);
    for (const r of received) r.length = 0;
    const ended = sockets.map((s) => new Promise<void>((resolve, reject) => s.once('end', resolve).once('error', reject)));
    for (const s of sockets) s.write(post);
    await Promise.all(ended);
    const answers = sockets.map((_, i) => {
      const res: ApiResponse = { ...answer(i)!, body: undefined };
      res.body = JSON.parse(res.text);
      assertResponseInvariants(res, `POST ${path}`);
      return res;
    });
    for (const res of answers) await assertDocumented(this.baseUrl, 'POST', path, res.status, res.body);
    return answers;
  }

  // Partner API shortcuts (paths under /transfer/v1).
  tokens(opts?: RequestOptions) {
    return this.get(`${PREFIX}/tokens`, opts);
  }
  quote(body: unknown, opts?: RequestOptions) {
    return this.post(`${PREFIX}/quote`, body, opts);
  }
  order(body: unknown, idempotencyKey?: string, opts: RequestOptions = {}) {
    const headers = { ...(opts.headers ?? {}), ...(idempotencyKey !== undefined ? { 'x-idempotency-key': idempotencyKey } : {}) };
    return this.post(`${PREFIX}/order`, body, { ...opts, headers });
  }
  refresh(trackingId: string, opts?: RequestOptions) {
    return this.request('POST', `${PREFIX}/order/${encodeURIComponent(trackingId)}/refresh`, opts);
  }
  status(trackingId: string, opts?: RequestOptions) {
    return this.get(`${PREFIX}/status/${encodeURIComponent(trackingId)}`, opts);
  }
  deposit(body: unknown, opts?: RequestOptions) {
    return this.post(`${PREFIX}/deposit`, body, opts);
  }
}

/**
 * docs/spec.md §7's token bucket seen from outside, for a key whose `tokens` rate is 2/s (capacity 4): spends the
 * burst, then asks every 50 ms (round robin over `clients`, e.g. two processes sharing Redis) for `ms`.
 * A bucket lets one request through per 500 ms; a fixed window would let none through for the rest of
 * its window and then a burst of four.
 */
export async function probeTokenBucket(clients: HushClient[], ms = 2_500): Promise<{ gaps: number[]; passed: number; retryAfter: string | null }> {
  let i = 0;
  let retryAfter: string | null = null;
  for (let n = 0; n < 20; n++) {
    const r = await clients[i++ % clients.length]!.tokens();
    if (r.status === 429) {
      retryAfter = r.headers.get('retry-after');
      break;
    }
  }
  const passedAt: number[] = [];
  const start = performance.now();
  while (performance.now() - start < ms) {
    const r = await clients[i++ % clients.length]!.tokens();
    if (r.status === 200) passedAt.push(performance.now());
    await sleep(50);
  }
  const gaps = [start, ...passedAt].slice(1).map((t, k) => t - [start, ...passedAt][k]!);
  return { gaps, passed: passedAt.length, retryAfter };
}

/** What probeTokenBucket must see for a 2/s bucket. */
export function assertTokenBucket(p: { gaps: number[]; passed: number; retryAfter: string | null }): void {
  const shown = p.gaps.map((g) => g.toFixed(0)).join(', ');
  assert.equal(p.retryAfter, '1', 'a refused request may retry once the next token is in (≤ 500 ms, whole seconds)');
  assert.ok(p.passed >= 3 && p.passed <= 6, `one pass per 500 ms over 2.5 s, got ${p.passed} (gaps ${shown} ms)`);
  // Two gaps at a time: a pass seen late (a busy machine) shortens the next gap by as much. A bucket gives
  // pairs of ~1000 ms; a fixed window passes its budget in a burst (pairs near 0). 500 leaves room for an
  // answer seen ~350 ms late under a loaded CI run.
  const pairs = p.gaps.slice(1).map((g, k) => g + p.gaps[k]!);
  assert.ok(pairs.length === 0 || Math.min(...pairs) >= 500, `passes are spread out, not a burst: gaps ${shown} ms`);
  assert.ok(Math.max(...p.gaps) <= 1_200, `a token comes back every 500 ms, no starving: gaps ${shown} ms`);
}

// ------------------------------------------------------------------------------------------ accounts

export interface TestAccount {
  id: string;
  apiKey: string;
  keyId: string;
  /** The secret part of the key (must never appear in a response). */
  secret: string;
  /** Registered fee recipients (on-curve wallets). */
  feeRecipients: Address[];
  client: HushClient;
}

export interface AccountOptions {
  feeCapBps?: number;
  status?: 'active' | 'suspended';
  /** Per-account rate limits; default: very high, so only tests about limits ever see 429. `null`: server defaults. */
  rateLimits?: AccountRecord['rateLimits'];
  /** How many fee recipients to register (default 1). */
  feeRecipients?: number;
  keyExpiresAt?: Date | null;
}

/** Adds a secret to the set no response may contain (e.g. a key issued through the admin API, once received). */
export function registerSecret(secret: string): void {
  SECRETS.add(secret);
}

export function secretOf(apiKey: string): string {
  return apiKey.slice('hush_'.length + 12 + 1);
}

/**
 * Issues a key for the account directly in the store. `register: false` for keys the admin API hands out
 * (its one legitimate response containing the secret); register them once received.
 */
export async function issueKey(db: Db, accountId: string, expiresAt: Date | null = null, register = true): Promise<{ apiKey: string; keyId: string; secret: string }> {
  const k = generateApiKey();
  await insertApiKey(db, { keyId: k.keyId, accountId, secretHash: k.secretHash, expiresAt });
  const secret = secretOf(k.apiKey);
  if (register) SECRETS.add(secret);
  return { apiKey: k.apiKey, keyId: k.keyId, secret };
}

// ------------------------------------------------------------------------------------------ server

export interface TestHush {
  engine: Engine;
  hush: RunningHush;
  /** http://127.0.0.1:<port> */
  url: string;
  chainUrl: string;
  rpc: LocalRpc;
  db: Db;
  /** Client without a key on the partner port (auth failures, unknown routes). */
  anon: HushClient;
  /** The ops listener (docs/spec.md §4): http://127.0.0.1:<ops port>. */
  opsUrl: string;
  /** Client without a key on the ops listener (/healthz, /readyz, /metrics; /admin/v1 with `withKey(adminToken)`). */
  ops: HushClient;
  adminToken?: string;
  /** The PostgreSQL schema of its store (undefined on PGlite) and its treasury seed, for `sharing`. */
  schema?: string;
  treasurySeed: string;
  /** HUSH_QUOTE_KEY of the deployment (hex), shared with `sharing` peers. */
  quoteKey: string;
  createAccount(opts?: AccountOptions): Promise<TestAccount>;
  close(): Promise<void>;
}

export interface TestHushOptions {
  engine?: Engine;
  /** Extra environment for loadConfig (HUSH_QUOTE_TTL_S, HUSH_RATE_LIMITS, …). */
  env?: Record<string, string>;
  /** Serve /admin/v1 (HUSH_ADMIN_TOKEN set to a random token). */
  admin?: boolean;
  /**
   * A second API process (HUSH_ROLE=api) of the same deployment: this Hush's PostgreSQL schema, chain and
   * treasury seed. Its close() leaves the shared store to its owner.
   */
  sharing?: TestHush;
  /** Receives Hush's own log lines (ALERTs, treasury reports). */
  log?: (line: string) => void;
  /** Receives the structured records instead (as `npm start`'s pino does). */
  records?: RecordSink;
  /** Receives the API's pino records (one JSON line each); the API logs nothing when unset. */
  apiLog?: (line: string) => void;
}

/** Starts a real Hush (API + embedded chain unless SOLANA_RPC_URL) on free ports; `close()` stops it and removes its data. */
export async function startTestHush(opts: TestHushOptions = {}): Promise<TestHush> {
  const peer = opts.sharing;
  if (peer && peer.engine !== 'postgres') throw new Error('only a PostgreSQL store can be shared by two processes');
  const engine = peer?.engine ?? opts.engine ?? 'pglite';
  if (engine === 'postgres' && postgresSkipReason) throw new Error(postgresSkipReason);
  const dataDir = makeTempDir('hush-api-test-');
  const schema = engine === 'postgres' ? (peer?.schema ?? newSchemaName()) : undefined;
  const ownsSchema = !peer;
  const treasurySeed = peer?.treasurySeed ?? randomBytes(32).toString('hex');
  // One quote key per deployment: every API of a shared store verifies the others' quotes.
  const quoteKey = peer?.quoteKey ?? randomBytes(32).toString('hex');
  SECRETS.add(quoteKey);
  // 32 random bytes, as HUSH_ADMIN_TOKEN requires (docs/spec.md §3).
  const adminToken = opts.admin ? randomBytes(32).toString('base64url') : undefined;
  SECRETS.add(treasurySeed);
  if (adminToken) SECRETS.add(adminToken);
  const env: NodeJS.ProcessEnv = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOCALNET_PORT: '0',
    LOCALNET_SLOT_MS: '50',
    DATA_DIR: dataDir,
    TREASURY_SEED: treasurySeed,
    HUSH_QUOTE_KEY: quoteKey,
    // Instant payouts (docs/spec.md §9: only with privacy explicitly off); a suite may set a window of its own.
    HUSH_PRIVACY: 'off',
    HUSH_PAYOUT_DELAY_S: '0-0',
    HUSH_DRAIN_GRACE_MS: '0',
    // Suites that fire many refused or unroutable requests from 127.0.0.1 (anonymous-limits.test.ts lowers it).
    HUSH_ANONYMOUS_RATE_LIMIT: '100000',
    ...(engine === 'postgres' ? { DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: schema } : {}),
    ...(adminToken ? { HUSH_ADMIN_TOKEN: adminToken } : {}),
    ...(peer ? { HUSH_ROLE: 'api', SOLANA_RPC_URL: peer.chainUrl } : {}),
    ...opts.env,
  };
  // Every test chain is a local one, embedded or behind SOLANA_RPC_URL: Hush assumes its slot time.
  env.HUSH_SLOT_MS ||= env.LOCALNET_SLOT_MS;
  // docs/spec.md §10: role api never holds the seed; with a store of its own, the test plays the worker's part.
  if (env.HUSH_ROLE === 'api') delete env.TREASURY_SEED;
  const config = loadConfig(env);
  const standIn = config.role === 'api' && !peer ? workerCustodyStandIn(treasurySeed, config.assets) : null;
  if (engine === 'postgres') assert.equal(config.databaseSchema, schema, 'loadConfig must pass DATABASE_SCHEMA through');
  let hush: RunningHush;
  try {
    const logger = opts.apiLog ? { level: 'info', stream: { write: opts.apiLog } } : false;
    hush = await startHush(config, { logger, ...(opts.log ? { log: opts.log } : {}), ...(opts.records ? { records: opts.records } : {}), ...(standIn ? { onReady: standIn.onReady } : {}) });
  } catch (e) {
    await standIn?.stop();
    removeDir(dataDir);
    if (schema && ownsSchema) await dropSchema(schema).catch(() => {});
    throw e;
  }
  assert.ok(hush.url);
  // The embedded chain, or the one SOLANA_RPC_URL names.
  const chainUrl = hush.localnet?.url ?? hush.chain.url;
  if (hush.demo) SECRETS.add(secretOf(hush.demo.apiKey)); // the embedded demo partner's key
  const url = hush.url.replace('[::1]', '127.0.0.1');
  const db = hush.db;
  const anon = new HushClient(url, null);
  const opsUrl = hush.opsUrl.replace('[::1]', '127.0.0.1');
  return {
    engine,
    hush,
    url,
    chainUrl,
    rpc: createSolanaRpc(chainUrl),
    db,
    anon,
    opsUrl,
    ops: new HushClient(opsUrl, null),
    adminToken,
    schema,
    treasurySeed,
    quoteKey,
    async createAccount(a: AccountOptions = {}) {
      const id = `acc_${base58(16)}`;
      await insertAccount(db, { id, name: `api-test-${base58(10)}`, feeCapBps: a.feeCapBps ?? 100 });
      const rateLimits = a.rateLimits === undefined ? { quote: 100_000, order: 100_000, status: 100_000, tokens: 100_000 } : a.rateLimits;
      await updateAccount(db, id, { status: a.status, rateLimits });
      const feeRecipients: Address[] = [];
      for (let i = 0; i < (a.feeRecipients ?? 1); i++) {
        const w = (await generateKeyPairSigner()).address;
        await addFeeRecipient(db, id, w);
        feeRecipients.push(w);
      }
      const k = await issueKey(db, id, a.keyExpiresAt ?? null);
      return { id, ...k, feeRecipients, client: new HushClient(url, k.apiKey) };
    },
    async close() {
      await standIn?.stop();
      await hush.close();
      removeDir(dataDir);
      if (schema && ownsSchema) await dropSchema(schema).catch(() => {});
    },
  };
}

/** Orders in the store (the fuzz and error tests assert it does not move). */
export async function orderCount(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: string | number }>('SELECT count(*) AS n FROM orders');
  return Number(rows[0]!.n);
}

// ------------------------------------------------------------------------------------------ chain

export async function wallet(): Promise<KeyPairSigner> {
  return generateKeyPairSigner();
}

export async function address(): Promise<Address> {
  return (await generateKeyPairSigner()).address;
}

/** An address that is NOT on the ed25519 curve: an associated token account (a PDA). */
export async function offCurveAddress(): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner: await address(), mint: USDC_MINT, tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address });
  return ata;
}

/** A new wallet with SOL (and optionally USDC) on the local chain, confirmed. */
export async function fundedSender(t: TestHush, opts: { sol?: bigint; usdc?: bigint } = {}): Promise<KeyPairSigner> {
  const w = await generateKeyPairSigner();
  const sig = await t.rpc.requestAirdrop(w.address, lamports(opts.sol ?? 5n * SOL)).send();
  await waitForStatus(t.rpc, sig, 'confirmed');
  if (opts.usdc) await waitForStatus(t.rpc, await requestTokenAirdrop(t.chainUrl, w.address, USDC_MINT, opts.usdc), 'confirmed');
  return w;
}

/** Signs the order's unsigned transaction with the sender's key (the only signature it needs). */
export async function signDeposit(base64: string, sender: KeyPairSigner): Promise<{ wire: string; signature: Signature }> {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const signed = await signTransaction([sender.keyPair], tx);
  return { wire: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) };
}

/** A random, well-formed transaction signature (64 bytes, base58) that no chain has seen. */
export function randomSignature(): string {
  return bs58.encode(randomBytes(64));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** The standard quote request of a send. */
export function quoteRequest(sender: Address, recipient: Address, extra: Record<string, unknown> = {}) {
  return { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender, recipientAddress: recipient, ...extra };
}

/** The order request that repeats a quote and its request terms unchanged. */
export function orderRequest(quote: unknown, req: { senderAddress: string; recipientAddress: string; feeBps?: number; feeRecipientAddress?: string }) {
  return {
    quote,
    senderAddress: req.senderAddress,
    recipientAddress: req.recipientAddress,
    ...(req.feeBps !== undefined ? { feeBps: req.feeBps } : {}),
    ...(req.feeRecipientAddress !== undefined ? { feeRecipientAddress: req.feeRecipientAddress } : {}),
  };
}

// ------------------------------------------------------------------------------------------ deposit transaction

export interface DepositTxView {
  version: number | 'legacy';
  /** Addresses whose signature the transaction requires, fee payer first. */
  signers: Address[];
  /** Signature slots of the wire transaction (all null when unsigned). */
  signatureSlots: string[];
  staticAccounts: Address[];
  blockhash: string;
  instructions: readonly (Instruction & { accounts?: readonly { address: Address; role: number }[]; data?: ReadonlyUint8Array })[];
}

/** Decodes the order's base64 wire transaction into its message (no lookup tables are expected). */
export function inspectDepositTransaction(base64: string): DepositTxView {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const compiled = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  assert.equal((compiled as { addressTableLookups?: unknown[] }).addressTableLookups?.length ?? 0, 0, 'no address lookup tables');
  const msg = decompileTransactionMessage(compiled as Parameters<typeof decompileTransactionMessage>[0]);
  const signers = compiled.staticAccounts.slice(0, compiled.header.numSignerAccounts);
  assert.equal(msg.feePayer.address, signers[0]);
  return {
    version: compiled.version,
    signers,
    signatureSlots: Object.keys(tx.signatures),
    staticAccounts: [...compiled.staticAccounts],
    blockhash: compiled.lifetimeToken,
    instructions: msg.instructions as DepositTxView['instructions'],
  };
}
