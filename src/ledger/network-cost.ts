import type { Movement } from '../store/settlement/movements.ts';

/**
 * What a landed Hush transaction cost its fee payer, for the ledger: the network fee, and the rest of the
 * fee payer's lamport change as rent paid (accounts it created) or received (accounts closed to it).
 */
export function networkCostMovement(signature: string, feePayer: string, costs: { fee: bigint; feePayerDelta: bigint }): Movement {
  const rent = -costs.feePayerDelta - costs.fee;
  return {
    movement: `tx:${signature}:cost`,
    kind: 'network_cost',
    legs: [
      { account: `feepayer:${feePayer}`, assetId: 'sol', amount: costs.feePayerDelta },
      { account: 'expense:network', assetId: 'sol', amount: costs.fee },
      { account: rent >= 0n ? 'expense:rent' : 'income:rent', assetId: 'sol', amount: rent },
    ],
  };
}
