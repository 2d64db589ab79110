import type { HushConfig } from '../config/config.ts';
import { releasePolicy } from '../config/privacy-settings.ts';
import { holdMs } from '../domain/class-release.ts';
import { ClassTraffic } from '../services/class-traffic.ts';
import { ClassReleaseLoop } from '../settlement/class-release-loop.ts';
import type { Db } from '../store/db.ts';
import type { Closers } from './closers.ts';
import type { Log } from './start-log.ts';

/** The class traffic both the quotes and the class release read: one store query every few seconds. */
export async function startClassTraffic(config: HushConfig, db: Db, log: Log, closers: Closers): Promise<ClassTraffic> {
  // A rate means something once Hush has watched for a hold (or the whole window, when that is shorter).
  const minObservedS = Math.min(config.privacyTrafficWindowS, holdMs(releasePolicy(config)) / 1000);
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
