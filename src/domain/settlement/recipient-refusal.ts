/**
 * When a payout's recipient, not Hush, makes the chain refuse it (docs/spec.md §10): then the sender is
 * refunded instead of the payout being rebuilt for ever. Pure: reads the RPC's JSON errors of the
 * payout's failed attempts.
 */

/**
 * Only the credited account can cause these in a Hush payout, whose other writable accounts are Hush's
 * ordinary wallets: the runtime makes reserved accounts (sysvars, builtins) read-only in every
 * transaction, and an executable account's balance and data cannot change.
 */
const RECIPIENT_ONLY: ReadonlySet<string> = new Set(['ReadonlyLamportChange', 'ReadonlyDataModified', 'ExecutableLamportChange', 'ExecutableDataModified', 'ExecutableModified']);

/**
 * Hush's side, never held against a recipient however often it repeats: a pool or the fee payer short
 * (Custom 1 is the token program's InsufficientFunds and the system program's ResultWithNegativeLamports),
 * the compute budget, a signature.
 */
const HUSH_SIDE: ReadonlySet<string> = new Set(['InsufficientFunds', 'Custom:1', 'ComputationalBudgetExceeded', 'MissingRequiredSignature', 'ProgramFailedToComplete']);

/** Identical failures in a row, on an instruction that credits the recipient, that refund the sender. */
export const REFUSALS_BEFORE_REFUND = 3;

export interface InstructionFailure {
  index: number;
  /** The error's name, `Custom:<code>` for a program's own code. */
  kind: string;
}

/** `{"InstructionError":[2,"ReadonlyLamportChange"]}` → {index 2, kind}; null for anything else (a transaction-level error). */
export function instructionFailure(err: unknown): InstructionFailure | null {
  if (!err || typeof err !== 'object' || !('InstructionError' in err)) return null;
  const pair = (err as { InstructionError: unknown }).InstructionError;
  if (!Array.isArray(pair) || pair.length !== 2) return null;
  const [index, inner] = pair as [unknown, unknown];
  const kind =
    typeof inner === 'string'
      ? inner
      : inner && typeof inner === 'object' && 'Custom' in inner
        ? `Custom:${String((inner as { Custom: unknown }).Custom)}`
        : JSON.stringify(inner, (_, v: unknown) => (typeof v === 'bigint' ? Number(v) : v));
  return { index: Number(index), kind };
}

/**
 * The failed attempts' errors (oldest first) say the recipient refuses the payout: an error only it can
 * cause, at once; or the same error on the same instruction REFUSALS_BEFORE_REFUND times in a row, on an
 * instruction that credits it (from `firstRecipientInstruction`: the ones before set the compute budget)
 * and not one of Hush's own failures.
 */
export function recipientRefused(errors: readonly unknown[], firstRecipientInstruction: number): boolean {
  const failures = errors.map(instructionFailure).map((f) => (f && f.index >= firstRecipientInstruction ? f : null));
  if (failures.some((f) => f !== null && RECIPIENT_ONLY.has(f.kind))) return true;
  const last = failures.slice(-REFUSALS_BEFORE_REFUND);
  const first = last[0];
  return last.length === REFUSALS_BEFORE_REFUND && !!first && !HUSH_SIDE.has(first.kind) && last.every((f) => f !== null && f.kind === first.kind && f.index === first.index);
}
