import type { HushConfig } from '../config/config.ts';
import { releasePolicy } from '../config/privacy-settings.ts';
import { holdMs } from '../domain/class-release.ts';
import { ClassTraffic } from '../services/class-traffic.ts';
import { ClassReleaseLoop } from '../settlement/class-release-loop.ts';
import type { Db } from '../store/db.ts';
import type { Closers } from './closers.ts';
import type { Log } from './start-log.ts';

const OBSERVE_SHARE_OF_HOLD = 14;

/** The class traffic both the quotes and the class release read: one store query every few seconds. */
export async function startClassTraffic(config: HushConfig, db: Db, log: Log, closers: Closers): Promise<ClassTraffic> {
  // Until Hush has watched a while a class counts as without traffic, and a class nobody asked to wait in is
  // not held (docs/spec.md §9). A while is a fourteenth of the hold (a minute at the default budget): long
  // enough that one burst is not a rate, short enough that a new Hush steers soon (docs/decisions.md).
  const minObservedS = Math.min(config.privacyTrafficWindowS, holdMs(releasePolicy(config)) / 1000 / OBSERVE_SHARE_OF_HOLD);
  const traffic = new ClassTraffic(db, config.assets, config.privacyTrafficWindowS, minObservedS);
  closers.add(() => traffic.stop());
  await traffic.refresh().catch((e: Error) => log(`privacy: class traffic not read (${e.message}); classes count as unmeasured until it is`));
  traffic.start();
  return traffic;
}

/** docs/spec.md §9: the worker's class release (privacy on), reading the API's class traffic or its own. */
export async function startClassRelease(config: HushConfig, db: Db, traffic: ClassTraffic | null, log: Log, closers: Closers): Promise<void> {
  const classTraffic = traffic ?? (await startClassTraffic(config, db, log, closers));
  const loop = new ClassReleaseLoop(config, db, classTraffic, log);
  loop.start();
  closers.add(() => loop.stop());
}
