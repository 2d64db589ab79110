import { ConfigError } from './config-error.ts';
import { DENOMINATION_MENUS, type DenominationMenu } from '../domain/denomination-menu.ts';
import { memberHoldMs, type ReleasePolicy } from '../domain/class-release.ts';
import type { PrivacyChoice } from '../domain/privacy-choice.ts';
import { minGapMs } from '../domain/settlement/payout-delay.ts';

/** The class release's settings (docs/spec.md §9, §11), parsed once. */
export interface PrivacySettings {
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

/**
 * Reads the menu, the target and the budget. The budget bounds the whole hold, the release's spread
 * included, so it must leave room for the spread (HUSH_PAYOUT_DELAY_S's max) and two release passes (docs/spec.md §9).
 */
export function privacySettings(env: NodeJS.ProcessEnv, spreadS: { min: number; max: number }, seconds: (name: string, fallback: number) => number): PrivacySettings {
  const menu = env.HUSH_DENOMINATIONS || 'decade';
  if (!DENOMINATION_MENUS.includes(menu as DenominationMenu)) {
    throw new ConfigError(`HUSH_DENOMINATIONS must be ${DENOMINATION_MENUS.join(', ')} (list: each asset's "denominations" in the asset file), got "${menu}"`);
  }
  const budget = seconds('HUSH_PRIVACY_MAX_DELAY_S', 840);
  const room = spreadS.max + (2 * RELEASE_PASS_EVERY_MS) / 1000;
  if (env.HUSH_PRIVACY !== 'off' && budget <= room) {
    throw new ConfigError(`HUSH_PRIVACY_MAX_DELAY_S (${budget} s) must exceed HUSH_PAYOUT_DELAY_S's max plus two seconds (${room} s): the budget includes the release's spread`);
  }
  const k = integer(env, 'HUSH_PRIVACY_K', 1, 1000);
  const ceiling = seconds('HUSH_PRIVACY_MAX_WAIT_S', 21_600);
  if (env.HUSH_PRIVACY !== 'off' && ceiling < budget) {
    throw new ConfigError(`HUSH_PRIVACY_MAX_WAIT_S (${ceiling} s) must be at least HUSH_PRIVACY_MAX_DELAY_S (${budget} s): it is the ceiling of every hold, the default one included`);
  }
  return {
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
 * payout's own due time is one pass after its class's latest release decision, so a running class
 * release always decides first (and the order learns its release size); it still ends within the budget.
 */
export function duePolicy(c: PrivacySettings & { privacy: 'on' | 'off'; payoutDelayS: { min: number; max: number }; slotMs: number }) {
  const policy = releasePolicy(c);
  return { privacy: c.privacy, delayS: c.payoutDelayS, holdMs: (choice: PrivacyChoice | undefined) => memberHoldMs(choice, policy) + policy.passEveryMs, slotMs: c.slotMs };
}
