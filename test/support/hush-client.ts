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
  // pairs of ~1000 ms; a fixed window passes its budget in a burst (pairs near 0). 400 leaves room for an
  // answer seen ~500 ms late under a loaded CI run (a pair of 470 ms was seen at three runnable processes per core).
  const pairs = p.gaps.slice(1).map((g, k) => g + p.gaps[k]!);
  assert.ok(pairs.length === 0 || Math.min(...pairs) >= 400, `passes are spread out, not a burst: gaps ${shown} ms`);
  assert.ok(Math.max(...p.gaps) <= 1_200, `a token comes back every 500 ms, no starving: gaps ${shown} ms`);
}

// ------------------------------------------------------------------------------------------ accounts
