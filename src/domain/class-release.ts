import { anyArrivalWeight, arrivalsAtOdds, crowdFills, hasTraffic, meanArrivals, spanForAnyArrivalWeight, spanToBring, stopped, thinHistory, unproven, young, type ClassEvidence } from './class-forecast.ts';
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
 * What Hush has seen of a class's traffic (class-forecast.ts: its arrivals, how long and how clustered,
 * or a known rate per ms); undefined when nothing. Undefined, 0 and no arrivals are all "no traffic".
 */
export type ClassRate = (classKey: string) => ClassEvidence | undefined;

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
 * same release, later (docs/decisions.md: the threshold chosen by bench:privacy-bound). Counted as the
 * odds of anybody at all (anyArrivalWeight): a burst's many arrivals are one chance, not many.
 */
export const MIN_EXPECTED_ARRIVALS = 0.1;

/** A quote's promise holds at these odds at least (issue 51): its set is what the order gets, its delay the wait, four times in five. */
export const PROMISE_ODDS = 0.8;

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
function holdsOut(m: Member, going: number, company: number, now: number, traffic: ClassEvidence | undefined, horizonMs: number): boolean {
  if (!(m.choice && 'minAnonymitySet' in m.choice) || m.wants <= going || now >= m.deadline - horizonMs) return false;
  return company + meanArrivals(traffic, m.deadline - now) >= m.wants;
}

/**
 * Who of a class would go together now. First every member but those holding out for more than would go,
 * each counting the whole class as its possible company: removing one shrinks the set, so repeat. Then
 * those left out are the company they would really have: one that cannot expect its set among them goes
 * after all, which adds to the set and takes from their company, so repeat. Each loop only moves members
 * one way, so each ends within as many rounds as there are members.
 */
function goingTogether(members: Member[], now: number, policy: ReleasePolicy, traffic: ClassEvidence | undefined): Member[] {
  const horizon = mergeHorizonMs(policy);
  let going = members;
  for (;;) {
    const next = going.filter((m) => !holdsOut(m, going.length, members.length, now, traffic, horizon));
    if (next.length === going.length) break;
    going = next;
  }
  for (;;) {
    const inGoing = new Set(going);
    const company = members.length - going.length;
    const next = members.filter((m) => inGoing.has(m) || !holdsOut(m, going.length, company, now, traffic, horizon));
    if (next.length === going.length) return going;
    going = next;
  }
}

/**
 * Why these members of a class go now, or null while they wait. A class a member asked to wait in is held
 * for it (within each member's own bound); one nobody asked to wait in is steered by its traffic, and with
 * no traffic at all it is not held for nothing. `crowd` is a young Hush's traffic of every standard class
 * but the deposit that opened this class's waiting set (a crowd may reach this class later than others).
 */
export function releaseReason(
  going: readonly Member[],
  anyoneWaits: boolean,
  now: number,
  policy: ReleasePolicy,
  traffic: ClassEvidence | undefined,
  crowd?: ClassEvidence,
): ReleaseReason | null {
  if (going.length === 0) return null;
  const steered = !anyoneWaits && !policy.fixedK;
  // A crowd still arriving whose history is not yet a rate (a young Hush's, or a class's first burst) is
  // not cut at the target (issue 71): the members arriving after the cut would go as a small release of
  // their own, one more link. It goes whole once its silence says it has stopped, or at the earliest hold.
  const arriving = steered && unproven(traffic) && hasTraffic(traffic) && !stopped(traffic);
  if (going.every((m) => going.length >= m.wants) && !arriving) return 'target';
  const deadline = Math.min(...going.map((m) => m.deadline));
  if (now >= deadline) return 'budget';
  if (!steered) return null;
  const wants = Math.max(...going.map((m) => m.wants));
  if (!hasTraffic(traffic) || notYetWorthHolding(traffic, wants - going.length, deadline - now)) {
    // A class that would go at once is held while a young Hush is in a crowd spread over its classes: one
    // the crowd has reached only once or twice yet would otherwise go as pieces of one or two while the rest
    // of it arrives (issue 71). Held while the crowd would bring the set at the young rule's odds, it goes
    // together once the crowd's silence says it stopped, or once Hush is no longer young.
    if (young(crowd) && crowdFills(crowd, wants - going.length, (deadline - now) / 2, 1 - PROMISE_ODDS)) return null;
    return 'no-traffic';
  }
  if (anyArrivalWeight(traffic, deadline - now) < MIN_EXPECTED_ARRIVALS) return 'too-slow';
  return null;
}

