import bs58 from 'bs58';
import type { FastifyInstance } from 'fastify';
import type { Clock } from '../src/support/clock.ts';

/** What Hush's outbound HTTP is given in place of the global fetch (its network port). */
export type FetchLike = (url: string, init?: RequestInit) => Promise<Response>;

/** One RPC request's fate, drawn by the fault plan. */
export type RpcFault =
  /** The provider answers an HTTP error. */
  | { kind: 'http'; status: 500 | 502 | 503 }
  /** The provider refuses for rate, naming when to come back. */
  | { kind: 'rate_limited'; retryAfterS: number }
  /** The answer takes this long (simulated); the caller's timeout may give up first. */
  | { kind: 'stall'; ms: number }
  /** The chain runs the request, and the answer never arrives (a reset connection). */
  | { kind: 'lost' }
  /** A transaction sent is answered with its signature and never reaches a leader (mainnet's silent drop). */
  | { kind: 'drop' }
  /**
   * Signature statuses answered by a node `slots` behind (a load balancer's lagging backend): what landed in those
   * slots is nowhere yet, and the answer's context says the older slot.
   */
  | { kind: 'stale'; slots: number };

export interface RpcFaults {
  /** The fault of one request (`methods`: the calls in it), or null to serve it. */
  draw(methods: readonly string[]): RpcFault | null;
  /**
   * For each transaction of a request served: how long the node holds it before it reaches a leader (a forwarding
   * queue), or null to send it on. Sent again meanwhile, the node knows the signature and holds it still; it lands
   * then if its blockhash lives: what a transaction called dead too early meets (issue 86).
   */
  holdMs(now: number): number | null;
}

interface RpcCall {
  method?: string;
  id?: unknown;
  params?: unknown[];
}

/**
 * The simulated network between Hush and the chain: every request goes to the local chain's own JSON-RPC
 * handlers (Fastify `inject`, no socket), through the fault plan. Each process gets its own `life(…)` view, so a
 * crash fails its requests in flight and every later one.
 */
export class ChainWire {
  /** Requests in flight on every view (the simulator's quiescence check). */
  inFlight = 0;
  /** Requests sent, by method (each call of a batch counts). */
  readonly calls = new Map<string, number>();
  /** Transactions answered and never delivered. */
  readonly dropped: string[] = [];
  /** Transactions a node holds (a `late` fault), by signature. */
  private readonly held = new Set<string>();
  /** Every signature Hush sent, and how many sends were of one it had sent before (its resends). */
  private readonly sent = new Set<string>();
  resends = 0;

  constructor(
    private readonly rpc: FastifyInstance,
    private readonly clock: Clock,
    private readonly faults: RpcFaults | null,
  ) {}

  /** A process's view of the network: dead with it. */
  life(): { fetch: FetchLike; kill(): void } {
    let dead = false;
    const pending = new Set<(e: Error) => void>();
    const fetch: FetchLike = (url, init) => {
      if (dead) return Promise.reject(new TypeError('fetch failed: the process died'));
      return new Promise<Response>((resolve, reject) => {
        const fail = (e: Error) => reject(e);
        pending.add(fail);
        this.serve(String(init?.body ?? ''), init?.signal ?? undefined).then(
          (r) => (pending.delete(fail), dead ? reject(new TypeError('fetch failed: the process died')) : resolve(r)),
          (e: Error) => (pending.delete(fail), reject(e)),
        );
      });
    };
    return {
      fetch,
      kill() {
        dead = true;
        for (const fail of pending) fail(new TypeError('fetch failed: the process died'));
        pending.clear();
      },
    };
  }

  /** The chain's own answer, with no fault: for the simulator's users and its invariant checks. */
  async direct(body: string): Promise<unknown> {
    const res = await this.rpc.inject({ method: 'POST', url: '/', payload: body, headers: { 'content-type': 'application/json' } });
    return res.body === '' ? null : JSON.parse(res.body);
  }

