import { every } from '../support/periodic.ts';
import type { AssetRegistry } from '../config/assets.ts';
import { classKey } from '../domain/class-release.ts';
import type { Db } from '../store/db.ts';
import { recentClassCounts } from '../store/class-traffic-store.ts';

/** A class's recent deposit rate, per second (what the quote's privacy estimate is made from). */
export interface ClassTrafficSource {
  ratePerS(cls: { sourceAssetId: string; destinationAssetId: string; mode: string; pinnedAmount: bigint }): number;
}

/**
 * Deposits per standard class over the last `windowS`, read from the store every `everyMs` rather than
 * per quote: a quote must not cost a query, and a rate a few seconds old estimates a release as well.
 * Until the first read every class counts as idle (the quote then promises the cap's delay, not more).
 */
export class ClassTraffic implements ClassTrafficSource {
  private rates = new Map<string, number>();
  private stopTimer: (() => void) | null = null;
  private readonly standardAmounts: bigint[];

  constructor(
    private readonly db: Db,
    assets: AssetRegistry,
    private readonly windowS: number,
    private readonly everyMs = 10_000,
  ) {
    this.standardAmounts = [...new Set(assets.list.flatMap((a) => a.denominations))];
  }

  async refresh(now = Date.now()): Promise<void> {
    const counts = await recentClassCounts(this.db, new Date(now - this.windowS * 1000), this.standardAmounts);
    const rates = new Map<string, number>();
    for (const c of counts) rates.set(classKey(c), c.deposits / this.windowS);
    this.rates = rates;
  }

  ratePerS(cls: { sourceAssetId: string; destinationAssetId: string; mode: string; pinnedAmount: bigint }): number {
    return this.rates.get(classKey(cls)) ?? 0;
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