/**
 * Whether a class whose history is not yet a rate (unproven) goes at once rather than held on it, for members
 * that want `needed` more and have `leftMs` of hold left. A young Hush holds only a crowd: one that brings
 * `needed` within half of what is left, at the promise's odds (issue 41's cold start). A class seen fewer than
 * MIN_EPISODES times holds only while the rest of the hold brings anybody at all at the promise's odds: with one
 * or two arrivals in the window that is rarely so, and a partner's repeated test send is not held for the crowd
 * one earlier order seemed to promise (issue 71). Anything thinner goes at once, as with no traffic.
 */
function notYetWorthHolding(traffic: ClassEvidence, needed: number, leftMs: number): boolean {
  if (young(traffic)) return !crowdFills(traffic, needed, leftMs / 2, 1 - PROMISE_ODDS);
  if (thinHistory(traffic)) return arrivalsAtOdds(traffic, leftMs, 1 - PROMISE_ODDS) < 1;
  return false;
}

/**
 * Which classes go now and when each of their payouts is sent. Depends on the waiting set, not on the
 * order it is listed in (members are ordered by id before the shuffle); every payout is sent within its
 * member's budget of its deposit's confirmation when passes come at least every `passEveryMs`. `crowd`:
 * a young Hush's traffic of every standard class, each class's own counted as `rate` counts it (undefined
 * once Hush is no longer young).
 */
