import { randomInt } from 'node:crypto';
import type { HushConfig } from '../config/config.ts';
import { classKey, decideRelease, type ClassPolicy } from '../domain/class-release.ts';
import { minGapMs } from '../domain/settlement/payout-delay.ts';
import type { Db } from '../store/db.ts';
import { releaseClasses } from '../store/settlement/release-classes.ts';

/** How often the waiting classes are looked at: a class that fills goes within about this long. */
const PASS_EVERY_MS = 1000;


export function classPolicy(config: HushConfig): ClassPolicy {
  const { min, max } = config.payoutDelayS;
  return {
    k: config.privacyK,
    maxDelayMs: config.privacyMaxDelayS * 1000,
    spreadFromMs: Math.round(min * 1000),
    spreadMs: Math.round((max - min) * 1000),
    minGapMs: minGapMs(config.localnetSlotMs),
  };
}

/**
 * Class release (SPEC §9), beside the settlement worker: standard payouts are due at their class's cap
 * (payoutDueMs); each pass brings a class forward once k of its deposits wait. It only moves due times,
 * in one transaction, so a crash during a release leaves either the old times or the new ones, and the
 * payouts themselves go through the worker's one payout path.
 */
export class ClassReleaseLoop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<unknown> = Promise.resolve();
  private readonly standardAmounts: bigint[];
  private readonly policy: ClassPolicy;

  constructor(
    private readonly config: HushConfig,
    private readonly db: Db,
    private readonly log: (msg: string) => void = () => {},
  ) {
    this.standardAmounts = [...new Set(config.assets.list.flatMap((a) => a.denominations))];
    this.policy = classPolicy(config);
  }

  /** One pass; the number of payouts released. */
  async pass(now = Date.now()): Promise<number> {
    const isStandard = (assetId: string, amount: bigint) => this.config.assets.get(assetId)?.denominations.includes(amount) ?? false;
    return releaseClasses(this.db, this.standardAmounts, (held) => {
      const waiting = held.filter((h) => isStandard(h.sourceAssetId, h.pinnedAmount)).map((h) => ({ id: h.id, classKey: classKey(h), confirmedAt: h.confirmedAt }));
      return decideRelease(waiting, now, this.policy, () => randomInt(2 ** 32) / 2 ** 32).release.map((r) => ({ id: r.id, at: new Date(r.at) }));
    });
  }

  start(): void {
    if (this.timer) return;
    this.timer = setInterval(() => {
      this.running = this.pass().catch((e: Error) => this.log(`class release: pass failed (${e.message}); payouts stay due at their class's cap`));
    }, PASS_EVERY_MS);
    this.timer.unref();
  }

  async stop(): Promise<void> {
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    await this.running;
  }
}
