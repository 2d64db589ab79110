import { every } from '../support/periodic.ts';
import type { AssetRegistry } from '../config/assets.ts';
import { classArrivals, type ClassArrivals } from '../domain/class-forecast.ts';
import { classKey } from '../domain/class-release.ts';
import type { Db } from '../store/db.ts';
import { firstOrderAt, recentClassTraffic } from '../store/class-traffic-store.ts';
import type { Clock } from '../support/clock.ts';

type ClassOf = { sourceAssetId: string; destinationAssetId: string; mode: string; pinnedAmount: bigint };

/** How often a young Hush reads its class traffic (start()). */
const YOUNG_EVERY_MS = 1000;

/** The buckets a traffic window is cut into: how clustered a class's arrivals are is read at this grain. */
export const TRAFFIC_BUCKETS = 360;

/** What Hush has seen of each class's deposits: what the release steers by and the quote's promise is made from. */
export interface ClassTrafficSource {
  /**
   * The class's arrivals (class-forecast.ts); undefined before the first read or the first order. With a
   * `sender`, its own deposits left out: they are no company for it (recentClassCounts).
   */
  arrivalsOf(cls: ClassOf, sender?: string): ClassArrivals | undefined;
  /** Every standard class's arrivals as one's, while Hush is young (the crowd a class may be part of); else undefined. */
  crowdOf?(cls: ClassOf, own?: readonly number[], sender?: string): ClassArrivals | undefined;
  /** The span the arrivals are watched over, seconds: Hush's life while shorter than the window. */
  observedSeconds(now?: number): number | undefined;
  /** The window the arrivals are counted in, seconds. */
  readonly windowS: number;
  /** A young Hush's prior silence, seconds: added to what it has watched (class-forecast.ts). */
  readonly priorSilenceS: number;
  /** The bucket of the window, ms. */
  readonly bucketMs: number;
}

/**
 * Deposits per standard class over the last `windowS` (or since the first order, when Hush is younger
 * than that), by age bucket, read from the store every `everyMs` rather than per quote: a quote must not
 * cost a query, and arrivals a few seconds old steer a release as well. A young Hush adds `priorSilenceS`
 * of silence to what it has watched: a handful of deposits in its first seconds is not yet a rate.
 */
export class ClassTraffic implements ClassTrafficSource {
  private arrivals = new Map<string, ClassArrivals>();
  /** Per class with little traffic: its counts by age, and each sender's share of them. */
  private detail = new Map<string, { byAge: number[]; bySender: Map<string, number[]> }>();
  /** Per class: its counts by age, as last read (a young Hush's crowd sums them). */
  private byAge = new Map<string, readonly number[]>();
  private observedMs: number | undefined;
  private firstOrder: Date | null = null;
  private stopTimer: (() => void) | null = null;
  private readonly standardAmounts: bigint[];
  readonly bucketMs: number;

  constructor(
    private readonly db: Db,
    assets: AssetRegistry,
    private readonly clock: Clock,
    readonly windowS: number,
    readonly priorSilenceS: number,
    /** How far back arrivals still weigh fully: e-folding age, seconds (class-forecast.ts); Infinity: the window's mean. */
    private readonly memoryS = Infinity,
    private readonly everyMs = 10_000,
  ) {
    this.standardAmounts = [...new Set(assets.list.flatMap((a) => a.denominations))];
    this.bucketMs = (windowS * 1000) / TRAFFIC_BUCKETS;
  }

  /**
   * Reads Hush's first order if not known yet: the release's pass asks before it counts, so a crowd in a fresh
   * Hush's first seconds (before the next refresh) is watched from its first order, not taken for no traffic.
   */
  async knowFirstOrder(): Promise<void> {
    this.firstOrder ??= await firstOrderAt(this.db);
  }

  async refresh(now = this.clock.now()): Promise<void> {
    await this.knowFirstOrder();
    const observedMs = this.firstOrder ? Math.min(this.windowS * 1000, now - this.firstOrder.getTime()) : undefined;
    const counts = await recentClassTraffic(this.db, new Date(now - this.windowS * 1000), this.standardAmounts, { now: new Date(now), bucketMs: this.bucketMs });
    const arrivals = new Map<string, ClassArrivals>();
    const detail = new Map<string, { byAge: number[]; bySender: Map<string, number[]> }>();
    if (observedMs !== undefined) {
      for (const c of counts) {
        arrivals.set(classKey(c), this.toArrivals(c.byAge, observedMs));
        if (c.bySender) detail.set(classKey(c), { byAge: c.byAge, bySender: c.bySender });
      }
    }
    this.arrivals = arrivals;
    this.detail = detail;
    this.byAge = new Map(counts.map((c) => [classKey(c), c.byAge]));
    this.observedMs = observedMs;
  }

