import type { HushConfig } from '../config/config.ts';
import { releasePolicy } from '../config/privacy-settings.ts';
import { burstGapMs, classKey, decideRelease, type ReleasePolicy } from '../domain/class-release.ts';
import { choiceOf } from '../domain/privacy-choice.ts';
import type { ClassTraffic } from '../services/class-traffic.ts';
import type { Db } from '../store/db.ts';
import { openers, releaseClasses } from '../store/settlement/release-classes.ts';
import type { Clock, Timer } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

/**
 * Class release (docs/spec.md §9), beside the settlement worker: standard payouts are due at the end of
 * their hold (payoutDueFor); each pass brings a class forward once it reaches the target set, or once its
 * measured traffic says waiting on buys too little (decideRelease). It only moves due times, in one
 * transaction, so a crash during a release leaves either the old times or the new ones, and the payouts
 * themselves go through the worker's one payout path.
 */
export class ClassReleaseLoop {
  private timer: Timer | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private readonly policy: ReleasePolicy;

  constructor(
    config: HushConfig,
    private readonly db: Db,
    private readonly traffic: Pick<ClassTraffic, 'observedSeconds' | 'knowFirstOrder' | 'toArrivals' | 'windowS' | 'bucketMs'> & Partial<Pick<ClassTraffic, 'crowdOf' | 'refreshWhileYoung'>>,
    private readonly log: (msg: string) => void,
    private readonly clock: Clock,
    /** The order a release's payouts are drawn in. */
    private readonly random: Random,
    /** Books a wake-up of the payout loop at a released payout's due time (so it goes then, not at the loop's next poll). */
    private readonly wakeAt: (at: number) => void = () => {},
  ) {
    this.policy = releasePolicy(config);
  }

  /**
   * One pass; the number of payouts released. A class's traffic is its deposits in the traffic window but
   * the one that opened its waiting set, by age bucket, over the span Hush has watched (class-forecast.ts):
   * none is no traffic.
   */
  async pass(now = this.clock.now()): Promise<number> {
    if (this.traffic.observedSeconds(now) === undefined) await this.traffic.knowFirstOrder();
    // A young Hush's crowd as of now, not as of the last read (crowdOf); a failed read keeps the last.
    await this.traffic.refreshWhileYoung?.(now).catch(() => {});
    const observedS = this.traffic.observedSeconds(now);
    const dueTimes: number[] = [];
    const released = await releaseClasses(
      this.db,
      (held, recent, others) => {
        const waiting = held.map((h) => {
          const choice = choiceOf(h.requested);
          return { id: h.id, classKey: classKey(h), confirmedAt: h.confirmedAt, ...(choice ? { choice } : {}) };
        });
        const lastBurst = new Map(recent.map((b) => [classKey(b), b.lastAt]));
        const opener = openers(held);
        const otherDeposits = new Map(others.map((o) => [classKey(o), o.byAge]));
        const ratePerMs = (key: string) => (observedS === undefined ? undefined : this.traffic.toArrivals(otherDeposits.get(key) ?? [], observedS * 1000));
        // Every class's traffic (a young Hush's crowd): the others' as read at the start of the pass, less
        // the opener's sender's own, the class's own as this pass counts it.
        const crowd = (key: string) => {
          const first = opener.get(key);
          return first ? this.traffic.crowdOf?.(first, otherDeposits.get(key) ?? [], first.sender) : undefined;
        };
        const release = decideRelease(waiting, now, this.policy, ratePerMs, () => this.random.float(), (key) => lastBurst.get(key), crowd).release;
        dueTimes.push(...release.map((r) => r.at));
        return release.map((r) => ({ id: r.id, at: new Date(r.at), releasedWith: r.releasedWith }));
      },
      {
        // Older releases have cleared: only the latest within a spread and its gap can merge with a new one.
        recentWithinMs: this.policy.spreadFromMs + burstGapMs(this.policy) + this.policy.spreadMs,
        trafficSince: new Date(now - this.traffic.windowS * 1000),
        now: new Date(now),
        bucketMs: this.traffic.bucketMs,
      },
    );
    // Only once the release is committed (a pass that failed wakes nothing).
    // Whole milliseconds, as the store keeps them (a drawn due time has a fraction; a clock set to it would too).
    for (const at of new Set(dueTimes.map((t) => Math.ceil(t)))) this.wakeAt(at);
    return released;
  }

  start(): void {
    if (this.timer) return;
    let busy = false;
    this.timer = this.clock.every(this.policy.passEveryMs, () => {
      // A pass slower than the interval (a loaded store) is not joined by another: on one connection the
      // queued passes would hold the store from settlement.
      if (busy) return;
      busy = true;
      this.running = this.pass()
        .catch((e: Error) => this.log(`class release: pass failed (${e.message}); payouts stay due at the end of their hold`))
        .finally(() => (busy = false));
    });
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = null;
    await this.running;
  }
}
