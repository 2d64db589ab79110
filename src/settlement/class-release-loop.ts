import { randomInt } from 'node:crypto';
import type { HushConfig } from '../config/config.ts';
import { releasePolicy } from '../config/privacy-settings.ts';
import { classKey, decideRelease, type ReleasePolicy } from '../domain/class-release.ts';
import type { ClassTrafficSource } from '../services/class-traffic.ts';
import type { Db } from '../store/db.ts';
import { releaseClasses } from '../store/settlement/release-classes.ts';

/**
 * Class release (docs/spec.md §9), beside the settlement worker: standard payouts are due at the end of
 * their hold (payoutDueFor); each pass brings a class forward once it reaches the target set, or once its
 * measured traffic says waiting on buys too little (decideRelease). It only moves due times, in one
 * transaction, so a crash during a release leaves either the old times or the new ones, and the payouts
 * themselves go through the worker's one payout path.
 */
export class ClassReleaseLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private readonly policy: ReleasePolicy;

  constructor(
    config: HushConfig,
    private readonly db: Db,
    private readonly traffic: ClassTrafficSource,
    private readonly log: (msg: string) => void = () => {},
  ) {
    this.policy = releasePolicy(config);
  }

  /** One pass; the number of payouts released. */
  async pass(now = Date.now()): Promise<number> {
    const ratePerMs = (key: string) => {
      const perS = this.traffic.rateOfKey(key);
      return perS === undefined ? undefined : perS / 1000;
    };
    return releaseClasses(this.db, (held) => {
      const waiting = held.map((h) => ({ id: h.id, classKey: classKey(h), confirmedAt: h.confirmedAt }));
      return decideRelease(waiting, now, this.policy, ratePerMs, () => randomInt(2 ** 32) / 2 ** 32).release.map((r) => ({ id: r.id, at: new Date(r.at), releasedWith: r.releasedWith }));
    });
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.running = this.pass().catch((e: Error) => this.log(`class release: pass failed (${e.message}); payouts stay due at the end of their hold`));
    }, this.policy.passEveryMs);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
