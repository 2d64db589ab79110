import type { HoldAction } from '../store/holds/resolve-hold.ts';

/**
 * A finding from a sanctions list: a screening list's listing (`listed`, `listed (SDN entry N)`: the operator's
 * lists are sanctions lists), or a provider's category that names sanctions. An unanswered check, or a provider's
 * other categories (mixers, scams), are not.
 */
export function isSanctionsFinding(f: { result: string; reason: string | null }): boolean {
  return f.result === 'blocked' && (/^listed\b/.test(f.reason ?? '') || /sanction/i.test(f.reason ?? ''));
}

/**
 * docs/spec.md §12 "Four eyes": a freeze (final: the funds are kept) and a release of a sanctions-list finding
 * (funds move on past a listing) take a second operator's approval; a refund, and a release of any other finding,
 * one operator's decision.
 */
export function needsFourEyes(action: HoldAction, findings: readonly { result: string; reason: string | null }[]): boolean {
  if (action === 'freeze') return true;
  return action === 'release' && findings.some(isSanctionsFinding);
}
