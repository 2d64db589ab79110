import { HushError } from '../domain/errors.ts';
import type { Screening, ScreeningVerdict } from './screening-port.ts';

export type ScreenedField = 'senderAddress' | 'recipientAddress' | 'feeRecipientAddress';

/**
 * Where a quote-time decision is written (the screening log), with the partner account that asked (a refused
 * quote has no order to name it); absent in tests that do not look.
 */
export type QuoteDecisionSink = (field: ScreenedField, verdict: ScreeningVerdict & { result: 'blocked' }, account?: string) => void;

/**
 * docs/spec.md §12 at quote: sender, recipient and fee recipient are screened; a blocked one is 403
 * ADDRESS_BLOCKED naming the field, never the list, with one message whichever list it is on. A
 * provider that cannot answer does not refuse the quote: the deposit is screened again when it
 * confirms, where HUSH_SCREENING_ON_ERROR decides (hold or allow).
 */
export async function screenQuote(screening: Screening, parties: Partial<Record<ScreenedField, string>>, sink?: QuoteDecisionSink, account?: string): Promise<void> {
  const entries = Object.entries(parties).filter((e): e is [ScreenedField, string] => e[1] !== undefined);
  // The account pays for the risk-API calls its quote causes (HUSH_SCREENING_RATE_LIMIT): RATE_LIMITED past its budget.
  const verdict = await screening.check(entries.map(([, a]) => a), account === undefined ? undefined : { account });
  if (verdict.result !== 'blocked') return;
  const field = entries.find(([, a]) => a === verdict.address)![0];
  sink?.(field, verdict, account);
  throw new HushError('ADDRESS_BLOCKED', `${field} cannot be served`, { field });
}
