import type { HoldAction } from '../store/holds/resolve-hold.ts';

/** A finding as four eyes weighs it: what was found, in which field. */
export interface WeighedFinding {
  result: string;
  field: string | null;
  reason: string | null;
}

/**
 * A finding from a sanctions list: a screening list's listing (`listed`, `listed (SDN entry N)`: the operator's
 * lists are sanctions lists), or a provider's category that names sanctions (`sanctions`, `OFAC`, `SDN`). An
 * unanswered check, or a provider's other categories (mixers, scams), are not.
 */
export function isSanctionsFinding(f: { result: string; reason: string | null }): boolean {
  return f.result === 'blocked' && (/^listed\b/.test(f.reason ?? '') || /sanction|\bofac\b|\bsdn\b/i.test(f.reason ?? ''));
}

/** Where funds came from: a listing here means the funds themselves are a listed party's. */
const SOURCE_FIELDS = new Set(['senderAddress', 'depositPayer', 'lateFundsPayer']);

/**
 * docs/spec.md §12 "Four eyes": a freeze (final: the funds are kept), a release of a sanctions-list finding
 * (funds move on past a listing), and a refund of funds whose source is listed (a listed payer's money sent on,
 * back to a sender who is not listed, is money moved past a listing too) take a second operator's approval. A
 * refund when the listing is the recipient's (the funds go back where they came from), and any answer to another
 * finding, are one operator's decision.
 */
export function needsFourEyes(action: HoldAction, findings: readonly WeighedFinding[]): boolean {
  if (action === 'freeze') return true;
  if (action === 'release') return findings.some(isSanctionsFinding);
  return findings.some((f) => isSanctionsFinding(f) && SOURCE_FIELDS.has(f.field ?? ''));
}
