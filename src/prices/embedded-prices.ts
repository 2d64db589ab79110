/**
 * The embedded price source: reference prices checked into the repo (config/assets.json
 * `referencePriceUsd`), optionally moved by a slow, bounded random walk so quotes change in demos.
 *
 * - Off by default (`walkBpsPerMinute` 0): every answer is the exact reference price.
 * - On: each asset moves independently; over any interval of t ms its price changes by a factor in
 *   [1 − w·t/60000, 1 + w·t/60000] (w = walkBpsPerMinute / 10000), drawn uniformly, and is clamped to
 *   reference × (1 ± walkBandBps/10000) so a long demo never drifts into nonsense.
 * - Deterministic: the same seed and the same clock readings give the same prices (a random walk is given a
 *   random seed by whoever builds it: createPriceSource).
 * - Exact: prices are kept as integers of 10^-18 USD per whole token; no float touches a price.
 * - publishedAt is the time of the answer; confidence is 0 (the reference is exact by definition).
 * - Overrides (`overridesFile`, HUSH_PRICE_OVERRIDES_FILE): a JSON object `{ "<assetId>": "<usd decimal>" }`
 *   whose prices replace the reference (and the walk) of the assets it names. It is re-read on an answer
 *   only when its mtime or size changed (one stat per answer otherwise), so an operator or a test moves
 *   prices at runtime; the next FreshPrices refresh picks the change up. A missing file means no
 *   overrides; a malformed one fails the answer (PriceSourceError: the refresh fails and is logged, the
 *   last snapshot ages out) and is re-read on every answer until it parses. Ids the source does not
 *   price are ignored.
 */
import { readFileSync, statSync } from 'node:fs';
import { parsePositivePrice, reduce } from '../domain/exact-decimal.ts';
import type { Price } from '../domain/price.ts';
import { PriceSourceError, type PriceQuote, type PriceSource } from './price-source.ts';
import type { Clock } from '../support/clock.ts';

export interface EmbeddedPriceOptions {
  assets: readonly { assetId: string; referencePriceUsd: string }[];
  /** Maximum relative move per minute in bps; 0 disables the walk. */
  walkBpsPerMinute?: number;
  /** Maximum distance from the reference in bps (default 2000 = ±20%). */
  walkBandBps?: number;
  /** The walk's seed: the same one replays the same walk. */
  seed: bigint | number | string;
  /** Where the walk's time and an answer's publishedAt are read. */
  clock: Pick<Clock, 'now'>;
  /** JSON `{ "<assetId>": "<usd decimal string>" }` applied over the reference prices, re-read when it changes. */
  overridesFile?: string;
}

const SCALE = 10n ** 18n;
/** Relative steps are drawn in units of 10^-8. */
const STEP_UNIT = 100_000_000n;
const MASK64 = (1n << 64n) - 1n;

/** SplitMix64: tiny, well-mixed, and reproducible from a 64-bit seed. */
class SplitMix64 {
  private state: bigint;
  constructor(seed: bigint) {
    this.state = seed & MASK64;
  }
  next(): bigint {
    this.state = (this.state + 0x9e3779b97f4a7c15n) & MASK64;
    let z = this.state;
    z = ((z ^ (z >> 30n)) * 0xbf58476d1ce4e5b9n) & MASK64;
    z = ((z ^ (z >> 27n)) * 0x94d049bb133111ebn) & MASK64;
    return z ^ (z >> 31n);
  }
  /** Integer uniform in [−m, m] (modulo bias ≤ 2m/2^64: irrelevant here). */
  symmetric(m: bigint): bigint {
    if (m <= 0n) return 0n;
    return (this.next() % (2n * m + 1n)) - m;
  }
}

function seedToBigInt(seed: bigint | number | string): bigint {
  if (typeof seed === 'bigint') return seed;
  if (typeof seed === 'number') return BigInt(Math.trunc(seed));
  let h = 0xcbf29ce484222325n; // FNV-1a over the text
  for (const ch of Buffer.from(seed, 'utf8')) h = ((h ^ BigInt(ch)) * 0x100000001b3n) & MASK64;
  return h;
}

export class EmbeddedPriceSource implements PriceSource {
  private readonly reference = new Map<string, Price>();
  private readonly current = new Map<string, bigint>();
  private readonly walkBps: bigint;
  private readonly bandBps: bigint;
  private readonly rng: SplitMix64;
  private readonly clock: Pick<Clock, 'now'>;
  private lastStep: number | null = null;
  private readonly overridesFile?: string;
  private overrides = new Map<string, Price>();
  /** `mtimeMs:size` of the overrides file last applied ('absent' when missing); null forces a read. */
  private overridesStamp: string | null = null;

