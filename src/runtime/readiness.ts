import { BLOCKHASH_REFRESH_MS, type SolanaChain } from '../chain/solana-chain.ts';
import type { Db } from '../store/db.ts';
import type { Clock, Timer } from '../support/clock.ts';

/** The store probe's period and bound: one `SELECT 1` per period, however often /readyz is asked. */
export const STORE_PROBE_MS = 2_000;
/** A store whose last good probe is older than this is unreachable (a probe hung past its bound, or none ran). */
const STORE_STALE_MS = 3 * STORE_PROBE_MS;

/** True when the promise fulfils within `ms` on `clock`; false when it rejects or is still pending then. */
export function answersWithin(clock: Pick<Clock, 'after'>, p: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const late = clock.after(ms, () => resolve(false));
    void p.then(() => true, () => false).then((ok) => (late.cancel(), resolve(ok)));
  });
}

export interface ReadyState {
  store: boolean;
  chain: boolean;
  starting: boolean;
  /** Why payouts are paused for an operator (docs/operations.md), from the store's last probe; null: they are not. */
  paused: string | null;
  /** The fee payer as the worker last read it (ok, low, empty), from the store's last probe; null before any reading. */
  feePayer: string | null;
}

/**
 * /readyz from state the process already keeps (docs/spec.md §4), so a flood of probes costs no chain call and no
 * store round trip: the chain is judged by the blockhash refresh SolanaChain runs anyway (every 5 s, each
 * bounded by HUSH_RPC_TIMEOUT_MS), the store by one background probe every STORE_PROBE_MS.
 * Staleness: a chain failure shows within 5 s + HUSH_RPC_TIMEOUT_MS, a store failure within 2 × STORE_PROBE_MS.
 */
export class Readiness {
  private storeOkAt: number | null = null;
  private storeFailing = false;
  private pausedFor: string | null = null;
  private feePayer: string | null = null;
  private timer: Timer | null = null;
  private probing = false;
  /** The chain's last good refresh may be this old: one period plus one timed-out attempt plus slack. */
  private readonly chainStaleMs: number;

  constructor(
    private readonly db: Db,
    private readonly chain: SolanaChain,
    rpcTimeoutMs: number,
    private readonly started: () => boolean,
    /** The runtime's clock: the one the chain client stamps its blockhash refreshes with. */
    private readonly clock: Clock,
  ) {
    this.chainStaleMs = BLOCKHASH_REFRESH_MS + rpcTimeoutMs + 1_000;
  }

  /** One store probe now (the first answer need not wait a period), then one per period. */
  async start(): Promise<void> {
    if (this.timer) return;
    this.timer = this.clock.every(STORE_PROBE_MS, () => void this.probeStore());
    // A process that has not fetched a blockhash yet (role api) fetches its first now, not on the first
    // tick; not awaited: a start waits out a flaky chain elsewhere, /readyz saying so meanwhile.
    void this.chain.latestBlockhash().catch(() => {});
    await this.probeStore();
  }

  stop(): void {
    this.timer?.cancel();
    this.timer = null;
  }

  private async probeStore(): Promise<void> {
    if (this.probing) return; // a hung probe is not stacked on: staleness reports it
    this.probing = true;
    try {
      // The probe reads whether payouts are paused (docs/decisions.md "The chain is the record"): still one round trip.
      const read = this.db.query<{ paused: string | null; fee_payer: string | null }>(
        `SELECT (SELECT reason FROM chain_truth WHERE id = 1 AND paused) AS paused, (SELECT fee_payer_state FROM chain_truth WHERE id = 1) AS fee_payer`,
      );
      const ok = await answersWithin(this.clock, read, STORE_PROBE_MS);
      this.storeFailing = !ok;
      if (ok) {
        this.storeOkAt = this.clock.now();
        const row = (await read).rows[0];
        this.pausedFor = row?.paused ?? null;
        this.feePayer = row?.fee_payer ?? null;
      }
    } finally {
      this.probing = false;
    }
  }

  /** Why payouts are paused, as the last probe read it (the API refuses new quotes and orders meanwhile). */
  paused(): string | null {
    // An empty fee payer pays no fee: payouts are stopped as surely as by a pause.
    return this.pausedFor ?? (this.feePayer === 'empty' ? 'fee_payer_empty' : null);
  }

  /** Synchronous: reads the last outcomes only. */
  state(now = this.clock.now()): ReadyState {
    const fresh = (at: number | null, staleMs: number) => at !== null && now - at <= staleMs;
    const chain = this.chain.refreshHealth();
    return {
      store: !this.storeFailing && fresh(this.storeOkAt, STORE_STALE_MS),
      chain: !chain.failing && fresh(chain.okAt, this.chainStaleMs),
      starting: !this.started(),
      paused: this.pausedFor,
      feePayer: this.feePayer,
    };
  }
}
