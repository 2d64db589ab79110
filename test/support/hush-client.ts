/** `HushClient`: fetch against a test Hush, every response checked by assertResponseInvariants. */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { assertDocumented } from './openapi-conformance.ts';
import { fetchFrom } from './http-from.ts';
import { assertResponseInvariants, sleep, type ApiResponse, type RequestOptions } from './api-responses.ts';

export const PREFIX = '/transfer/v1';

/** A raw HTTP/1.1 response with a Content-Length body; null while it is incomplete. */
function parseRawResponse(raw: string): { status: number; headers: Headers; text: string } | null {
  const split = raw.indexOf('\r\n\r\n');
  if (split < 0) return null;
  const [statusLine, ...lines] = raw.slice(0, split).split('\r\n');
  const headers = new Headers(lines.map((l) => [l.slice(0, l.indexOf(':')), l.slice(l.indexOf(':') + 1).trim()] as [string, string]));
  const text = raw.slice(split + 4);
  return Buffer.byteLength(text) >= Number(headers.get('content-length') ?? Infinity) ? { status: Number(statusLine!.split(' ')[1]), headers, text } : null;
}

/**
 * How a client's requests reach a Hush: fetch over a socket (the default), or a simulated Hush's own
 * `inject` (test/support/sim-hush.ts), which also runs the simulated clock while the answer is pending.
 */
export type HushTransport = (req: { method: string; path: string; headers: Record<string, string>; body?: string | Uint8Array<ArrayBuffer> }) => Promise<{ status: number; headers: Headers; text: string }>;

export class HushClient {
  constructor(
    readonly baseUrl: string,
    readonly key: string | null = null,
    readonly transport?: HushTransport,
  ) {}

  withKey(key: string | null): HushClient {
    return new HushClient(this.baseUrl, key, this.transport);
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
    const res = this.transport
      ? await this.transport({ method, path, headers, body })
      : opts.from
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
    await assertDocumented(this.baseUrl, method, path, out.status, out.body, this.transport);
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

/** One probe answer: when it was sent and seen (the server answered in between), and what it said. */
export interface ProbeAnswer {
  sentAt: number;
  seenAt: number;
  passed: boolean;
  /** RateLimit-Remaining: the whole tokens left after it (0 when refused). */
  remaining: number;
}

/** The probe's time: the wall clock by default, a simulated Hush's clock on the simulator (test/support/sim-api.ts). */
export interface ProbeTime {
  now(): number;
  wait(ms: number): Promise<unknown>;
}

/**
 * docs/spec.md §7's token bucket seen from outside, for a key whose `tokens` rate is 2/s (capacity 4): spends the
 * burst, then asks every 50 ms (round robin over `clients`, e.g. two processes sharing Redis) for `ms` and on
 * until it has seen three passes and three refusals after a pass (at most 15 s: a loaded machine asks less
 * often). A fixed window would let none through for the rest of its window and then a burst.
 */
export async function probeTokenBucket(
  clients: HushClient[],
  ms = 2_500,
  time: ProbeTime = { now: () => performance.now(), wait: sleep },
): Promise<{ answers: ProbeAnswer[]; retryAfter: string | null }> {
  let i = 0;
  let retryAfter: string | null = null;
  const answers: ProbeAnswer[] = [];
  const ask = async () => {
    const sentAt = time.now();
    const r = await clients[i++ % clients.length]!.tokens();
    const a = { sentAt, seenAt: time.now(), passed: r.status === 200, remaining: Number(r.headers.get('ratelimit-remaining')) };
    if ((r.status !== 200 && r.status !== 429) || r.headers.get('ratelimit-remaining') === null) throw new Error(`GET /tokens answered ${r.status}, RateLimit-Remaining ${r.headers.get('ratelimit-remaining')}`);
    answers.push(a);
    return { a, r };
  };
  for (let n = 0; n < 20; n++) {
    const { a, r } = await ask();
    if (!a.passed) {
      retryAfter = r.headers.get('retry-after');
      break;
    }
  }
  const start = time.now();
  const enough = () => {
    const first = answers.findIndex((a, k) => k > 0 && a.passed && a.sentAt >= start);
    const after = first < 0 ? [] : answers.slice(first);
    return after.filter((a) => a.passed).length >= 3 && after.filter((a) => !a.passed).length >= 3;
  };
  while (time.now() - start < 15_000 && (time.now() - start < ms || !enough())) {
    await ask();
    await time.wait(50);
  }
  return { answers, retryAfter };
}

/**
 * What probeTokenBucket must see for a 2/s bucket, in bounds a loaded machine cannot break: each answer's
 * server time lies between its sending and its sight, so the tokens a bucket can have refilled between two
 * answers are at most the rate times the span from the first's sending to the second's sight, and at least
 * the rate times the span from the first's sight to the second's sending. (Gaps between passes moved with
 * the machine: a 1.2 s stall of the prober rightly let the tokens it had not asked for through together.)
 */
export function assertTokenBucket(p: { answers: ProbeAnswer[]; retryAfter: string | null }): void {
  const RATE_PER_MS = 2 / 1000;
  const EPS_MS = 5;
  const shown = p.answers.map((a) => `${a.passed ? 'pass' : '429'}@${a.sentAt.toFixed(0)}..${a.seenAt.toFixed(0)} r=${a.remaining}`).join(', ');
  assert.equal(p.retryAfter, '1', 'a refused request may retry once the next token is in (≤ 500 ms, whole seconds)');
  const firstRefusal = p.answers.findIndex((a) => !a.passed);
  assert.ok(firstRefusal >= 1, `the burst was spent and then refused: ${shown}`);
  const probed = p.answers.slice(firstRefusal);
  assert.ok(probed.filter((a) => a.passed).length >= 3, `tokens came back: ${shown}`);
  for (let k = 1; k < p.answers.length; k++) {
    const [prev, a] = [p.answers[k - 1]!, p.answers[k]!];
    // Refilled at the rate, never by the window: after the previous answer left `prev.remaining` whole
    // tokens (less than one more), a pass can leave no more than the refill since.
    if (a.passed) {
      assert.ok(a.remaining < prev.remaining + RATE_PER_MS * (a.seenAt - prev.sentAt + EPS_MS), `a burst, not a refill at 2/s: answer ${k} left ${a.remaining} after ${prev.remaining}; ${shown}`);
    }
  }
  // No starving: a refusal comes only while less than a token has come back since the last pass.
  let lastPass: ProbeAnswer | null = null;
  for (const a of p.answers) {
    if (a.passed) lastPass = a;
    else if (lastPass) {
      assert.ok(RATE_PER_MS * (a.sentAt - lastPass.seenAt - EPS_MS) < 1 - lastPass.remaining, `refused ${(a.sentAt - lastPass.seenAt).toFixed(0)} ms after a pass, though a token comes back every 500 ms; ${shown}`);
    }
  }
}

// ------------------------------------------------------------------------------------------ accounts
