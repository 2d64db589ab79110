import { STATUS } from '../order-state.ts';

/** A deposit account as read at one commitment (undefined: not read, or absent). */
export interface DepositBalance {
  exists: boolean;
  tokenAmount: bigint | null;
}

export type WatchedStatus = 'awaiting_deposit' | 'deposit_detected';

/**
 * confirm: the deposit is visible at `confirmed`. detect: visible at `processed` only, first seen.
 * seen: visible at `processed` only, seen before. undetect: seen before, gone now (its transaction
 * failed or rolled back). expire: no deposit can land any more. poll: nothing yet.
 */
export type DepositDecision =
  | { kind: 'confirm'; amount: bigint }
  | { kind: 'detect'; amount: bigint }
  | { kind: 'seen' }
  | { kind: 'undetect' }
  | { kind: 'expire' }
  | { kind: 'poll' };

function funded(b: DepositBalance | undefined): b is DepositBalance & { tokenAmount: bigint } {
  return !!b?.exists && (b.tokenAmount ?? 0n) > 0n;
}

/**
 * The next move of an order awaiting its deposit. `dead`: past its expiration and every blockhash issued
 * for it is dead at `finalized`.
 */
export function depositDecision(status: WatchedStatus, confirmed: DepositBalance | undefined, processed: DepositBalance | undefined, dead: boolean): DepositDecision {
  if (funded(confirmed)) return { kind: 'confirm', amount: confirmed.tokenAmount };
  if (funded(processed)) return status === STATUS.awaiting_deposit ? { kind: 'detect', amount: processed.tokenAmount } : { kind: 'seen' };
  if (status === STATUS.deposit_detected) return { kind: 'undetect' };
  return dead ? { kind: 'expire' } : { kind: 'poll' };
}


/**
 * An order's deposit: exactly what its sender's own transaction put there, never more than the account
 * holds (docs/spec.md §5, "Whose deposit"); anything else in the account is swept as late funds.
 */
export function depositAmount(sent: bigint, held: bigint): bigint {
  return sent < held ? sent : held;
}
