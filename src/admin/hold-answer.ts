import { HushError } from '../domain/errors.ts';
import type { Queryable } from '../store/db.ts';
import type { HoldAction } from '../store/holds/resolve-hold.ts';
import type { Screening } from '../screening/screening-port.ts';
import { MAX_ID } from './query-words.ts';

/** What an operator's answer to a hold carries (docs/spec.md §12), whichever kind of hold it answers. */
export const HOLD_ACTIONS: readonly HoldAction[] = ['release', 'refund', 'freeze'];
const MAX_NOTE = 500;

/** A resolution's extras: who approved it (four eyes), and what else must commit with it (the approval's own compare-and-set). */
export interface ResolveOptions {
  approvedBy?: string;
  /** Runs in the resolution's transaction after its transition; false rolls the resolution back. */
  inTx?: (tx: Queryable) => Promise<boolean>;
}

/** The action checked and the note trimmed: what every resolution and every proposal of one needs. */
export function holdNote(action: HoldAction, note: unknown): string {
  if (!HOLD_ACTIONS.includes(action)) throw new HushError('INVALID_REQUEST', 'action must be release, refund or freeze', { field: 'action' });
  const text = typeof note === 'string' ? note.trim() : '';
  if (text === '' || text.length > MAX_NOTE) throw new HushError('INVALID_REQUEST', `note is required (1–${MAX_NOTE} characters): say why`, { field: 'note' });
  // PostgreSQL text cannot hold a NUL: refused here, not a store error (a 500).
  if (text.includes('\u0000')) throw new HushError('INVALID_REQUEST', 'note must not hold a NUL character', { field: 'note' });
  return text;
}


/** A hold's or a proposal's id as the store keys it (a PostgreSQL bigint); anything else names nothing: NOT_FOUND, never a store error. */
export function storeId(id: string, what: string): string {
  if (!/^[1-9][0-9]{0,18}$/.test(id) || BigInt(id) > MAX_ID) throw new HushError('NOT_FOUND', `No ${what} ${id.slice(0, 20)}`);
  return id;
}

/**
 * A refund never goes to a blocked sender, and under HUSH_SCREENING_ON_ERROR=hold not to one that cannot be
 * screened (issue 49): checked when a refund is answered or proposed, and again when it is carried out.
 */
export async function assertRefundable(screening: Screening, sender: string, otherwise: string): Promise<void> {
  const [v] = await screening.checkEach([sender]);
  if (v?.result === 'blocked') throw new HushError('ADDRESS_BLOCKED', `The sender is blocked: a refund cannot go to it; ${otherwise}`, { field: 'senderAddress' });
  // The operator asks again once the provider answers, or freezes.
  if (v?.result === 'error' && screening.describe().onError === 'hold') throw new HushError('SERVICE_UNAVAILABLE', `The sender could not be screened (${v.reason}): no refund until it is; retry, or freeze the funds`);
}
