import { COMPUTE_BUDGET_PROGRAM_ADDRESS } from '@solana-program/compute-budget';
import type { WireTransaction } from './wire-transaction.ts';

export const LAMPORTS_PER_SIGNATURE = 5000n;
const DEFAULT_UNITS_PER_INSTRUCTION = 200_000n;
const MAX_UNITS = 1_400_000n;

/** What a transaction's Compute Budget instructions ask for: its unit limit (the runtime's default without one) and price. */
export function computeBudgetOf(tx: Pick<WireTransaction, 'staticKeys' | 'instructions'>): { units: bigint; microLamportsPerUnit: bigint } {
  let unitLimit: bigint | null = null;
  let microLamportsPerUnit = 0n;
  let otherInstructions = 0n;
  for (const ix of tx.instructions) {
    const program = tx.staticKeys[ix.programAddressIndex];
    const data = ix.data;
    if (program !== COMPUTE_BUDGET_PROGRAM_ADDRESS || !data || data.length === 0) {
      otherInstructions++;
      continue;
    }
    const v = new DataView(data.buffer, data.byteOffset, data.byteLength);
    if (data[0] === 2 && data.length >= 5) unitLimit = BigInt(v.getUint32(1, true));
    if (data[0] === 3 && data.length >= 9) microLamportsPerUnit = v.getBigUint64(1, true);
  }
  const units = unitLimit ?? otherInstructions * DEFAULT_UNITS_PER_INSTRUCTION;
  return { units: units > MAX_UNITS ? MAX_UNITS : units, microLamportsPerUnit };
}

/**
 * The fee the runtime charges: base fee per signature plus the priority fee from the compute-budget
 * instructions. Computed here because LiteSVM charges it but does not report it.
 */
export function transactionFee(tx: Pick<WireTransaction, 'signatureCount' | 'staticKeys' | 'instructions'>): bigint {
  const { units, microLamportsPerUnit } = computeBudgetOf(tx);
  const priority = (microLamportsPerUnit * units + 999_999n) / 1_000_000n;
  return LAMPORTS_PER_SIGNATURE * BigInt(tx.signatureCount) + priority;
}
