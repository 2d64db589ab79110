import type { ChainTx, ChainTxOf } from '../store/settlement/chain-tx.ts';
import type { Movement } from '../store/settlement/movements.ts';

/** Where a drained wallet's funds sit on the ledger: a pool's holding, or a fee payer. */
function accountOf(role: 'pool' | 'feepayer', address: string): string {
  return `${role}:${address}`;
}

/**
 * A landed drain (docs/operations.md "Rotate the treasury seed"): the retired wallet's funds moved into the
 * current seed's, wallet to wallet on the ledger. Closing a retired pool's token account returns its rent to the
 * fee payer, which the cost movement books (networkCostMovement: rent received).
 */
export function drainMovement(t: ChainTxOf<'drain'>): Movement {
  return {
    movement: `tx:${t.signature}:assets`,
    kind: 'drain',
    legs: [
      { account: accountOf(t.meta.from, t.source), assetId: t.assetId, amount: -t.amount },
      { account: accountOf(t.meta.to, t.destination), assetId: t.assetId, amount: t.amount },
    ],
  };
}

/**
 * A transaction's costs as its fee payer bore them: a retired fee payer's drain pays its lamports to the fee payer of
 * the transaction, which drainMovement books, so the fee payer's change less them is what the transaction cost.
 */
export function ownCosts<C extends { feePayer: string; feePayerDelta: bigint }>(t: ChainTx, costs: C): C {
  if (t.kind !== 'drain' || t.destination !== costs.feePayer) return costs;
  return { ...costs, feePayerDelta: costs.feePayerDelta - t.amount };
}
