import type { HushConfig } from '../config/config.ts';
import { releasePolicy } from '../config/privacy-settings.ts';
import { holdMs } from '../domain/class-release.ts';
import { ClassTraffic } from '../services/class-traffic.ts';
import { ClassReleaseLoop } from '../settlement/class-release-loop.ts';
import type { Db } from '../store/db.ts';
import type { Closers } from './closers.ts';
import type { Log } from './start-log.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

const OBSERVE_SHARE_OF_HOLD = 14;

/** The class traffic both the quotes and the class release read: one store query every few seconds. */
export async function startClassTraffic(config: HushConfig, db: Db, log: Log, closers: Closers, clock: Clock): Promise<ClassTraffic> {
  // A young Hush adds a prior silence to what it has watched (docs/spec.md §9, class-forecast.ts): a fourteenth
  // of the hold (a minute at the default budget), so that a handful of deposits in its first seconds is not
  // yet a rate, while a crowd is (docs/decisions.md). It weighs less as Hush watches longer.
  const holdS = holdMs(releasePolicy(config)) / 1000;
  const priorSilenceS = Math.min(config.privacyTrafficWindowS, holdS / OBSERVE_SHARE_OF_HOLD);
  // Arrivals weigh less with age, by e every hold: a class is forecast at its level of the last hold or so,
  // not the window's mean, so a daily cycle's trough is not promised its peak (docs/decisions.md).
  const traffic = new ClassTraffic(db, config.assets, clock, config.privacyTrafficWindowS, priorSilenceS, holdS);
  closers.add(() => traffic.stop());
  await traffic.refresh().catch((e: Error) => log(`privacy: class traffic not read (${e.message}); classes count as unmeasured until it is`));
  traffic.start();
  return traffic;
}

/** docs/spec.md §9: the worker's class release (privacy on), reading the API's class traffic or its own. */
export async function startClassRelease(
  config: HushConfig,
  db: Db,
  traffic: ClassTraffic | null,
  log: Log,
  closers: Closers,
  clock: Clock,
  random: Random,
  /** The worker's payout loop, woken at each released payout's due time. */
  wakeAt: (at: number) => void = () => {},
): Promise<void> {
  const classTraffic = traffic ?? (await startClassTraffic(config, db, log, closers, clock));
  const loop = new ClassReleaseLoop(config, db, classTraffic, log, clock, random, wakeAt);
  loop.start();
  closers.add(() => loop.stop());
}