export function decideRelease(
  waiting: readonly WaitingPayout[],
  now: number,
  policy: ReleasePolicy,
  rate: ClassRate,
  random: () => number,
  lastBurst: LastBurst = () => undefined,
  crowd: ClassRate = () => undefined,
): ReleaseDecision {
  if (!Number.isInteger(policy.targetSet) || policy.targetSet < 1) throw new RangeError(`the target set must be a positive integer, got ${policy.targetSet}`);
  const classes = new Map<string, Member[]>();
  for (const w of waiting) classes.set(w.classKey, [...(classes.get(w.classKey) ?? []), member(w, policy)]);
  const release: ScheduledPayout[] = [];
  let nextDeadline: number | null = null;
  for (const [key, members] of [...classes.entries()].sort(([a], [b]) => (a < b ? -1 : 1))) {
    const traffic = rate(key);
    const going = goingTogether(members, now, policy, traffic);
    const reason = releaseReason(going, members.some((m) => asksToWait(m.choice)), now, policy, traffic, crowd(key));
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

/** A quote's two readings of its class (issue 51): the central estimate, and what holds at PROMISE_ODDS. */
export interface ExpectedRelease {
  /** The expected release size and the mean wait before the release, seconds (the central estimate). */
  batch: number;
  delaySeconds: number;
  /** The release size the order gets, and the wait it does not exceed, at least PROMISE_ODDS of the time. */
  promisedBatch: number;
  promisedDelaySeconds: number;
  /** Goes at once, alone and unspread (releaseReason's `no-traffic`): after the two slots only. */
  atOnce?: boolean;
}

/**
 * What a quote may promise for a class with this `traffic` (class-forecast.ts), for a member that chose
 * `choice`. The central estimate: the mean wait of a deposit before its release and the expected release
 * size at the measured rate. The promise: the set the class brings within its cycle at PROMISE_ODDS (the
 * forecast's lower quantile: a burst, or a crowd seen for seconds, promises little), and the wait at the
 * same odds: the cycle the class takes to fill at those odds, or its hold when it cannot, all of it when the
 * member is likely to be the first of its release. No traffic: a member that asked for nothing goes at once,
 * alone; one that asked to wait is promised its whole hold and no company, since nothing measured says more.
 * `crowd`: a young Hush's traffic of every standard class (releaseReason).
 */
export function expectedRelease(
  traffic: ClassEvidence | undefined,
  policy: Pick<ReleasePolicy, 'targetSet' | 'fixedK' | 'budgetMs' | 'ceilingMs' | 'spreadFromMs' | 'spreadMs' | 'passEveryMs'>,
  choice?: PrivacyChoice,
  crowd?: ClassEvidence,
): ExpectedRelease {
  const holdMsOf = holdMs({ ...policy, budgetMs: memberBudgetMs(choice, policy) });
  const holdS = holdMsOf / 1000;
  const patient = asksToWait(choice);
  const minSet = choice && 'minAnonymitySet' in choice && !policy.fixedK ? choice.minAnonymitySet : undefined;
  const target = minSet ?? policy.targetSet;
  // A class not yet a rate (a young Hush's, or thin) that is not worth holding goes at once (releaseReason): the quote says so.
  const thin = !patient && !policy.fixedK && hasTraffic(traffic) && notYetWorthHolding(traffic, target - 1, holdMsOf);
  if (!hasTraffic(traffic) || thin) {
    // Held while a young Hush's crowd arrives (releaseReason): how long the crowd lasts is not measured yet,
    // so only the hold is a wait the member does not exceed.
    const inCrowd = !patient && !policy.fixedK && young(crowd) && crowdFills(crowd, target - 1, holdMsOf / 2, 1 - PROMISE_ODDS);
    const waitS = patient || inCrowd || (policy.fixedK && traffic === undefined) ? holdS : 0;
    return { delaySeconds: waitS, batch: 1, promisedDelaySeconds: waitS, promisedBatch: 1, ...(waitS === 0 ? { atOnce: true } : {}) };
  }
  // A steered class goes once the rest of the hold is expected to bring under MIN_EXPECTED_ARRIVALS more
  // (releaseReason's too-slow). A fixed k is held to the oldest member's deadline and takes the class; so is
  // a class whose members wait for a set it cannot bring within their ceilings (holdsOut): none holds out,
  // and the class goes together when the oldest one's hold runs out.
  const heldToDeadline = policy.fixedK || minSet !== undefined;
  const cycleMs = heldToDeadline ? holdMsOf : Math.max(0, holdMsOf - spanForAnyArrivalWeight(traffic, MIN_EXPECTED_ARRIVALS));
  const rate = meanArrivals(traffic, 1000);
  const fillS = (target - 1) / rate;
  // Central: a deposit lands anywhere in its class's cycle, and on average waits half of it.
  const central = fillS <= holdS ? { delaySeconds: fillS / 2, batch: target } : { delaySeconds: cycleMs / 2000, batch: Math.max(1, Math.min(target, 1 + meanArrivals(traffic, cycleMs))) };
  // The promise: the q-quantile of the forecast, q = 1 − PROMISE_ODDS.
  const q = 1 - PROMISE_ODDS;
  // Traffic watched for W has lasted W, and four times in five it is not in the last fifth of its life: at
  // the promise's odds it lasts W / 4 more. Only what that span brings is promised; a Hush that has watched
  // a window at least four holds long is not limited by it (a young Hush's crowd is: it may stop at any time).
  const lastsMs = lastingAtOdds(traffic);
  const fillMs = spanToBring(traffic, target - 1, q, Math.min(holdMsOf, lastsMs));
  if (fillMs !== undefined) {
    // Fills at those odds within fillMs; a member waits at most that, and at the odds a little less (its
    // place in the cycle is uniform), but the spread of the fill time is already in fillMs: keep all of it.
    return defended(traffic, { ...central, promisedBatch: target, promisedDelaySeconds: Math.min(holdS, fillMs / 1000) });
  }
  const company = arrivalsAtOdds(traffic, Math.min(cycleMs, lastsMs), q);
  // The member's wait is the cycle less its place in it; as the cycle's first (odds 1 / (1 + expected
  // company)) it waits all of it, otherwise a uniform share.
  const first = 1 / (1 + meanArrivals(traffic, cycleMs));
  const waitMs = first >= q ? cycleMs : (cycleMs * PROMISE_ODDS) / (1 - first);
  return defended(traffic, { ...central, promisedBatch: Math.max(1, Math.min(target, 1 + company)), promisedDelaySeconds: Math.min(cycleMs, waitMs) / 1000 });
}

/**
 * A class not yet a rate (unproven) has no central estimate worth more than its promise: its "likely" set and
 * wait are the ones it holds at PROMISE_ODDS (issue 71: one earlier order made a quote say "likely 6").
 */
function defended(traffic: ClassEvidence, r: ExpectedRelease): ExpectedRelease {
  return unproven(traffic) ? { ...r, batch: r.promisedBatch, delaySeconds: r.promisedDelaySeconds } : r;
}

/** How long traffic seen over a span W goes on, at the promise's odds: W (1 − PROMISE_ODDS) / PROMISE_ODDS. */
function lastingAtOdds(traffic: ClassEvidence): number {
  if (typeof traffic === 'number') return Infinity;
  const watchedMs = traffic.exposureMs - (traffic.priorMs ?? 0);
  return (watchedMs * (1 - PROMISE_ODDS)) / PROMISE_ODDS;
}

/** The amount a transfer pins: amountIn under exact_in, amountOut under exact_out (docs/spec.md §9). */
export function pinnedAmount(o: { mode: string; amountIn: bigint; amountOut: bigint }): bigint {
  return o.mode === 'exact_out' ? o.amountOut : o.amountIn;
}
