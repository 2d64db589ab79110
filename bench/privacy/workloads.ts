/**
 * The simulated partner traffic: each workload is one row of the table, a stream of orders with its own
 * amounts, pairs and modes. Arrivals are Poisson at the stream's rate (bursty: Poisson bursts of eight).
 * Amounts are drawn in US dollars (log-normal, median $40) and turned into what a person would type.
 */
import type { Asset } from '../../src/config/assets.ts';

export type Mode = 'exact_in' | 'exact_out';

export interface PlannedOrder {
  stream: string;
  /** Milliseconds after the run starts (compressed time). */
  atMs: number;
  sourceAssetId: string;
  destinationAssetId: string;
  mode: Mode;
  amount: bigint;
  feeBps: number;
  /** The recipient already holds a token account of the destination asset. */
  recipientHolds: boolean;
  /** How long its user takes to sign and send the deposit once the order is placed, ms (compressed time); none: at once. */
  signDelayMs?: number;
  /** The user's privacy choice sent with the quote (docs/spec.md §9); none: the operator's defaults. */
  privacy?: PrivacyChoice;
  /** Whether the row counts it, when its workload says (a shaped workload's own arrivals); else the run's scored span decides. */
  scored?: boolean;
  /** A part of the row it is also judged on (the daily cycle's trough and peak). */
  tag?: string;
  /** Which of the bench's partner accounts places it (driver.ts); absent: the first. */
  partner?: number;
  /**
   * The user typed `amount` and took the quote's advice: the driver quotes it, then orders the suggested
   * standard amount nearest it (docs/spec.md §4 `suggestedAmounts`), and the plan's amount becomes that.
   */
  followSuggestion?: boolean;
}

/** One arrival of a shaped workload: when (real seconds from the run's start), whether scored, its tag. */
export interface ShapedArrival {
  atS: number;
  scored: boolean;
  tag?: string;
}

export type PrivacyChoice = { minAnonymitySet: number } | { maxDelaySeconds: number };

export interface Workload {
  id: string;
  label: string;
  /** Runs only at these rates (per second, real time); every rate when unset. */
  rates?: number[];
  bursty?: boolean;
  /** Evenly spaced arrivals instead of Poisson (the self-check's clean timing). */
  regular?: boolean;
  /**
   * Workloads sharing standard classes (asset, pinned amount, mode) must not share a Hush: class release
   * would mix their payouts and a row scored on its stream alone would see part of each release. Rows
   * with a `group` run in a Hush of their own (and only with --full); the rest together.
   */
  group?: string;
  /** One order's pair, mode and amount; a shaped workload's arrival is passed along (its tag may choose the class). */
  draw(rand: () => number, arrival?: ShapedArrival): Omit<PlannedOrder, 'stream' | 'atMs' | 'feeBps' | 'recipientHolds'>;
  /** The choice each order makes (drawn per order); none: the operator's defaults. */
  choice?(rand: () => number): PrivacyChoice | undefined;
  /** Arrivals of a shape of its own (issue 51: a crowd, a burst, a daily cycle), in real seconds, instead of Poisson at the run's rate. */
  shape?(rand: () => number): ShapedArrival[];
  /** The partner fees of its partners (one account each, drawn uniformly per order); absent: the first partner, fees from FEE_MIX. */
  partnerFees?: number[];
}

export interface AssetTable {
  get(id: string): Asset;
  denominations(id: string): bigint[];
}

const FEE_MIX = [0, 10, 25, 50];
const HOLDING_SHARE = 0.3;

/** Standard normal by Box–Muller. */
function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** A dollar amount: log-normal around $40, kept within $2–$2000 so every asset's bounds and pools allow it. */
function dollars(rand: () => number): number {
  return Math.min(2000, Math.max(2, 40 * Math.exp(1.1 * normal(rand))));
}

