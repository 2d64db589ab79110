/**
 * Class release (SPEC §9), as pure decisions the settlement worker applies: which waiting payouts of
 * standard transfers go now, in what order and when, and what a quote can promise about it.
 *
 * A class is (source asset, destination asset, mode, pinned amount). Its waiting payouts are released
 * together when at least `k` wait, or when the oldest has waited `maxDelayMs`; a release is shuffled and
 * spread over a few slots so the order of payouts says nothing about the order of deposits.
 */

export interface ClassPolicy {
  /** Deposits of a class that trigger a release. */
  k: number;
  /** The longest any deposit waits for its class, milliseconds. */
  maxDelayMs: number;
  /** A release's payouts are spread uniformly over this many milliseconds… */
  spreadMs: number;
  /** …starting this long after the release (HUSH_PAYOUT_DELAY_S's min; 0 when absent). */
  spreadFromMs?: number;
  /** No payout earlier than this after its deposit's confirmation (two slots: never the same or next). */
  minGapMs: number;
}

export interface WaitingPayout {
  id: string;
  classKey: string;
  /** When the deposit was confirmed, ms since epoch. */
  confirmedAt: number;
}

export interface ScheduledPayout {
  id: string;
  /** When to send it, ms since epoch. */
  at: number;
}

export interface ReleaseDecision {
  release: ScheduledPayout[];
  /** When a class still waiting reaches its cap (the next moment anything can change without arrivals). */
  nextDeadline: number | null;
}

export function classKey(o: { sourceAssetId: string; destinationAssetId: string; mode: string; pinnedAmount: bigint }): string {
  return `${o.sourceAssetId}>${o.destinationAssetId}:${o.mode}:${o.pinnedAmount}`;
}

/** Fisher–Yates with the caller's randomness (crypto in the worker, seeded in tests). */
function shuffle<T>(xs: T[], random: () => number): T[] {
  const out = [...xs];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(random() * (i + 1));
    [out[i], out[j]] = [out[j]!, out[i]!];
  }
  return out;
}

export function decideRelease(waiting: readonly WaitingPayout[], now: number, policy: ClassPolicy, random: () => number): ReleaseDecision {
  if (!Number.isInteger(policy.k) || policy.k < 1) throw new RangeError(`k must be a positive integer, got ${policy.k}`);
  const classes = new Map<string, WaitingPayout[]>();
  for (const w of waiting) classes.set(w.classKey, [...(classes.get(w.classKey) ?? []), w]);
  const release: ScheduledPayout[] = [];
  let nextDeadline: number | null = null;
  for (const members of classes.values()) {
    const oldest = Math.min(...members.map((m) => m.confirmedAt));
    if (members.length >= policy.k || now - oldest >= policy.maxDelayMs) {
      // Each payout gets its own uniform offset: the sending order is a fresh random order, whatever the arrivals.
      for (const m of shuffle(members, random)) release.push({ id: m.id, at: Math.max(now + (policy.spreadFromMs ?? 0) + random() * policy.spreadMs, m.confirmedAt + policy.minGapMs) });
    } else {
      const deadline = oldest + policy.maxDelayMs;
      if (nextDeadline === null || deadline < nextDeadline) nextDeadline = deadline;
    }
  }
  return { release: release.sort((a, b) => a.at - b.at), nextDeadline };
}

/**
 * What a quote may promise for a class that receives `ratePerS` deposits a second (its recent traffic):
 * the expected wait before release and the number of deposits released together, the first estimate of
 * the effective anonymity set (bench:privacy measures the real one and checks the estimate against it).
 */
export function expectedRelease(ratePerS: number, policy: Pick<ClassPolicy, 'k' | 'maxDelayMs'>): { delaySeconds: number; batch: number } {
  const capS = policy.maxDelayMs / 1000;
  if (!(ratePerS > 0)) return { delaySeconds: capS, batch: 1 };
  // k − 1 others must arrive after this one (a class already part full only shortens the wait).
  const fillS = (policy.k - 1) / ratePerS;
  if (fillS <= capS) return { delaySeconds: fillS, batch: policy.k };
  return { delaySeconds: capS, batch: Math.max(1, Math.min(policy.k, 1 + ratePerS * capS)) };
}

/** The amount a transfer pins: amountIn under exact_in, amountOut under exact_out (SPEC §9). */
export function pinnedAmount(o: { mode: string; amountIn: bigint; amountOut: bigint }): bigint {
  return o.mode === 'exact_out' ? o.amountOut : o.amountIn;
}
