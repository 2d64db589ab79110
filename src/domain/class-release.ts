import { asksToWait, memberBudgetMs, type PrivacyChoice } from './privacy-choice.ts';

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
  /** HUSH_PRIVACY_MAX_DELAY_S: no payout of a member that chose nothing is sent later than this after its deposit's confirmation. */
  budgetMs: number;
  /** HUSH_PRIVACY_MAX_WAIT_S: the most any member is held, whatever it chose. */
  ceilingMs: number;
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
  /** The partner's choice for this order (its quote's privacy.requested); absent: the operator's defaults. */
  choice?: PrivacyChoice;
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
  /** When a class still waiting must go at the latest (the earliest of its members' holds runs out). */
  nextDeadline: number | null;
}

/**
 * Deposits a class is expected to receive per millisecond, from its measured traffic; undefined while
 * nothing has been measured long enough to say (a cold start). Undefined and 0 are both "no traffic".
 */
export type ClassRate = (classKey: string) => number | undefined;

/**
 * When a class's previous release sends its last payout (ms since epoch), if that is recent enough for a
 * new release to merge with it on the chain; undefined otherwise.
 */
export type LastBurst = (classKey: string) => number | undefined;

/**
 * A release held this long after its oldest deposit still sends its last payout within the budget: the
 * budget less the spread and two passes (a release may be decided up to one pass late, and a payout due
 * is sent by the worker within about one more).
 */
export function holdMs(policy: Pick<ReleasePolicy, 'budgetMs' | 'spreadFromMs' | 'spreadMs' | 'passEveryMs'>): number {
  return Math.max(0, policy.budgetMs - policy.spreadFromMs - policy.spreadMs - 2 * policy.passEveryMs);
}

/** A member's hold: the hold of its own budget (memberBudgetMs). */
export function memberHoldMs(choice: PrivacyChoice | undefined, policy: ReleasePolicy): number {
  return holdMs({ ...policy, budgetMs: memberBudgetMs(choice, policy) });
}

/**
 * Two releases of one class must not look like one on the chain (the status's releasedWith is what an
 * outside reader counts): the next starts no sooner than a spread and a few slots and passes after the
 * last payout of the one before.
 */
export function burstGapMs(policy: Pick<ReleasePolicy, 'spreadFromMs' | 'spreadMs' | 'minGapMs' | 'passEveryMs'>): number {
  // The spread's whole window and a margin for the payouts' own landing latency (a few passes and slots):
  // with only the spread's width, two bursts' landing slots still merged for an outside reader.
  return policy.spreadFromMs + policy.spreadMs + 5 * policy.minGapMs + 4 * policy.passEveryMs;
}