const pick = <T>(rand: () => number, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!;

/** Base units of `usd` dollars of `a`, truncated to `places` decimals of the asset (what a person types). */
function typed(a: Asset, usd: number, places: number): bigint {
  const whole = usd / Number(a.referencePriceUsd);
  const step = 10 ** Math.max(0, a.decimals - places);
  const units = BigInt(Math.max(1, Math.round((whole * 10 ** a.decimals) / step))) * BigInt(step);
  return units < a.min ? a.min : units;
}

/** The denomination closest in ratio to `usd` dollars of `a`. */
function nearestDenomination(t: AssetTable, id: string, usd: number): bigint {
  const target = typed(t.get(id), usd, t.get(id).decimals);
  let best = t.denominations(id)[0]!;
  for (const d of t.denominations(id)) if (Math.abs(Math.log(Number(d) / Number(target))) < Math.abs(Math.log(Number(best) / Number(target)))) best = d;
  return best;
}

/** The private amounts Hush offers for an asset under its configured menu (HUSH_DENOMINATIONS). */
export function denominationsOf(a: Asset): bigint[] {
  return [...a.denominations];
}

const SAME_ASSET = ['usdc', 'usdc', 'usdc', 'usdc', 'usdc', 'sol', 'sol', 'sol', 'usdt', 'usdt'];
const ROUND_USD = [10, 20, 20, 25, 50, 50, 100, 100, 200, 250, 500, 1000];
const ROUND_SOL = ['0.1', '0.2', '0.25', '0.5', '0.5', '1', '1', '2', '5'];
const SWAPS: [string, string][] = [['usdc', 'sol'], ['sol', 'usdc'], ['usdt', 'usdc'], ['usdc', 'bonk']];
const STANDARD = ['sol', 'usdc', 'usdt', 'bonk'];

export function workloads(t: AssetTable): Workload[] {
  const same = (assetId: string, amount: bigint, mode: Mode) => ({ sourceAssetId: assetId, destinationAssetId: assetId, amount, mode });
  const standard = (mode: Mode) => (rand: () => number) => {
    const id = pick(rand, STANDARD);
    return same(id, nearestDenomination(t, id, dollars(rand)), mode);
  };
  return [
    {
      id: 'free',
      label: 'free amounts',
      draw: (rand) => {
        const id = pick(rand, SAME_ASSET);
        return same(id, typed(t.get(id), dollars(rand), id === 'sol' ? 4 : 2), rand() < 0.5 ? 'exact_in' : 'exact_out');
      },
    },
    {
      id: 'round',
      label: 'round amounts',
      group: 'round',
      draw: (rand) => {
        const id = pick(rand, SAME_ASSET);
        const a = t.get(id);
        const amount = id === 'sol' ? typed(a, Number(pick(rand, ROUND_SOL)) * Number(a.referencePriceUsd), 4) : typed(a, pick(rand, ROUND_USD), 2);
        return same(id, amount, rand() < 0.5 ? 'exact_in' : 'exact_out');
      },
    },
    { id: 'std-out', label: 'standard, exact_out', draw: standard('exact_out') },
    { id: 'std-in', label: 'standard, exact_in', draw: standard('exact_in') },
    {
      id: 'swap',
      label: 'swap mix',
      draw: (rand) => {
        const [from, to] = pick(rand, SWAPS);
        return { sourceAssetId: from, destinationAssetId: to, amount: nearestDenomination(t, from, dollars(rand)), mode: 'exact_in' as const };
      },
    },
    { id: 'bursty', label: 'standard, exact_out, bursts of 8', rates: [1], bursty: true, group: 'bursty', draw: standard('exact_out') },
    // The partner's choice (issue 41): every order waits for a set of 20, in a Hush of its own at low traffic.
    {
      id: 'patient-20', label: 'standard, exact_out, minAnonymitySet 20', rates: [0.05], group: 'patient', draw: standard('exact_out'),
      choice: () => ({ minAnonymitySet: 20 }),
    },
    // A third of the orders wait for a set of 30, the rest take the defaults, sharing their classes: scored as one
    // row beside the default-only std-out row at the same rate.
    {
      id: 'mixed', label: 'standard, exact_out, a third minAnonymitySet 30', rates: [0.2], group: 'mixed', draw: standard('exact_out'),
      choice: (rand) => (rand() < 1 / 3 ? { minAnonymitySet: 30 } : undefined),
    },
  ];
}

/** Poisson arrival times (real seconds) at `rateAt(t)` per second, by thinning at its `peak`, within [from, to). */
export function poissonTimes(rateAt: (s: number) => number, peak: number, from: number, to: number, rand: () => number): number[] {
  const out: number[] = [];
  for (let t = from; ; ) {
    t += -Math.log(1 - rand()) / peak;
    if (t >= to) return out;
    if (rand() * peak <= rateAt(t)) out.push(t);
  }
}

/** A day of `dayS` real seconds whose rate swings ×10 between peak and trough (log-sinusoidal), `mean` orders a second on average. */
export function dailyCycle(mean: number, dayS: number): { rateAt: (s: number) => number; peak: number; swing: (s: number) => number } {
  const a = Math.log(Math.sqrt(10));
  // The mean of exp(a·sin) over a day is I₀(a), about 1.3304 for a = ln √10.
  const scale = mean / 1.3304;
  const swing = (s: number) => Math.exp(a * Math.sin((2 * Math.PI * s) / dayS));
  return { rateAt: (s) => scale * swing(s), peak: scale * Math.sqrt(10), swing };
}

/**
 * Issue 51's shaped rows, each in a Hush of its own: a cold crowd (a fresh Hush, 2 orders a second of three
 * standard classes for 60 s, then silence), a burst then silence (a Hush warmed by other classes, 20 of one
 * class in 30 s, then one of it every 10 minutes: the singles scored), and a daily cycle (standard exact_out
 * at 0.2 a second on average, ×10 between peak and trough over a day of `dayS`, after a warm-up); and issue 71's
 * cold crowd of partners (a fresh Hush, 96 orders at 2 a second of three partner accounts in both modes, round
 * USDC amounts as the quote suggests them: six classes, two of them a handful each).
 */
export function shapedWorkloads(t: AssetTable, dayS = 3600): Workload[] {
  const unit = (id: string, n: number) => BigInt(n) * 10n ** BigInt(t.get(id).decimals);
  const same = (assetId: string, amount: bigint, mode: Mode) => ({ sourceAssetId: assetId, destinationAssetId: assetId, amount, mode });
  const crowd = [same('usdc', unit('usdc', 10), 'exact_in'), same('usdc', unit('usdc', 100), 'exact_in'), same('sol', unit('sol', 1), 'exact_in')];
  const burstClass = same('usdc', unit('usdc', 100), 'exact_out');
  const burstAt = 600;
  // Eight singles: 80 minutes of silence after the burst (5 minutes of the bench's time at ×16).
  const SINGLES = 8;
  const standard = (rand: () => number) => {
    const id = pick(rand, STANDARD);
    return same(id, nearestDenomination(t, id, dollars(rand)), 'exact_out' as Mode);
  };
  const cycle = dailyCycle(0.2, dayS);
  const warmupS = 900;
  // What people type (issue 71): round dollar figures, each then moved to the quote's nearest suggestion.
  const ROUND_TYPED = [5, 10, 20, 25, 50, 100, 200, 250, 500];
  return [
    {
      id: 'cold-crowd', label: 'cold crowd: a fresh Hush, 2/s of three classes for 60 s', group: 'cold-crowd', draw: (rand) => pick(rand, crowd),
      shape: (rand) => poissonTimes(() => 2, 2, 0, 60, rand).map((atS) => ({ atS, scored: true })),
    },
    {
      // Issue 71: 96 orders of three partners (fees 0, 25, 50 bps) in both modes, 2/s on a fresh Hush; each a
      // round USDC amount moved to the quote's nearest suggestion (with the decade menu 10, 100 or 1,000).
      id: 'cold-crowd-partners', label: 'cold crowd of partners: a fresh Hush, 96 at 2/s, round USDC as suggested, 3 partners, both modes', group: 'cold-crowd-partners',
      partnerFees: [0, 25, 50],
      draw: (rand) => ({ ...same('usdc', unit('usdc', pick(rand, ROUND_TYPED)), rand() < 0.5 ? 'exact_in' : 'exact_out'), followSuggestion: true }),
      shape: (rand) => {
        let atS = 0;
        return Array.from({ length: 96 }, () => ((atS += -Math.log(1 - rand()) / 2), { atS, scored: true }));
      },
    },
    {
      id: 'burst-silence', label: 'burst of 20 then one every 10 min (the singles)', group: 'burst-silence',
      // The warm-up's other classes (standard exact_in, never the burst's exact_out class) and the burst class.
      draw: (rand, a) => (a?.tag === 'warm' ? { ...standard(rand), mode: 'exact_in' as Mode } : burstClass),
      shape: (rand) => [
        ...poissonTimes(() => 0.2, 0.2, 0, burstAt + 30 + SINGLES * 600, rand).map((atS) => ({ atS, scored: false, tag: 'warm' })),
        ...Array.from({ length: 20 }, () => ({ atS: burstAt + rand() * 30, scored: false, tag: 'burst' })),
        ...Array.from({ length: SINGLES }, (_, k) => ({ atS: burstAt + 30 + (k + 1) * 600, scored: true, tag: 'single' })),
      ],
    },
    {
      id: 'daily-cycle', label: `standard, exact_out, λ 0.2 on average, ×10 over a day of ${dayS / 3600} h`, group: 'daily-cycle', draw: standard,
      shape: (rand) =>
        poissonTimes((s) => cycle.rateAt(s - warmupS), cycle.peak, 0, warmupS + dayS, rand).map((atS) => {
          const swing = cycle.swing(atS - warmupS);
          const scored = atS >= warmupS;
          return { atS, scored, ...(scored && swing < 0.5 ? { tag: 'trough' } : scored && swing > 2 ? { tag: 'peak' } : {}) };
        }),
    },
  ];
}

/** `n` orders of `w` arriving at `rate` per second (compressed), from time 0, none after `untilMs`. */
export function schedule(w: Workload, n: number, rate: number, rand: () => number, untilMs = Infinity, compression = 1): PlannedOrder[] {
  const out: PlannedOrder[] = [];
  if (w.shape) {
    for (const a of w.shape(rand)) {
      const o = w.draw(rand, a);
      const holds = o.destinationAssetId !== 'sol' && rand() < HOLDING_SHARE;
      const partner = w.partnerFees ? Math.floor(rand() * w.partnerFees.length) : undefined;
      const fee = partner !== undefined ? { partner, feeBps: w.partnerFees![partner]! } : { feeBps: pick(rand, FEE_MIX) };
      out.push({ ...o, stream: w.id, atMs: (a.atS * 1000) / compression, ...fee, recipientHolds: holds, scored: a.scored, ...(a.tag ? { tag: a.tag } : {}) });
    }
    return out.sort((a, b) => a.atMs - b.atMs);
  }
  const burst = w.bursty ? 8 : 1;
  let t = 0;
  while (out.length < n) {
    t += (w.regular ? 1 : -Math.log(1 - rand())) * (burst / rate) * 1000;
    if (t > untilMs) break;
    for (let b = 0; b < burst && out.length < n; b++) {
      const o = w.draw(rand);
      const holds = o.destinationAssetId !== 'sol' && rand() < HOLDING_SHARE;
      const privacy = w.choice?.(rand);
      out.push({ ...o, stream: w.id, atMs: t + b * 50, feeBps: pick(rand, FEE_MIX), recipientHolds: holds, ...(privacy ? { privacy } : {}) });
    }
  }
  return out;
}
