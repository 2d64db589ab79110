import { ConfigError } from './config-error.ts';
import { DENOMINATION_MENUS, type DenominationMenu } from '../domain/denomination-menu.ts';
import { memberHoldMs, type ReleasePolicy } from '../domain/class-release.ts';
import type { PrivacyChoice } from '../domain/privacy-choice.ts';
import { minGapMs } from '../domain/settlement/payout-delay.ts';

/** The class release's settings (docs/spec.md §9, §11), parsed once. */
export interface PrivacySettings {
  /** HUSH_PAYOUT_DELAY_S: a release's spread, from its decision; never starting at 0 (docs/spec.md §9). */
  payoutDelayS: { min: number; max: number };
  /** A class's traffic rate, for the quote's privacy estimate, is its deposits over this window. */
  privacyTrafficWindowS: number;
  /** HUSH_DENOMINATIONS: the menu of private amounts. */
  denominationMenu: DenominationMenu;
  /** HUSH_PRIVACY_TARGET_SET: the release size Hush steers each class to. */
  privacyTargetSet: number;
  /** HUSH_PRIVACY_K: a fixed k instead of the steered target; undefined when unset. */
  privacyK?: number;
  /** HUSH_PRIVACY_MAX_DELAY_S: the delay budget, from deposit confirmation to the payout's send, seconds. */
  privacyMaxDelayS: number;
  /** HUSH_PRIVACY_MAX_WAIT_S: the most any order is held, whatever its partner chose, seconds. */
  privacyMaxWaitS: number;
}

/** How often the class release looks at the waiting classes: a class that fills goes within about this long. */
const RELEASE_PASS_EVERY_MS = 1000;

/** A release of exactly 20 cannot link fewer than 5 %; 30 met every target at λ = 1 and 0.2 (docs/privacy.md). */
const DEFAULT_TARGET_SET = 30;

function integer(env: NodeJS.ProcessEnv, name: string, min: number, max: number): number | undefined {
  const raw = env[name];
  if (raw === undefined || raw === '') return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < min || n > max) throw new ConfigError(`${name} must be an integer in ${min}..${max}, got "${raw}"`);
  return n;
}

const MAX_PAYOUT_DELAY_S = 86_400;

/** Whole or decimal seconds (decimals let a time-compressed bench run scale them with its slots). */
function seconds(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number, max: number): number {
  const raw = env[name];
  if (raw === undefined || raw === '') return fallback;
  const v = /^\d+(?:\.\d{1,3})?$/.test(raw) ? Number(raw) : NaN;
  if (!(v >= min && v <= max)) throw new ConfigError(`${name} must be seconds between ${min} and ${max}, got "${raw}"`);
  return v;
}

function delayWindow(raw: string | undefined): { min: number; max: number } {
  // Decimals (to the millisecond) let a time-compressed run (bench:privacy) scale the window with its slots.
  const m = /^(\d+(?:\.\d{1,3})?)-(\d+(?:\.\d{1,3})?)$/.exec(raw || '5-30');
  if (!m) throw new ConfigError(`HUSH_PAYOUT_DELAY_S must look like "min-max" in seconds (e.g. 5-30 or 0.5-4), got "${raw}"`);
  const min = Number(m[1]);
  const max = Number(m[2]);
  if (min > max) throw new ConfigError('HUSH_PAYOUT_DELAY_S: min must not exceed max');
  // A privacy delay is minutes; a day or more is a typo, and it would hold funds past any order deadline.
  if (max > MAX_PAYOUT_DELAY_S) throw new ConfigError(`HUSH_PAYOUT_DELAY_S: max must be at most ${MAX_PAYOUT_DELAY_S} s, got ${max}`);
  return { min, max };
}

/**
 * docs/spec.md §9: there is one settlement path, with privacy. HUSH_PRIVACY may still say `on`; `off` is
 * refused by name, so a deployment that set it learns at start that it is gone rather than running with
 * a setting that no longer means anything.
 */
function checkPrivacyOn(raw: string | undefined): void {
  if (raw === undefined || raw === '' || raw === 'on') return;
  throw new ConfigError(`HUSH_PRIVACY=${raw}: privacy cannot be switched off (docs/spec.md §9: one settlement path); unset it`);
}