/** How long after a release the next burst of its class can start sending: its spread and the gap after it. */
export function mergeHorizonMs(policy: Pick<ReleasePolicy, 'spreadFromMs' | 'spreadMs' | 'minGapMs' | 'passEveryMs'>): number {
  return policy.spreadFromMs + policy.spreadMs + burstGapMs(policy);
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

export type ReleaseReason = 'target' | 'budget' | 'too-slow' | 'no-traffic';

interface Member extends WaitingPayout {
  deadline: number;
  /** The set this member waits for: its own minimum, else the target. */
  wants: number;
}

function member(w: WaitingPayout, policy: ReleasePolicy): Member {
  const min = w.choice && 'minAnonymitySet' in w.choice ? w.choice.minAnonymitySet : undefined;
  return { ...w, deadline: w.confirmedAt + memberHoldMs(w.choice, policy), wants: min !== undefined && !policy.fixedK ? min : policy.targetSet };
}

/**
 * Whether a member that asked for a larger set than `going` holds out for it: while its hold has time left
 * after a new burst could follow this one (mergeHorizonMs), and only while the class can still be expected
 * to bring the set in that time: the `company` holding out with it (itself included) plus the class's
 * measured arrivals before its deadline. A member whose set is out of reach goes with the class instead:
 * held to its ceiling it would go alone, or with the few whose ceilings end with its own, at a delay that
 * names its deposit.
 */
function holdsOut(m: Member, going: number, company: number, now: number, ratePerMs: number | undefined, horizonMs: number): boolean {
  if (!(m.choice && 'minAnonymitySet' in m.choice) || m.wants <= going || now >= m.deadline - horizonMs) return false;
  return company + (ratePerMs ?? 0) * (m.deadline - now) >= m.wants;
}

/**
 * Who of a class would go together now. First every member but those holding out for more than would go,
 * each counting the whole class as its possible company: removing one shrinks the set, so repeat. Then
 * those left out are the company they would really have: one that cannot expect its set among them goes
 * after all, which adds to the set and takes from their company, so repeat. Each loop only moves members
 * one way, so each ends within as many rounds as there are members.
 */
function goingTogether(members: Member[], now: number, policy: ReleasePolicy, ratePerMs: number | undefined): Member[] {
  const horizon = mergeHorizonMs(policy);
  let going = members;
  for (;;) {
    const next = going.filter((m) => !holdsOut(m, going.length, members.length, now, ratePerMs, horizon));
    if (next.length === going.length) break;
    going = next;
  }
  for (;;) {
    const inGoing = new Set(going);
    const company = members.length - going.length;
    const next = members.filter((m) => inGoing.has(m) || !holdsOut(m, going.length, company, now, ratePerMs, horizon));
    if (next.length === going.length) return going;
    going = next;
  }
}

/**
 * Why these members of a class go now, or null while they wait. A class a member asked to wait in is held
 * for it (within each member's own bound); one nobody asked to wait in is steered by its traffic, and with
 * no traffic at all it is not held for nothing.
 */
export function releaseReason(going: readonly Member[], anyoneWaits: boolean, now: number, policy: ReleasePolicy, ratePerMs: number | undefined): ReleaseReason | null {
  if (going.length === 0) return null;
  if (going.every((m) => going.length >= m.wants)) return 'target';
  const deadline = Math.min(...going.map((m) => m.deadline));
  if (now >= deadline) return 'budget';
  if (anyoneWaits || policy.fixedK) return null;
  if (ratePerMs === undefined || ratePerMs === 0) return 'no-traffic';
  if (ratePerMs * (deadline - now) < MIN_EXPECTED_ARRIVALS) return 'too-slow';
  return null;
}

/**
 * Which classes go now and when each of their payouts is sent. Depends on the waiting set, not on the
 * order it is listed in (members are ordered by id before the shuffle); every payout is sent within its
 * member's budget of its deposit's confirmation when passes come at least every `passEveryMs`.
 */
export function decideRelease(
  waiting: readonly WaitingPayout[],
  now: number,
  policy: ReleasePolicy,
  rate: ClassRate,
  random: () => number,
  lastBurst: LastBurst = () => undefined,
): ReleaseDecision {
  if (!Number.isInteger(policy.targetSet) || policy.targetSet < 1) throw new RangeError(`the target set must be a positive integer, got ${policy.targetSet}`);
  const classes = new Map<string, Member[]>();
  for (const w of waiting) classes.set(w.classKey, [...(classes.get(w.classKey) ?? []), member(w, policy)]);
  const release: ScheduledPayout[] = [];
  let nextDeadline: number | null = null;
  for (const [key, members] of [...classes.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const ratePerMs = rate(key);
    const going = goingTogether(members, now, policy, ratePerMs);
    const reason = releaseReason(going, members.some((m) => asksToWait(m.choice)), now, policy, ratePerMs);
    if (reason !== null) release.push(...schedule(going, reason, now, policy, random, lastBurst(key)));
    const released = new Set(reason !== null ? going.map((m) => m.id) : []);
    for (const m of members) if (!released.has(m.id) && (nextDeadline === null || m.deadline < nextDeadline)) nextDeadline = m.deadline;
  }
  return { release: release.sort((a, b) => a.at - b.at), nextDeadline };
}

/**
 * The send moments of one release: a fresh random order, each payout at a uniform moment of the spread,
 * after the class's previous burst has cleared (burstGapMs), never within two slots of its deposit and
 * never past its member's budget. A class with no traffic is a release of its own: nothing to spread it
 * among, so it goes after the two slots only.
 */
function schedule(going: Member[], reason: ReleaseReason, now: number, policy: ReleasePolicy, random: () => number, previous: number | undefined): ScheduledPayout[] {
  const ordered = [...going].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
  // A class without traffic is not held for nothing, not even for the gap: its lone payouts are linkable
  // anyway, and an outside reader may count two of them within a spread as one burst of two.
  const start = Math.max(now, previous === undefined || reason === 'no-traffic' ? now : previous + burstGapMs(policy));
  const [from, width] = reason === 'no-traffic' ? [0, policy.minGapMs] : [policy.spreadFromMs, policy.spreadMs];
  return shuffle(ordered, random).map((m) => {
    const drawn = Math.max(start + from + random() * width, m.confirmedAt + policy.minGapMs);
    // Only a late pass (or a burst still clearing) draws past the budget (less the worker's pass): then a
    // uniform moment of what is left, never the budget's edge itself, which would name the deposit.
    const latest = m.confirmedAt + memberBudgetMs(m.choice, policy) - policy.passEveryMs;
    const at = drawn <= latest ? drawn : now + random() * Math.max(0, latest - now);
    // Whatever a member chose, never the deposit's slot or the next.
    return { id: m.id, at: Math.max(at, m.confirmedAt + policy.minGapMs), releasedWith: going.length };
  });
}

/**
 * What a quote may promise for a class that receives `ratePerS` deposits a second, for a member that chose
 * `choice`: the mean wait of a deposit before its release and the expected release size (the first
 * estimate of the effective anonymity set; bench:privacy measures the real one and checks the estimate
 * against it). No traffic (undefined or 0): a member that asked for nothing goes at once, alone; one that
 * asked to wait is promised its whole hold and no company, since nothing measured says more.
 */
export function expectedRelease(
  ratePerS: number | undefined,
  policy: Pick<ReleasePolicy, 'targetSet' | 'fixedK' | 'budgetMs' | 'ceilingMs' | 'spreadFromMs' | 'spreadMs' | 'passEveryMs'>,
  choice?: PrivacyChoice,
): { delaySeconds: number; batch: number } {
  const holdS = holdMs({ ...policy, budgetMs: memberBudgetMs(choice, policy) }) / 1000;
  const rate = ratePerS ?? 0;
  const patient = asksToWait(choice);
  if (!(rate > 0)) return { delaySeconds: patient || (policy.fixedK && ratePerS === undefined) ? holdS : 0, batch: 1 };
  const minSet = choice && 'minAnonymitySet' in choice && !policy.fixedK ? choice.minAnonymitySet : undefined;
  const target = minSet ?? policy.targetSet;
  const fillS = (target - 1) / rate;
  // A deposit lands anywhere in its class's cycle: on average it waits half of it.
  if (fillS <= holdS) return { delaySeconds: fillS / 2, batch: target };
  // Cannot fill: steered, the class goes once the rest of the hold is expected to bring under
  // MIN_EXPECTED_ARRIVALS more. A fixed k is held to the oldest member's deadline and takes the class; so
  // is a class whose members wait for a set it cannot bring within their ceilings (holdsOut): none holds
  // out, and the class goes together when the oldest one's hold runs out.
  const cycleS = policy.fixedK || minSet !== undefined ? holdS : Math.max(0, holdS - MIN_EXPECTED_ARRIVALS / rate);
  return { delaySeconds: cycleS / 2, batch: Math.max(1, Math.min(target, 1 + rate * cycleS)) };
}

/** The amount a transfer pins: amountIn under exact_in, amountOut under exact_out (docs/spec.md §9). */
export function pinnedAmount(o: { mode: string; amountIn: bigint; amountOut: bigint }): bigint {
  return o.mode === 'exact_out' ? o.amountOut : o.amountIn;
}
