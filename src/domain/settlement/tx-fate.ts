/** What the chain says of a signature, as far as settling it goes (null: nowhere in history). */
export interface SignatureState {
  confirmationStatus: string | null;
  err: unknown;
  /** The slot it landed in (the releasedWith count reads it: docs/spec.md §9). */
  slot?: bigint | number;
}

/**
 * landed/failed: visible at `confirmed` or deeper (a processed one may still roll back). expired: its
 * blockhash is dead at `finalized` and it is nowhere in history, so it can never land. resend: not seen
 * and not sent for `resendEveryMs`. wait: anything else.
 */
export type TxFate = 'landed' | 'failed' | 'expired' | 'resend' | 'wait';

/** landed/failed once visible at `confirmed` or deeper (a processed one may still roll back); else null. */
export function settledFate(st: SignatureState | null | undefined): 'landed' | 'failed' | null {
  if (!st || st.confirmationStatus === 'processed') return null;
  return st.err === null ? 'landed' : 'failed';
}

export function txFate(input: {
  status: SignatureState | null | undefined;
  finalizedHeight: bigint;
  lastValidBlockHeight: bigint;
  msSinceSent: number;
  resendEveryMs: number;
}): TxFate {
  const st = input.status;
  const settled = settledFate(st);
  if (settled) return settled;
  if (st) return 'wait';
  if (input.finalizedHeight > input.lastValidBlockHeight) return 'expired';
  return input.msSinceSent > input.resendEveryMs ? 'resend' : 'wait';
}
