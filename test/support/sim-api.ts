/**
 * What the partner-API tests share on the simulated Hush (test/support/sim-hush.ts): the standard quote and
 * order requests, the store read through the clock, bursts of requests that reach the app together, and the
 * token bucket probed on simulated time. Rate-limit buckets read Hush's clock port, so on the simulator a
 * refill is `h.advance(ms)` and the time a burst took is exact (no loaded machine widens a bound).
 */
import { generateApiKey } from '../../src/services/api-keys.ts';
import { insertApiKey } from '../../src/store/accounts-store.ts';
import { seededRandom } from '../../src/support/random.ts';
import { registerSecret, secretOf, type ApiResponse } from './api-responses.ts';
import { HushClient, probeTokenBucket, type HushTransport } from './hush-client.ts';
import { startSimHush, type SimHush, type SimHushOptions } from './sim-hush.ts';

/**
 * A simulated Hush for an API test: `startSimHush` with the fewest deposit identities a start derives (64 per
 * asset, the least HUSH_DEPOSIT_IDENTITY_TARGET allows), since these tests place a few dozen orders at most
 * and the derivation is most of a start's CPU.
 */
export function startApiSim(opts: SimHushOptions = {}): Promise<SimHush> {
  return startSimHush({ ...opts, env: { HUSH_DEPOSIT_IDENTITY_TARGET: '64', ...opts.env } });
}

export { orderRequest, quoteRequest } from './order-requests.ts';

export const isReplay = (r: ApiResponse): boolean => r.headers.get('idempotent-replayed') === 'true';

/** RateLimit-Limit, -Remaining and -Reset of an answer. */
export const limitHeaders = (r: ApiResponse) => ({ limit: r.headers.get('ratelimit-limit'), remaining: r.headers.get('ratelimit-remaining'), reset: r.headers.get('ratelimit-reset') });

let keysIssued = 0;

/** Another key of an account, issued in the store (as test/support/hush-server.ts's issueKey): a client with it. */
export async function issueSimKey(h: SimHush, accountId: string): Promise<HushClient> {
  const k = generateApiKey(seededRandom(h.world.opts.seed * 7919 + ++keysIssued));
  await h.drive(insertApiKey(h.db, { keyId: k.keyId, accountId, secretHash: k.secretHash, expiresAt: null }));
  registerSecret(secretOf(k.apiKey));
  return h.client(k.apiKey);
}

/** A statement on the simulated Hush's store, its rows (the store's clock is the simulated one). */
export async function simQuery<T>(h: SimHush, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await h.drive(h.db.query<T & Record<string, unknown>>(sql, params))).rows;
}

/** Orders in the store (a refusal "creates nothing" leaves it unchanged). */
export async function simOrderCount(h: SimHush): Promise<number> {
  return Number((await simQuery<{ n: string | number }>(h, 'SELECT count(*) AS n FROM orders'))[0]!.n);
}

/**
 * `asks` started in one synchronous loop: their injects reach the app in the same turn (as truly concurrent
 * requests do), and the simulated time they took to answer, which is what any bucket refilled meanwhile.
 */
export async function together(h: SimHush, asks: (() => Promise<ApiResponse>)[]): Promise<{ all: ApiResponse[]; passed: number; ms: number }> {
  const started = h.now();
  const all = await Promise.all(asks.map((ask) => ask()));
  return { all, passed: all.filter((r) => r.status !== 429).length, ms: h.now() - started };
}

/** `n` asks of each client, all at once. */
export function burstOf(h: SimHush, clients: HushClient[], n: number, ask: (c: HushClient) => Promise<ApiResponse>) {
  return together(h, clients.flatMap((c) => Array.from({ length: n }, () => () => ask(c))));
}

/** test/support/hush-client.ts's probeTokenBucket on the simulated Hush's clock (asks 50 simulated ms apart). */
export function probeSimTokenBucket(h: SimHush, clients: HushClient[], ms = 2_500) {
  return probeTokenBucket(clients, ms, { now: () => h.now(), wait: (d) => h.advance(d) });
}

/** A client of the simulated Hush's ops listener with `key` (null: none), whatever its admin token. */
export function simOpsClient(h: SimHush, key: string | null): HushClient {
  return new HushClient(`inject://sim-${h.world.opts.seed}-ops`, key, h.transport(() => h.hush.opsApp));
}

/**
 * The chain stops: every request of Hush's to it is refused at once, as a stopped local chain's closed port
 * refuses a connection (users' own provider, `h.chain`, is not touched). For the rest of the run.
 */
export function stopChain(h: SimHush): void {
  const wire = h.world.wire as unknown as { serve: (body: string, signal?: AbortSignal) => Promise<Response> };
  wire.serve = () => Promise.reject(new TypeError('fetch failed', { cause: Object.assign(new Error('connect ECONNREFUSED 127.0.0.1'), { code: 'ECONNREFUSED' }) }));
}

/**
 * A client of the simulated Hush's partner port whose requests come from `remoteAddress` (the connection's
 * address Fastify sees, as inject lets a test set it): a client, or a proxy, of its own to per-address limits.
 */
export function simClientFrom(h: SimHush, key: string | null, remoteAddress: string): HushClient {
  const transport: HushTransport = async ({ method, path, headers, body }) => {
    const res = await h.drive(h.hush.app!.inject({ method: method as 'GET', url: path, headers, remoteAddress, ...(body !== undefined ? { payload: typeof body === 'string' ? body : Buffer.from(body) } : {}) }));
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    return { status: res.statusCode, headers: out, text: res.body };
  };
  return new HushClient(`inject://sim-${h.world.opts.seed}-from-${remoteAddress}`, key, transport);
}