/** A payout with no wait is linked by its timing alone (bench:privacy's self-check): the spread never starts at 0. */
function checkDelayAllowed(delay: { min: number; max: number }): void {
  if (delay.min === 0) {
    throw new ConfigError('HUSH_PAYOUT_DELAY_S with a minimum of 0 lets a payout follow its release decision at once; its minimum must be above 0 (e.g. 0.2)');
  }
}

/**
 * Reads the spread, the menu, the target and the budget. The budget bounds the whole hold, the release's spread
 * included, so it must leave room for the spread (HUSH_PAYOUT_DELAY_S's max) and two release passes (docs/spec.md §9).
 */
export function privacySettings(env: NodeJS.ProcessEnv): PrivacySettings {
  checkPrivacyOn(env.HUSH_PRIVACY);
  const spreadS = delayWindow(env.HUSH_PAYOUT_DELAY_S);
  checkDelayAllowed(spreadS);
  const menu = env.HUSH_DENOMINATIONS || 'decade';
  if (!DENOMINATION_MENUS.includes(menu as DenominationMenu)) {
    throw new ConfigError(`HUSH_DENOMINATIONS must be ${DENOMINATION_MENUS.join(', ')} (list: each asset's "denominations" in the asset file), got "${menu}"`);
  }
  const budget = seconds(env, 'HUSH_PRIVACY_MAX_DELAY_S', 840, 1, MAX_PAYOUT_DELAY_S);
  const room = spreadS.max + (2 * RELEASE_PASS_EVERY_MS) / 1000;
  if (budget <= room) {
    throw new ConfigError(`HUSH_PRIVACY_MAX_DELAY_S (${budget} s) must exceed HUSH_PAYOUT_DELAY_S's max plus two seconds (${room} s): the budget includes the release's spread`);
  }
  const k = integer(env, 'HUSH_PRIVACY_K', 1, 1000);
  const ceiling = seconds(env, 'HUSH_PRIVACY_MAX_WAIT_S', 21_600, 1, MAX_PAYOUT_DELAY_S);
  if (ceiling < budget) {
    throw new ConfigError(`HUSH_PRIVACY_MAX_WAIT_S (${ceiling} s) must be at least HUSH_PRIVACY_MAX_DELAY_S (${budget} s): it is the ceiling of every hold, the default one included`);
  }
  return {
    payoutDelayS: spreadS,
    privacyTrafficWindowS: seconds(env, 'HUSH_PRIVACY_TRAFFIC_WINDOW_S', 3600, 1, MAX_PAYOUT_DELAY_S),
    denominationMenu: menu as DenominationMenu,
    privacyTargetSet: integer(env, 'HUSH_PRIVACY_TARGET_SET', 1, 1000) ?? DEFAULT_TARGET_SET,
    ...(k !== undefined ? { privacyK: k } : {}),
    privacyMaxDelayS: budget,
    privacyMaxWaitS: ceiling,
  };
}

/** The release policy the worker applies and the quote describes. */
export function releasePolicy(c: PrivacySettings & { payoutDelayS: { min: number; max: number }; slotMs: number }): ReleasePolicy {
  const { min, max } = c.payoutDelayS;
  return {
    targetSet: c.privacyK ?? c.privacyTargetSet,
    fixedK: c.privacyK !== undefined,
    budgetMs: Math.round(c.privacyMaxDelayS * 1000),
    ceilingMs: Math.round(c.privacyMaxWaitS * 1000),
    spreadFromMs: Math.round(min * 1000),
    spreadMs: Math.round((max - min) * 1000),
    minGapMs: minGapMs(c.slotMs),
    passEveryMs: RELEASE_PASS_EVERY_MS,
  };
}

/**
 * The settings a payout's due time is drawn with at its deposit's confirmation (payoutDueFor). A standard
 * payout's own due time is one pass after its class's latest release decision, so a class release running
 * on time decides first (and the order learns its release size); it still ends within the budget. Passes
 * late by more than that (a loaded machine) let it go at this time: then startPayouts stamps it a release
 * of its own.
 */
export function duePolicy(c: PrivacySettings & { payoutDelayS: { min: number; max: number }; slotMs: number }) {
  const policy = releasePolicy(c);
  return { delayS: c.payoutDelayS, holdMs: (choice: PrivacyChoice | undefined) => memberHoldMs(choice, policy) + policy.passEveryMs, slotMs: c.slotMs };
}