  /** A class's counts by age (newest first) as what the forecast reads. */
  toArrivals(byAge: readonly number[], observedMs: number): ClassArrivals {
    const counts = new Array<number>(TRAFFIC_BUCKETS).fill(0);
    byAge.forEach((n, age) => {
      if (age < TRAFFIC_BUCKETS) counts[TRAFFIC_BUCKETS - 1 - age]! += n;
    });
    return classArrivals(counts, this.bucketMs, observedMs, this.priorSilenceS * 1000, this.memoryS * 1000);
  }

  arrivalsOf(cls: ClassOf, sender?: string): ClassArrivals | undefined {
    if (this.observedMs === undefined) return undefined;
    const key = classKey(cls);
    const own = sender === undefined ? undefined : this.detail.get(key);
    const mine = own?.bySender.get(sender!);
    if (own && mine) return this.toArrivals(own.byAge.map((n, age) => n - (mine[age] ?? 0)), this.observedMs);
    return this.arrivals.get(key) ?? this.toArrivals([], this.observedMs);
  }

  /**
   * Every standard class's deposits as one class's, with the class's own counted as `own` (by age, newest
   * first; the release passes its own count, which leaves out the deposit that opened the class's waiting
   * set) instead of as last read, and without the deposits of `sender` (the opener's, or the quoting one's:
   * a sender's own deposits are no company for it) where the read kept them by sender. Read only while Hush
   * is young, the one time the release and the quote look at it (class-release.ts releaseReason): a crowd
   * spread over many classes reaches some of them only once or twice in its first seconds, and they are held
   * for it rather than sent as pieces.
   */
  crowdOf(cls: ClassOf, own?: readonly number[], sender?: string): ClassArrivals | undefined {
    if (this.observedMs === undefined || !this.young()) return undefined;
    const key = classKey(cls);
    const total: number[] = [];
    const add = (xs: readonly number[], sign: number) => xs.forEach((n, age) => (total[age] = (total[age] ?? 0) + sign * n));
    for (const [k, read] of this.byAge) {
      if (k === key && own) continue;
      add(read, 1);
      const mine = sender === undefined ? undefined : this.detail.get(k)?.bySender.get(sender);
      if (mine) add(mine, -1);
    }
    if (own) add(own, 1);
    return this.toArrivals(Array.from(total, (n) => n ?? 0), this.observedMs);
  }

  observedSeconds(now = this.clock.now()): number | undefined {
    if (this.firstOrder === null) return undefined;
    return Math.min(this.windowS, (now - this.firstOrder.getTime()) / 1000);
  }

  /**
   * Reads the counts again while Hush is young: the release pass asks before it decides, since a crowd's
   * first seconds are a handful of deposits and a read a second old may hold none of them (issue 71: the
   * crowd's first members went alone).
   */
  async refreshWhileYoung(now = this.clock.now()): Promise<void> {
    if (this.young(now)) await this.refresh(now);
  }

  /** Whether Hush has watched its traffic for less than the prior silence (or not at all yet). */
  private young(now = this.clock.now()): boolean {
    return this.firstOrder === null || now - this.firstOrder.getTime() < this.priorSilenceS * 1000;
  }

  start(): void {
    if (this.stopTimer) return;
    // A failed read keeps the last counts: an estimate a little old beats none.
    const steady = every(this.clock, this.everyMs, () => this.refresh());
    // A young Hush reads every second: a crowd's first quotes otherwise find counts ten seconds old (none, on
    // a fresh Hush) and promise the wait of a class with no traffic while the release holds it as a crowd
    // (issue 51). The cost: a second's query while Hush has no order or has watched less than the prior
    // silence (about a minute of traffic at the defaults), then none.
    const young = every(this.clock, YOUNG_EVERY_MS, () => this.refreshWhileYoung());
    this.stopTimer = () => {
      steady();
      young();
    };
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }
}
