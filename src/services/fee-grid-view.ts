import { quotedRung, type SharedGrid } from '../domain/fee-grid-shared.ts';
import { openClassWindows, readFeeGrid } from '../store/fee-grid-store.ts';
import type { Db } from '../store/db.ts';
import type { Clock } from '../support/clock.ts';
import { every } from '../support/periodic.ts';

/** The rung a quote's flat networkFee is priced at, for a class (its key) or an amount off the menu (null). */
export interface QuotedFeePrice {
  priceFor(classKey: string | null): bigint;
}

/** How often the API reads the shared grid: well within GRID_ANNOUNCE_MS, so every process knows a move before it applies. */
const READ_EVERY_MS = 5_000;

/**
 * The API's view of the fee grid the workers move (src/settlement/fee-grid-observer.ts): the shared row read
 * every 5 s, never per quote (a quote costs no statement), and while a move is pending the classes' open
 * windows with it, so each class keeps one rung to its release (quotedRung). Static pricing: the configured
 * price, as before issue 73.
 */
export class FeeGridView implements QuotedFeePrice {
  private grid: SharedGrid | null = null;
  private windows = new Map<string, number>();
  private stopTimer: (() => void) | null = null;

  constructor(
    private readonly db: Db,
    private readonly config: { feePricing: 'market' | 'static'; computeUnitPriceMicroLamports: bigint; privacyMaxWaitS: number },
    private readonly clock: Pick<Clock, 'now' | 'every'>,
  ) {}

  priceFor(classKey: string | null): bigint {
    const fallback = this.config.computeUnitPriceMicroLamports;
    if (this.config.feePricing === 'static') return fallback;
    return quotedRung(this.grid, fallback, this.clock.now(), classKey === null ? null : (this.windows.get(classKey) ?? null));
  }

  async refresh(): Promise<void> {
    if (this.config.feePricing === 'static') return;
    const row = await readFeeGrid(this.db);
    const windows = row?.grid.pending ? await openClassWindows(this.db, this.config.privacyMaxWaitS) : [];
    this.grid = row?.grid ?? null;
    this.windows = new Map(windows.map((w) => [w.key, w.openedAt]));
  }

  start(): void {
    if (this.stopTimer || this.config.feePricing === 'static') return;
    this.stopTimer = every(this.clock as Clock, READ_EVERY_MS, () => this.refresh());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }
}
