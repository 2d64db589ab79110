import { GRID_RULE, gridRungFor } from '../domain/fee-grid.ts';
import { firstGrid, needsWindows, stepSharedGrid, type SharedGrid } from '../domain/fee-grid-shared.ts';
import { openClassWindows, readFeeGrid, writeFeeGrid } from '../store/fee-grid-store.ts';
import type { Db } from '../store/db.ts';
import type { Clock } from '../support/clock.ts';
import type { Log } from './deps.ts';

export interface FeeGridPort {
  readonly db: Db;
  readonly clock: Pick<Clock, 'now'>;
  readonly config: { feePricing: 'market' | 'static'; computeUnitPriceMicroLamports: bigint; privacyMaxWaitS: number };
  alert(kind: string, fields: Record<string, unknown>, msg: string): void;
  readonly log: Log;
}

/** Readings of the market go into the shared grid at most this often (one statement each, while Hush signs). */
export const OBSERVE_EVERY_MS = 10_000;
/** The grid as last read is trusted this long by the ledger's split (a statement at most this often while settling). */
const CACHE_MS = 30_000;

/**
 * The worker's side of the quote grid (docs/decisions.md, "The network fee on a grid: the wiring"): each fresh
 * `fast` reading of the fee port (FeePrices.onFastReading) is stepped into the shared row compare-and-set
 * (stepSharedGrid), at most every 10 s; and the rung the flat networkFee is priced at, for the ledger's split of
 * each transaction's fee into what the flat figure priced and what Hush absorbed. An ALERT (`network_fee_short`)
 * when the market has stayed above the rung for as long as the grid waits before it steps up: the flat figure
 * no longer covers what Hush pays, and will not before the step (or never, at the top rung).
 */
export class FeeGridObserver {
  private cached: { grid: SharedGrid | null; at: number } = { grid: null, at: Number.NEGATIVE_INFINITY };
  private lastObserved = Number.NEGATIVE_INFINITY;
  private busy = false;
  private shortSince: number | null = null;
  private alertedShort = false;

  constructor(private readonly port: FeeGridPort) {}

  private get fallback(): bigint {
    return this.port.config.computeUnitPriceMicroLamports;
  }

  /** The rung the quotes' flat networkFee is priced at now (the old one while a move is pending); static: the configured price. */
  async flatPrice(): Promise<bigint> {
    if (this.port.config.feePricing === 'static') return this.fallback;
    if (this.port.clock.now() - this.cached.at > CACHE_MS) {
      const row = await readFeeGrid(this.port.db).catch(() => undefined);
      if (row !== undefined) this.cached = { grid: row?.grid ?? null, at: this.port.clock.now() };
    }
    return this.cached.grid?.step ?? gridRungFor(this.fallback);
  }

  /** A fresh `fast` reading of the market (never throws; at most one pass at a time, every 10 s). */
  reading(fast: bigint): Promise<void> {
    const now = this.port.clock.now();
    if (this.port.config.feePricing === 'static' || this.busy || now - this.lastObserved < OBSERVE_EVERY_MS) return Promise.resolve();
    this.busy = true;
    this.lastObserved = now;
    return this.observe(fast, now)
      .catch((e: unknown) => this.port.log({ err: e }, 'fee grid not updated'))
      .finally(() => (this.busy = false));
  }

  private async observe(fast: bigint, now: number): Promise<void> {
    const { db, config } = this.port;
    const row = await readFeeGrid(db);
    if (!row) {
      const windows = await openClassWindows(db, config.privacyMaxWaitS);
      const grid = firstGrid(fast, this.fallback, now, windows.length > 0);
      if (await writeFeeGrid(db, null, grid)) this.cached = { grid, at: now };
      return;
    }
    const windows = needsWindows(row.grid, fast, now) ? await openClassWindows(db, config.privacyMaxWaitS) : [];
    const { grid, moved } = stepSharedGrid(row.grid, fast, now, windows);
    if (!(await writeFeeGrid(db, row.version, grid))) return;
    this.cached = { grid, at: now };
    if (moved === 'decided') this.port.log({ from: grid.pending!.from.toString(), to: grid.pending!.to.toString(), effectiveAt: new Date(grid.pending!.effectiveAt).toISOString() }, 'fee grid: the network fee moves a rung');
    if (moved === 'effective') this.port.log({ step: grid.step.toString() }, 'fee grid: the new rung is in effect');
    this.watchShort(fast, grid, now);
  }

  private watchShort(fast: bigint, grid: SharedGrid, now: number): void {
    const quoted = grid.pending ? grid.pending.from : grid.step;
    if (fast <= quoted) {
      this.shortSince = null;
      this.alertedShort = false;
      return;
    }
    this.shortSince ??= now;
    if (this.alertedShort || now - this.shortSince < GRID_RULE.upAfterMs) return;
    this.alertedShort = true;
    const top = grid.step >= GRID_RULE.grid[GRID_RULE.grid.length - 1]!;
    this.port.alert(
      'network_fee_short',
      { marketPrice: fast.toString(), quotedPrice: quoted.toString(), pendingTo: grid.pending?.to.toString() ?? null, topRung: top },
      top
        ? 'ALERT: the market has stayed above the fee grid\'s top rung: every payout costs Hush more than its quote\'s networkFee; lower the cap or stop taking orders until it falls'
        : 'ALERT: the market has stayed above the rung the quotes\' networkFee is priced at: Hush absorbs the difference until the grid steps up (after the open class windows release)',
    );
  }
}