  private async serve(body: string, signal: AbortSignal | undefined): Promise<Response> {
    const parsed = safeParse(body);
    const calls: RpcCall[] = Array.isArray(parsed) ? parsed : [parsed as RpcCall];
    const methods = calls.map((c) => (typeof c?.method === 'string' ? c.method : 'unknown'));
    for (const m of methods) this.calls.set(m, (this.calls.get(m) ?? 0) + 1);
    for (const c of calls) {
      if (c?.method !== 'sendTransaction') continue;
      const signature = this.signatureOf(c);
      if (this.sent.has(signature)) this.resends++;
      else this.sent.add(signature);
    }
    const fault = this.faults?.draw(methods) ?? null;
    this.inFlight++;
    try {
      if (signal?.aborted) throw abortError(signal);
      if (fault?.kind === 'http') return new Response('{"error":"unavailable"}', { status: fault.status });
      if (fault?.kind === 'rate_limited') return new Response('{"error":"rate limited"}', { status: 429, headers: { 'retry-after': String(fault.retryAfterS) } });
      if (fault?.kind === 'stall') await this.wait(fault.ms, signal);
      if (fault?.kind === 'drop' && methods.includes('sendTransaction')) return this.answerDropped(calls, parsed);
      if (methods.includes('sendTransaction') && this.faults) {
        const holds = calls.map((c) => (c.method === 'sendTransaction' ? this.faults!.holdMs(this.clock.now()) : null));
        if (holds.some((h) => h !== null) || (this.held.size > 0 && calls.some((c) => c.method === 'sendTransaction' && this.held.has(this.signatureOf(c))))) {
          return this.answerHeld(calls, parsed, holds);
        }
      }
      const res = await this.rpc.inject({ method: 'POST', url: '/', payload: body, headers: { 'content-type': 'application/json' } });
      if (fault?.kind === 'lost') throw new TypeError('fetch failed: connection reset');
      if (signal?.aborted) throw abortError(signal);
      const answer = fault?.kind === 'stale' ? lagging(calls, res.body, fault.slots) : res.body;
      return new Response(answer, { status: res.statusCode, headers: { 'content-type': 'application/json' } });
    } finally {
      this.inFlight--;
    }
  }

  /** sendTransaction answered with the transaction's signature, as a node that accepted it does, and nothing sent on. */
  private async answerDropped(calls: RpcCall[], parsed: unknown): Promise<Response> {
    const answers = [];
    for (const c of calls) {
      if (c.method !== 'sendTransaction') {
        answers.push(await this.direct(JSON.stringify(c)));
        continue;
      }
      const signature = this.signatureOf(c);
      this.dropped.push(signature);
      answers.push({ jsonrpc: '2.0', id: c.id ?? null, result: signature });
    }
    return new Response(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]), { status: 200, headers: { 'content-type': 'application/json' } });
  }

  /** sendTransaction answered with the signature at once; a transaction the node holds, or one held now (`holds`), reaches the chain when its hold ends. */
  private async answerHeld(calls: RpcCall[], parsed: unknown, holds: (number | null)[]): Promise<Response> {
    const answers = [];
    for (const [i, c] of calls.entries()) {
      const signature = c.method === 'sendTransaction' ? this.signatureOf(c) : null;
      const hold = holds[i] ?? null;
      if (signature === null || (hold === null && !this.held.has(signature))) {
        answers.push(await this.direct(JSON.stringify(c)));
        continue;
      }
      if (!this.held.has(signature)) {
        this.held.add(signature);
        const body = JSON.stringify(c);
        this.clock.after(hold!, () => {
          this.held.delete(signature);
          void this.direct(body).catch(() => {});
        });
      }
      answers.push({ jsonrpc: '2.0', id: c.id ?? null, result: signature });
    }
    return new Response(JSON.stringify(Array.isArray(parsed) ? answers : answers[0]), { status: 200, headers: { 'content-type': 'application/json' } });
  }

  /** The transaction's first signature: bytes 1..65 of the wire format (after its one-byte signature count). */
  private signatureOf(c: RpcCall): string {
    const wire = String(c.params?.[0] ?? '');
    const encoding = (c.params?.[1] as { encoding?: string } | undefined)?.encoding;
    const bytes = encoding === 'base58' ? bs58.decode(wire) : Buffer.from(wire, 'base64');
    return bs58.encode(bytes.subarray(1, 65));
  }

  private wait(ms: number, signal: AbortSignal | undefined): Promise<void> {
    return new Promise((resolve, reject) => {
      const t = this.clock.after(ms, () => (signal?.removeEventListener('abort', onAbort), resolve()));
      const onAbort = () => (t.cancel(), reject(abortError(signal!)));
      signal?.addEventListener('abort', onAbort, { once: true });
    });
  }
}

/** The answers to `calls` as a node `slots` behind gives them: signature statuses landed since are not found yet. */
function lagging(calls: RpcCall[], body: string, slots: number): string {
  const parsed = safeParse(body);
  const answers = (Array.isArray(parsed) ? parsed : [parsed]) as { result?: { context?: { slot: number }; value?: ({ slot: number } | null)[] } }[];
  answers.forEach((a, i) => {
    if (calls[i]?.method !== 'getSignatureStatuses' || !a?.result?.context || !Array.isArray(a.result.value)) return;
    const seen = a.result.context.slot - slots;
    a.result.context.slot = seen;
    a.result.value = a.result.value.map((v) => (v && v.slot > seen ? null : v));
  });
  return JSON.stringify(Array.isArray(parsed) ? answers : answers[0]);
}

function safeParse(body: string): unknown {
  try {
    return JSON.parse(body);
  } catch {
    return {};
  }
}

function abortError(signal: AbortSignal): Error {
  return signal.reason instanceof Error ? signal.reason : new DOMException('This operation was aborted', 'AbortError');
}
