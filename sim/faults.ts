import type { Random } from '../src/support/random.ts';
import type { FaultPoint } from '../src/support/fault-points.ts';
import type { RpcFault, RpcFaults } from './chain-wire.ts';
import type { StoreFaults } from './life-db.ts';
import { CONGESTION_DEFAULTS, type CongestionOptions } from '../src/localnet/congestion-profile.ts';

/**
 * `busy`: the chain congests like a busy mainnet hour and loses a tenth of all sends (issue 73), on top of `all`.
 * `store`: the store goes back in time once (issue 85): a backup taken during the storm is restored a while later,
 * Hush stopped meanwhile, as an operator's restore does it.
 * `lost`: the store is lost once (issue 85): Hush stopped, the store emptied, the partners' accounts and keys put back
 * from the operator's records, and Hush started again on it with the same seed (docs/operations.md "a store lost").
 */
export const FAULT_SETS = ['none', 'rpc', 'crash', 'all', 'busy', 'store', 'lost'] as const;
export type FaultSet = (typeof FAULT_SETS)[number];

/** Every named point a crash test stops the process at (src/support/fault-points.ts). */
export const FAULT_POINTS: readonly FaultPoint[] = ['deposit-confirmed', 'payout-recorded', 'payout-sent', 'payout-confirmed', 'sweep-recorded', 'sweep-sent', 'refund-recorded', 'funding-confirmed'];

/** The rates of the seeded faults while the storm lasts (each a probability per request, statement or reach). */
export const RATES = {
  // `late`: per transaction sent (a node holds it); `stale`: per status read; the others per request.
  rpc: { http: 0.01, rateLimited: 0.005, stall: 0.005, lost: 0.005, drop: 0.05, late: 0.1, stale: 0.05 },
  store: { before: 0.002, after: 0.001 },
  /** A crash at a fault point's reach, besides the points each seed aims at. */
  crashAtPoint: 0.01,
};

/**
 * The fault points each seed crashes at, at the first reach of each (some points are reached only once or twice in
 * a storm), besides the random ones.
 */
const AIMED_PER_SEED = 3;

/**
 * The first sends after the traffic ends, when most of what Hush sends is its members' payouts and refunds, a node
 * holds past their blockhash's life: each dies there, and Hush must call it expired and sign its part again.
 */
const AIMED_TAIL_HOLDS = 3;

export interface FaultPlan {
  readonly set: FaultSet;
  /** The chain's congestion (src/localnet/congestion-profile.ts); null: every valid transaction lands in its slot. */
  readonly congestion: CongestionOptions | null;
  readonly rpc: RpcFaults | null;
  readonly store: StoreFaults | null;
  /** True when the process should die at this reach of `point` (the simulator then restarts it). */
  crashAt(point: FaultPoint): boolean;
  /** The screening provider cannot answer now. */
  providerDown(now: number): boolean;
  /** Ends the storm: from now on nothing fails, so every order can reach its end. */
  calm(): void;
  /** Faults dealt so far, by kind. */
  readonly tally: Map<string, number>;
  /**
   * `store`: when the backup is taken and when it is restored (simulated ms since the epoch); `lost`: when the store is
   * lost (both times that moment, `lose` set); null otherwise.
   */
  readonly rollback: { backupAt: number; restoreAt: number; lose?: boolean } | null;
  /**
   * When a process is SIGKILLed at no point in particular (simulated ms since the epoch), and which role: the first
   * an API (mid-request, whatever it was answering), the second a worker. Empty without crash faults.
   */
  readonly kills: readonly { at: number; role: 'api' | 'worker' }[];
  /** True once the storm has calmed. */
  calmed(): boolean;
}

/**
 * The faults of one run, drawn from the seed's fault stream: RPC errors, 429s, stalls, lost answers,
 * silently dropped transactions and transactions a node holds before it sends them on; store connections cut
 * before a statement or after it committed; crashes at the named fault points (each seed aims at three points'
 * first reaches, so any three consecutive seeds cover every point, and crashes at random reaches besides);
 * screening provider outages.
 */
