/**
 * Class release (docs/spec.md §9), as pure decisions the settlement worker applies: which waiting payouts
 * of standard transfers go now, in what order and when, and what a quote can promise about it.
 *
 * A class is (source asset, destination asset, mode, pinned amount). A payout hides only among the
 * payouts released with it, and the best adversary links about one per release, so a class is held until
 * its release reaches the target set. A class whose traffic cannot reach the target within the delay
 * budget is held as long as waiting still brings members, and never past the budget; a release is
 * shuffled and spread so the order of payouts says nothing about the order of deposits.
 */

export interface ReleasePolicy {
  /** Release a class once this many of its payouts wait (HUSH_PRIVACY_TARGET_SET, or HUSH_PRIVACY_K). */
  targetSet: number;
  /** HUSH_PRIVACY_K: a fixed k, held to the budget whatever the class's traffic (no steering). */
  fixedK: boolean;
  /** HUSH_PRIVACY_MAX_DELAY_S: no payout is sent later than this after its deposit's confirmation. */
  budgetMs: number;
  /** A release's payouts are sent at uniform moments from spreadFromMs to spreadFromMs + spreadMs after it. */
  spreadFromMs: number;
  spreadMs: number;
  /** No payout earlier than this after its deposit's confirmation (two slots: never the same or next). */
  minGapMs: number;
  /** The longest between two decisions: a class's deadline leaves this much room before the budget. */
  passEveryMs: number;
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
  /** How many payouts of its class this release sends (the order's `privacy.releasedWith`). */
  releasedWith: number;
}

export interface ReleaseDecision {
  release: ScheduledPayout[];
  /** When a class still waiting must go at the latest (its oldest deposit's hold runs out). */
  nextDeadline: number | null;
}

/**
 * Deposits a class is expected to receive per millisecond, from its measured traffic; undefined while
 * nothing has been measured long enough to say (a cold start): such a class is held to its deadline.
 */
export type ClassRate = (classKey: string) => number | undefined;

/**
 * A release held this long after its oldest deposit still sends its last payout within the budget: the
 * budget less the spread and two passes (a release may be decided up to one pass late, and a payout due
 * is sent by the worker within about one more).
 */
export function holdMs(policy: Pick<ReleasePolicy, 'budgetMs' | 'spreadFromMs' | 'spreadMs' | 'passEveryMs'>): number {
  return Math.max(0, policy.budgetMs - policy.spreadFromMs - policy.spreadMs - 2 * policy.passEveryMs);
}

/**
 * Waiting on is worth its delay only while the rest of the hold is expected to bring at least this many
 * more deposits: below 0.1, fewer than one wait in ten gains anybody, and the likeliest outcome is the
 * same release, later (docs/decisions.md: the threshold chosen by bench:privacy-bound).
 */
export const MIN_EXPECTED_ARRIVALS = 0.1;

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

/** Why a class goes now, or null while it waits. */
export function releaseReason(
  members: number,
  oldestConfirmedAt: number,
  now: number,
  policy: ReleasePolicy,
  ratePerMs: number | undefined,
): 'target' | 'budget' | 'too-slow' | null {
  if (members >= policy.targetSet) return 'target';
  const deadline = oldestConfirmedAt + holdMs(policy);
  if (now >= deadline) return 'budget';
  if (!policy.fixedK && ratePerMs !== undefined && ratePerMs * (deadline - now) < MIN_EXPECTED_ARRIVALS) return 'too-slow';
  return null;
}

/**
 * Which classes go now and when each of their payouts is sent. Depends on the waiting set, not on the
 * order it is listed in (members are ordered by id before the shuffle); every payout is sent within the
 * budget of its deposit's confirmation when passes come at least every `passEveryMs`.
 */
export function decideRelease(waiting: readonly WaitingPayout[], now: number, policy: ReleasePolicy, rate: ClassRate, random: () => number): ReleaseDecision {
  if (!Number.isInteger(policy.targetSet) || policy.targetSet < 1) throw new RangeError(`the target set must be a positive integer, got ${policy.targetSet}`);
  const classes = new Map<string, WaitingPayout[]>();
  for (const w of waiting) classes.set(w.classKey, [...(classes.get(w.classKey) ?? []), w]);
  const release: ScheduledPayout[] = [];
  let nextDeadline: number | null = null;
  for (const [key, members] of [...classes.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const oldest = Math.min(...members.map((m) => m.confirmedAt));
    if (releaseReason(members.length, oldest, now, policy, rate(key)) !== null) {
      const ordered = [...members].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
      // Each payout gets its own uniform offset: the sending order is a fresh random order, whatever the arrivals.
      for (const m of shuffle(ordered, random)) {
        const drawn = Math.max(now + policy.spreadFromMs + random() * policy.spreadMs, m.confirmedAt + policy.minGapMs);
        // Only a late pass draws past the budget (less the worker's pass): then a uniform moment of what is
        // left, never the budget's edge itself, which would name the deposit.
        const latest = m.confirmedAt + policy.budgetMs - policy.passEveryMs;
        release.push({ id: m.id, at: drawn <= latest ? drawn : now + random() * Math.max(0, latest - now), releasedWith: members.length });
      }
    } else {
      const deadline = oldest + holdMs(policy);
      if (nextDeadline === null || deadline < nextDeadline) nextDeadline = deadline;
    }
  }
  return { release: release.sort((a, b) => a.at - b.at), nextDeadline };
}

/**
 * What a quote may promise for a class that receives `ratePerS` deposits a second: the mean wait of a
 * deposit before its release and the expected release size (the first estimate of the effective
 * anonymity set; bench:privacy measures the real one and checks the estimate against it). undefined
 * rate: not measured yet.
 */
export function expectedRelease(ratePerS: number | undefined, policy: Pick<ReleasePolicy, 'targetSet' | 'fixedK' | 'budgetMs' | 'spreadFromMs' | 'spreadMs' | 'passEveryMs'>): { delaySeconds: number; batch: number } {
  const holdS = holdMs(policy) / 1000;
  const rate = ratePerS ?? 0;
  if (!(rate > 0)) return { delaySeconds: ratePerS === undefined || policy.fixedK ? holdS : 0, batch: 1 };
  const fillS = (policy.targetSet - 1) / rate;
  // A deposit lands anywhere in its class's cycle: on average it waits half of it.
  if (fillS <= holdS) return { delaySeconds: fillS / 2, batch: policy.targetSet };
  // Cannot fill: steered, the class goes once the rest of the hold is expected to bring under MIN_EXPECTED_ARRIVALS more.
  const cycleS = policy.fixedK ? holdS : Math.max(0, holdS - MIN_EXPECTED_ARRIVALS / rate);
  return { delaySeconds: cycleS / 2, batch: Math.max(1, Math.min(policy.targetSet, 1 + rate * cycleS)) };
}

/** The amount a transfer pins: amountIn under exact_in, amountOut under exact_out (docs/spec.md §9). */
export function pinnedAmount(o: { mode: string; amountIn: bigint; amountOut: bigint }): bigint {
  return o.mode === 'exact_out' ? o.amountOut : o.amountIn;
}
