// Preloaded into every test process (`--import`): fast-check draws from one seed per run, so a property
// that fails in CI fails the same way here. npm test uses DEFAULT_PROPERTY_SEED; HUSH_PROPERTY_SEED
// replays another (npm run test:properties prints the one that failed). A counterexample found that way
// is kept as a fixed case in its property's `examples`, so the suite keeps it whatever the seed.
import fc from 'fast-check';

export const DEFAULT_PROPERTY_SEED = 20261125;

/** The seed of this run: HUSH_PROPERTY_SEED when set (an integer), else the default. */
export function propertySeed(env = process.env) {
  const raw = env.HUSH_PROPERTY_SEED;
  if (raw === undefined || raw === '') return DEFAULT_PROPERTY_SEED;
  const seed = Number(raw);
  if (!Number.isSafeInteger(seed)) throw new Error(`HUSH_PROPERTY_SEED must be an integer, got ${raw}`);
  return seed | 0;
}

fc.configureGlobal({ ...fc.readConfigureGlobal(), seed: propertySeed() });
