import WebSocket from 'ws';
import { parseJsonWithBigInts } from '@solana/rpc-spec-types';
import type { Clock, Timer } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

export type ConnectionState = 'connecting' | 'connected' | 'reconnecting' | 'closed';

export interface SubscriptionSpec {
  /** e.g. `accountSubscribe`; its unsubscribe is the same name with `Unsubscribe`. */
  method: string;
  params: unknown[];
  onNotification(result: unknown): void;
  /** The server drops it after one notification (signatureSubscribe). */
  oneShot?: boolean;
  /** The server refused it (bad params): it is not retried. */
  onRefused?(error: { code: number; message: string }): void;
}

export interface PubSubConnectionOptions {
  initialBackoffMs?: number;
  maxBackoffMs?: number;
  /** A ping every this often; no pong by the next one ends the socket (a half-open connection looks alive otherwise). */
  heartbeatMs?: number;
  /** The backoff's jitter. */
  random: Random;
  /** Where the backoff and the heartbeat are timed. */
  clock: Clock;
  log?: (msg: string) => void;
  onState?: (state: ConnectionState, previous: ConnectionState) => void;
  /**
   * After each connection, once every subscription was answered. `afterGap`: this is a reconnect, or a
   * first connection after failed attempts; notifications of the time without a socket are lost.
   */
  onSubscribed?: (afterGap: boolean) => void;
}

interface Active {
  spec: SubscriptionSpec;
  serverId: string | null;
  cancelled: boolean;
}

export interface PubSubCounters {
  reconnects: number;
  /** Notifications received, by method (`slotNotification`, `accountNotification`, ...). */
  notifications: Record<string, number>;
}

/**
 * One WebSocket to a Solana PubSub endpoint that survives drops: it reconnects with exponential backoff and
 * jitter and subscribes everything again. Hand-written on `ws` because kit's `createSolanaRpcSubscriptions`
 * neither reconnects nor resubscribes (a dropped channel ends every subscription's iterator with an error),
 * exposes no connection state, and drops notifications that arrive before iteration starts.
 */
export class PubSubConnection {
  private ws: WebSocket | null = null;
  private stateValue: ConnectionState = 'connecting';
  private readonly active = new Set<Active>();
  private readonly byServerId = new Map<string, Active>();
  private readonly pending = new Map<number, (answer: { result?: unknown; error?: { code: number; message: string } }) => void>();
  private nextRequestId = 1;
  private attempt = 0;
  private connectedAt = 0;
  private everConnected = false;
  private failedSinceOpen = false;
  private reconnectTimer: Timer | null = null;
  private heartbeat: Timer | null = null;
  private readonly opts: Required<Omit<PubSubConnectionOptions, 'onState' | 'onSubscribed'>> & Pick<PubSubConnectionOptions, 'onState' | 'onSubscribed'>;
  readonly counters: PubSubCounters = { reconnects: 0, notifications: {} };

  constructor(
    readonly url: string,
    opts: PubSubConnectionOptions,
  ) {
    this.opts = {
      initialBackoffMs: opts.initialBackoffMs ?? 250,
      maxBackoffMs: opts.maxBackoffMs ?? 15_000,
      heartbeatMs: opts.heartbeatMs ?? 15_000,
      random: opts.random,
      clock: opts.clock,
      log: opts.log ?? (() => {}),
      onState: opts.onState,
      onSubscribed: opts.onSubscribed,
    };
  }

  get state(): ConnectionState {
    return this.stateValue;
  }

  get subscriptionCount(): number {
    return this.active.size;
  }

  start(): void {
    if (this.ws || this.stateValue === 'closed') return;
    this.open();
  }

  /** Registers a subscription; it is (re)sent on every connection until cancelled. */
  subscribe(spec: SubscriptionSpec): () => void {
    const a: Active = { spec, serverId: null, cancelled: false };
    this.active.add(a);
    if (this.stateValue === 'connected') void this.send(a);
    return () => this.cancel(a);
  }

  async close(): Promise<void> {
    this.setState('closed');
    this.reconnectTimer?.cancel();
    this.stopHeartbeat();
    const ws = this.ws;
    this.ws = null;
    this.active.clear();
    this.byServerId.clear();
    if (ws && ws.readyState !== WebSocket.CLOSED) {
      const closed = new Promise<void>((resolve) => ws.once('close', () => resolve()));
      ws.terminate();
      await closed;
    }
  }

  private setState(next: ConnectionState): void {
    const previous = this.stateValue;
    if (previous === next || previous === 'closed') return;
    this.stateValue = next;
    this.opts.onState?.(next, previous);
  }

  private open(): void {
    const ws = new WebSocket(this.url, { perMessageDeflate: false, handshakeTimeout: 10_000 });
    this.ws = ws;
    ws.on('open', () => {
      if (this.ws !== ws) return;
      const afterGap = this.everConnected || this.failedSinceOpen;
      if (this.everConnected) this.counters.reconnects++;
      this.failedSinceOpen = false;
      this.everConnected = true;
      this.connectedAt = this.opts.clock.now();
      this.setState('connected');
      this.startHeartbeat(ws);
      const sent = [...this.active].map((a) => this.send(a));
      void Promise.all(sent).then(() => this.ws === ws && this.opts.onSubscribed?.(afterGap));
    });
    ws.on('message', (data) => this.onMessage(data.toString()));
    ws.on('pong', () => ((ws as WebSocket & { alive?: boolean }).alive = true));
    ws.on('error', (e) => this.opts.log(`pubsub ${this.url}: ${e.message}`));
    ws.on('close', () => this.onClose(ws));
  }

