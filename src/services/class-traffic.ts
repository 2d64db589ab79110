import { every } from '../support/periodic.ts';
import type { AssetRegistry } from '../config/assets.ts';
import { classKey } from '../domain/class-release.ts';
import type { Db } from '../store/db.ts';
import { firstOrderAt, recentClassCounts } from '../store/class-traffic-store.ts';

type ClassOf = { sourceAssetId: string; destinationAssetId: string; mode: string; pinnedAmount: bigint };

/** A class's recent deposit rate, per second: what the release steers by and the quote's estimate is made from. */
export interface ClassTrafficSource {
  /** undefined while Hush has not seen traffic long enough to measure one. */
  ratePerS(cls: ClassOf): number | undefined;
  /** The same, by class key (classKey). */
  rateOfKey(key: string): number | undefined;
  /** The span the rates are measured over, seconds; undefined while too short to measure anything. */
  observedSeconds(now?: number): number | undefined;
  /** The window the rates count deposits in, seconds. */
  readonly windowS: number;
}

/**
 * Deposits per standard class over the last `windowS` (or since the first order, when Hush is younger
 * than that), read from the store every `everyMs` rather than per quote: a quote must not cost a query,
 * and a rate a few seconds old steers a release as well. A span shorter than `minObservedS` measures
 * nothing (a cold start): the rate is then undefined, and the release holds classes to their deadline.
 */
export class ClassTraffic implements ClassTrafficSource {
  private rates = new Map<string, number>();
  private measured = false;
  private firstOrder: Date | null = null;
  private stopTimer: (() => void) | null = null;
  private readonly standardAmounts: bigint[];

  constructor(
    private readonly db: Db,
    assets: AssetRegistry,
    readonly windowS: number,
    private readonly minObservedS: number,
    private readonly everyMs = 10_000,
  ) {
    this.standardAmounts = [...new Set(assets.list.flatMap((a) => a.denominations))];
  }

  async refresh(now = Date.now()): Promise<void> {
    this.firstOrder ??= await firstOrderAt(this.db);
    const observedS = this.firstOrder ? Math.min(this.windowS, (now - this.firstOrder.getTime()) / 1000) : 0;
    const counts = await recentClassCounts(this.db, new Date(now - this.windowS * 1000), this.standardAmounts);
    const rates = new Map<string, number>();
    if (observedS > 0) for (const c of counts) rates.set(classKey(c), c.deposits / observedS);
    this.rates = rates;
    this.measured = observedS >= this.minObservedS;
  }

  ratePerS(cls: ClassOf): number | undefined {
    return this.rateOfKey(classKey(cls));
  }

  rateOfKey(key: string): number | undefined {
    return this.measured ? (this.rates.get(key) ?? 0) : undefined;
  }

  observedSeconds(now = Date.now()): number | undefined {
    if (!this.measured || this.firstOrder === null) return undefined;
    return Math.min(this.windowS, (now - this.firstOrder.getTime()) / 1000);
  }

  start(): void {
    // A failed read keeps the last rates: an estimate a little old beats none.
    this.stopTimer ??= every(this.everyMs, () => this.refresh());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }
}