export function faultPlan(set: FaultSet, seed: number, random: Random, opts: { startMs: number; durationMs: number }): FaultPlan {
  const everything = set === 'all' || set === 'busy';
  const rpcOn = set === 'rpc' || everything;
  const crashOn = set === 'crash' || everything;
  const storeOn = everything;
  let calm = set === 'none';
  const tally = new Map<string, number>();
  const count = (k: string) => tally.set(k, (tally.get(k) ?? 0) + 1);
  // Three points a seed, the next three the next seed: any three consecutive seeds aim at every point.
  const aimed = new Set(Array.from({ length: AIMED_PER_SEED }, (_, k) => FAULT_POINTS[(AIMED_PER_SEED * seed + k) % FAULT_POINTS.length]!));
  const reaches = new Map<FaultPoint, number>();
  let tailHolds = AIMED_TAIL_HOLDS;
  const trafficEnd = opts.startMs + opts.durationMs;
  const outages: { from: number; to: number }[] = [];
  const rollback =
    set === 'store'
      ? (() => {
          const backupAt = opts.startMs + Math.floor(opts.durationMs * (0.2 + 0.2 * random.float()));
          return { backupAt, restoreAt: backupAt + Math.floor(opts.durationMs * (0.2 + 0.2 * random.float())) };
        })()
      : set === 'lost'
        ? (() => {
            const at = opts.startMs + Math.floor(opts.durationMs * (0.3 + 0.3 * random.float()));
            return { backupAt: at, restoreAt: at, lose: true };
          })()
        : null;
  // Two kills within the traffic, an API's then a worker's, each at a seeded instant.
  const kills = crashOn ? (['api', 'worker'] as const).map((role) => ({ role, at: opts.startMs + Math.floor(opts.durationMs * (0.2 + 0.6 * random.float())) })) : [];
  if (everything) {
    for (let i = 0; i < 2; i++) {
      const from = opts.startMs + random.int(Math.max(1, Math.floor(opts.durationMs * 0.6)));
      outages.push({ from, to: from + 5_000 + random.int(60_000) });
    }
  }
  const rpc: RpcFaults = {
    draw(methods): RpcFault | null {
      if (calm) return null;
      const r = RATES.rpc;
      const x = random.float();
      let fault: RpcFault | null = null;
      if (x < r.http) fault = { kind: 'http', status: ([500, 502, 503] as const)[random.int(3)]! };
      else if (x < r.http + r.rateLimited) fault = { kind: 'rate_limited', retryAfterS: 1 + random.int(3) };
      else if (x < r.http + r.rateLimited + r.stall) fault = { kind: 'stall', ms: 2_000 + random.int(13_000) };
      else if (x < r.http + r.rateLimited + r.stall + r.lost) fault = { kind: 'lost' };
      else if (methods.includes('sendTransaction') && random.float() < r.drop) fault = { kind: 'drop' };
      // A lagging node 10–75 slots (4–30 s) behind answers a status read.
      else if (methods.includes('getSignatureStatuses') && random.float() < r.stale) fault = { kind: 'stale', slots: 10 + random.int(66) };
      if (fault) count(`rpc ${fault.kind}`);
      return fault;
    },
    holdMs(now) {
      if (!rpcOn || calm) return null;
      if (now >= trafficEnd && tailHolds > 0) {
        tailHolds--;
        count('rpc late');
        return 100_000 + random.int(10_000);
      }
      if (random.float() >= RATES.rpc.late) return null;
      count('rpc late');
      // Held 20–110 s: about half the time past the point a transaction called dead too early is signed again and
      // within its blockhash's minute (it lands); else past that minute (it dies in the queue: Hush signs it again).
      return 20_000 + random.int(90_000);
    },
  };
  const store: StoreFaults = {
    cut() {
      if (calm) return null;
      const x = random.float();
      const cut = x < RATES.store.before ? 'before' : x < RATES.store.before + RATES.store.after ? 'after' : null;
      if (cut) count(`store cut ${cut}`);
      return cut;
    },
  };
  return {
    set,
    congestion: set === 'busy' ? { ...CONGESTION_DEFAULTS, profile: 'busy', seed, dropRate: 0.1 } : null,
    rpc: rpcOn ? rpc : null,
    store: storeOn ? store : null,
    crashAt(point) {
      if (!crashOn || calm) return false;
      const n = (reaches.get(point) ?? 0) + 1;
      reaches.set(point, n);
      const crash = (aimed.has(point) && n === 1) || random.float() < RATES.crashAtPoint;
      if (crash) count(`crash at ${point}`);
      return crash;
    },
    providerDown: (now) => !calm && outages.some((o) => now >= o.from && now < o.to),
    calm() {
      calm = true;
    },
    calmed: () => calm,
    tally,
    rollback,
    kills,
  };
}