  private onClose(ws: WebSocket): void {
    if (this.ws !== ws) return;
    this.ws = null;
    this.stopHeartbeat();
    for (const answer of this.pending.values()) answer({ error: { code: 0, message: 'connection closed' } });
    this.pending.clear();
    this.byServerId.clear();
    for (const a of this.active) a.serverId = null;
    if (this.stateValue === 'closed') return;
    this.failedSinceOpen = true;
    // A connection that held for a while starts the backoff over; one dropped at once keeps growing it.
    if (this.connectedAt > 0 && this.opts.clock.now() - this.connectedAt > this.opts.maxBackoffMs) this.attempt = 0;
    this.connectedAt = 0;
    const delay = backoffDelay(this.attempt, this.opts.initialBackoffMs, this.opts.maxBackoffMs, () => this.opts.random.float());
    this.attempt = Math.min(this.attempt + 1, 30);
    this.setState('reconnecting');
    this.reconnectTimer = this.opts.clock.after(delay, () => {
      this.reconnectTimer = null;
      if (this.stateValue !== 'closed') this.open();
    });
  }

  private startHeartbeat(ws: WebSocket): void {
    const w = ws as WebSocket & { alive?: boolean };
    w.alive = true;
    this.heartbeat = this.opts.clock.every(this.opts.heartbeatMs, () => {
      if (!w.alive) return void ws.terminate();
      w.alive = false;
      ws.ping();
    });
  }

  private stopHeartbeat(): void {
    this.heartbeat?.cancel();
    this.heartbeat = null;
  }

  private request(method: string, params: unknown[]): Promise<{ result?: unknown; error?: { code: number; message: string } }> {
    const ws = this.ws;
    if (!ws || ws.readyState !== WebSocket.OPEN) return Promise.resolve({ error: { code: 0, message: 'not connected' } });
    const id = this.nextRequestId++;
    return new Promise((resolve) => {
      this.pending.set(id, resolve);
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, params }));
    });
  }

  private async send(a: Active): Promise<void> {
    const answer = await this.request(a.spec.method, a.spec.params);
    if (answer.error) {
      // code 0: the connection went away; the next connection sends it again.
      if (answer.error.code !== 0 && !a.cancelled) {
        this.active.delete(a);
        a.spec.onRefused?.(answer.error);
      }
      return;
    }
    const serverId = String(answer.result);
    if (a.cancelled) return void this.request(unsubscribeMethod(a.spec.method), [Number(serverId)]);
    a.serverId = serverId;
    this.byServerId.set(serverId, a);
  }

  private cancel(a: Active): void {
    if (a.cancelled) return;
    a.cancelled = true;
    this.active.delete(a);
    if (a.serverId === null) return;
    this.byServerId.delete(a.serverId);
    void this.request(unsubscribeMethod(a.spec.method), [Number(a.serverId)]);
  }

  private onMessage(text: string): void {
    let msg: { id?: unknown; result?: unknown; error?: { code: number; message: string }; method?: string; params?: { subscription?: unknown; result?: unknown } };
    try {
      msg = parseJsonWithBigInts(text) as typeof msg;
    } catch {
      return this.opts.log(`pubsub ${this.url}: unparseable message`);
    }
    if (msg.id !== undefined && msg.id !== null) {
      const answer = this.pending.get(Number(msg.id));
      this.pending.delete(Number(msg.id));
      answer?.({ result: msg.result, error: msg.error });
      return;
    }
    if (typeof msg.method !== 'string' || !msg.params) return;
    const a = this.byServerId.get(String(msg.params.subscription));
    if (!a) return;
    this.counters.notifications[msg.method] = (this.counters.notifications[msg.method] ?? 0) + 1;
    if (a.spec.oneShot) {
      a.cancelled = true;
      this.active.delete(a);
      this.byServerId.delete(a.serverId!);
    }
    try {
      a.spec.onNotification(msg.params.result);
    } catch (e) {
      // A listener's bug must not take the socket (or the process, from inside an event handler) down.
      this.opts.log(`pubsub ${this.url}: ${msg.method} listener failed: ${(e as Error).message}`);
    }
  }
}

/**
 * Exponential backoff with "equal jitter": half the capped delay fixed, half random, so clients dropped
 * together (a restarted RPC node) do not all come back in the same instant, yet none retries at once.
 */
export function backoffDelay(attempt: number, initialMs: number, maxMs: number, random: () => number): number {
  const ceiling = Math.min(maxMs, initialMs * 2 ** attempt);
  return Math.round(ceiling / 2 + (random() * ceiling) / 2);
}

function unsubscribeMethod(subscribe: string): string {
  return subscribe.replace(/Subscribe$/, 'Unsubscribe');
}