  constructor(opts: EmbeddedPriceOptions) {
    const walk = opts.walkBpsPerMinute ?? 0;
    const band = opts.walkBandBps ?? 2000;
    if (!Number.isInteger(walk) || walk < 0 || walk > 10_000) throw new RangeError('walkBpsPerMinute must be an integer in 0..10000');
    if (!Number.isInteger(band) || band < 0 || band >= 10_000) throw new RangeError('walkBandBps must be an integer in 0..9999');
    this.walkBps = BigInt(walk);
    this.bandBps = BigInt(band);
    this.rng = new SplitMix64(seedToBigInt(opts.seed));
    this.clock = opts.clock;
    this.overridesFile = opts.overridesFile;
    for (const a of opts.assets) {
      const p = parsePositivePrice(a.referencePriceUsd);
      if (!p) throw new RangeError(`referencePriceUsd of ${a.assetId} is not a positive decimal: "${a.referencePriceUsd}"`);
      this.reference.set(a.assetId, p);
      const scaled = (p.num * SCALE) / p.den;
      this.current.set(a.assetId, scaled > 0n ? scaled : 1n);
    }
  }

  supports(assetId: string): boolean {
    return this.reference.has(assetId);
  }

  /** Advances the walk to `now` (no-op when the walk is off or time has not moved forward). */
  private step(now: number): void {
    if (this.walkBps === 0n) return;
    if (this.lastStep === null || now <= this.lastStep) {
      this.lastStep ??= now;
      return;
    }
    const elapsed = BigInt(Math.floor(now - this.lastStep));
    this.lastStep = now;
    // max relative move in 10^-8 units: walkBps/10^4 × elapsed/60000 × 10^8
    let max = (this.walkBps * 10_000n * elapsed) / 60_000n;
    if (max > STEP_UNIT / 2n) max = STEP_UNIT / 2n;
    // Iterate in a fixed order so a seeded walk does not depend on Map insertion quirks.
    for (const id of [...this.current.keys()].sort()) {
      const ref = this.reference.get(id)!;
      const refScaled = (ref.num * SCALE) / ref.den;
      const lo = (refScaled * (10_000n - this.bandBps)) / 10_000n;
      const hi = (refScaled * (10_000n + this.bandBps)) / 10_000n;
      let next = (this.current.get(id)! * (STEP_UNIT + this.rng.symmetric(max))) / STEP_UNIT;
      if (next < lo) next = lo;
      if (next > hi) next = hi;
      this.current.set(id, next > 0n ? next : 1n);
    }
  }

  /** Re-reads the overrides file when its mtime or size changed; throws PriceSourceError when it is malformed. */
  private loadOverrides(): void {
    const file = this.overridesFile;
    if (!file) return;
    let stamp: string;
    try {
      const st = statSync(file);
      stamp = `${st.mtimeMs}:${st.size}`;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw new PriceSourceError(`price overrides file ${file}: ${(e as Error).message}`);
      stamp = 'absent';
    }
    if (stamp === this.overridesStamp) return;
    const next = new Map<string, Price>();
    if (stamp !== 'absent') {
      let parsed: unknown;
      try {
        parsed = JSON.parse(readFileSync(file, 'utf8'));
      } catch (e) {
        throw new PriceSourceError(`price overrides file ${file} is not valid JSON: ${(e as Error).message}`);
      }
      if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new PriceSourceError(`price overrides file ${file} must hold a JSON object`);
      for (const [id, v] of Object.entries(parsed)) {
        const p = typeof v === 'string' ? parsePositivePrice(v) : null;
        if (!p) throw new PriceSourceError(`price overrides file ${file}: "${id}" must be a positive USD decimal string`);
        if (this.reference.has(id)) next.set(id, p);
      }
    }
    this.overrides = next;
    this.overridesStamp = stamp;
  }

  /** The price an answer at `now` gives, without the async wrapper (handy for tests). */
  priceNow(assetId: string): Price | undefined {
    const now = this.clock.now();
    this.loadOverrides();
    this.step(now);
    return this.priceOf(assetId);
  }

  private priceOf(assetId: string): Price | undefined {
    const o = this.overrides.get(assetId);
    if (o) return o;
    if (this.walkBps === 0n) return this.reference.get(assetId);
    const c = this.current.get(assetId);
    return c === undefined ? undefined : reduce({ num: c, den: SCALE });
  }

  async latest(assetIds: string[]): Promise<Map<string, PriceQuote>> {
    const now = this.clock.now();
    this.loadOverrides();
    this.step(now);
    const out = new Map<string, PriceQuote>();
    for (const id of assetIds) {
      const price = this.priceOf(id);
      if (price) out.set(id, { assetId: id, price, confidence: { num: 0n, den: 1n }, publishedAt: new Date(now), source: 'embedded' });
    }
    return out;
  }
}
