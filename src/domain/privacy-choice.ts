/**
 * The partner's privacy choice per quote (docs/spec.md §4, §9): at most one of a minimum set to wait for
 * or the most the user will wait. It travels inside the sealed quote, so the order keeps what the partner
 * chose and the release honours it per member. The operator's ceiling (HUSH_PRIVACY_MAX_WAIT_S) bounds
 * either choice: nobody is held past it.
 */

export type PrivacyChoice = { minAnonymitySet: number } | { maxDelaySeconds: number };

/** The largest set a partner may ask for: the store's release size is an integer and no class is this busy. */
export const MAX_MIN_ANONYMITY_SET = 1000;

/** Reads a choice from a stored quote's `privacy.requested`; undefined when none (or not a well-formed one). */
export function choiceOf(requested: unknown): PrivacyChoice | undefined {
  if (requested === null || typeof requested !== 'object') return undefined;
  const r = requested as Record<string, unknown>;
  if (Number.isSafeInteger(r.minAnonymitySet) && (r.minAnonymitySet as number) >= 1) return { minAnonymitySet: r.minAnonymitySet as number };
  if (Number.isSafeInteger(r.maxDelaySeconds) && (r.maxDelaySeconds as number) >= 0) return { maxDelaySeconds: r.maxDelaySeconds as number };
  return undefined;
}

/** Whether a member asked to wait: a set above one, or any wait it named. A class holding one is not held for nothing. */
export function asksToWait(choice: PrivacyChoice | undefined): boolean {
  if (choice === undefined) return false;
  return 'minAnonymitySet' in choice ? choice.minAnonymitySet > 1 : choice.maxDelaySeconds > 0;
}

/**
 * A member's delay budget, ms from its deposit's confirmation to its payout's send: the operator's budget
 * by default, the ceiling for a member waiting for a set, its own wait (within the ceiling) when it named one.
 */
export function memberBudgetMs(choice: PrivacyChoice | undefined, defaults: { budgetMs: number; ceilingMs: number }): number {
  if (choice === undefined) return defaults.budgetMs;
  if ('minAnonymitySet' in choice) return choice.minAnonymitySet > 1 ? defaults.ceilingMs : defaults.budgetMs;
  return Math.min(choice.maxDelaySeconds * 1000, defaults.ceilingMs);
}
