import type { Address, Instruction, KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCloseAccountInstruction, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import type { Asset } from '../config/assets.ts';
import { associatedTokenAddress } from '../domain/associated-token-address.ts';
import { signShaped, type SignedTransaction, type TxShape } from './hush-transactions.ts';

/** What one drain moves: everything a retired wallet holds, into the current seed's wallet of the same role. */
export type DrainParams =
  /** A retired fee payer's or SOL pool's lamports, all of them (a system account may go to zero). */
  | { kind: 'lamports'; from: KeyPairSigner; to: Address; amount: bigint }
  /** A retired token pool: its balance to the new pool's token account (made if missing), its own account closed. */
  | { kind: 'token'; asset: Asset; owner: KeyPairSigner; account: Address; to: Address; amount: bigint };

/**
 * A retired wallet drained into the current seed's (docs/operations.md "Rotate the treasury seed"), the current fee
 * payer paying. A token account's rent goes to the fee payer with its close: nothing of the retired seed is left on
 * chain to strand.
 */
export function buildDrain(shape: TxShape, d: DrainParams): Promise<SignedTransaction> {
  return signShaped(shape, drainInstructions(shape, d));
}

function drainInstructions(shape: TxShape, d: DrainParams): Instruction[] {
  if (d.kind === 'lamports') return [getTransferSolInstruction({ source: d.from, destination: d.to, amount: d.amount })];
  const { mint, tokenProgram } = d.asset;
  const moves: Instruction[] = [];
  if (d.amount > 0n) {
    const ata = associatedTokenAddress(d.to, mint, tokenProgram);
    moves.push(
      getCreateAssociatedTokenIdempotentInstruction({ payer: shape.feePayer, ata, owner: d.to, mint, tokenProgram }),
      getTransferCheckedInstruction({ source: d.account, mint, destination: ata, authority: d.owner, amount: d.amount, decimals: d.asset.decimals }, { programAddress: tokenProgram }),
    );
  }
  moves.push(getCloseAccountInstruction({ account: d.account, destination: shape.feePayer.address, owner: d.owner }, { programAddress: tokenProgram }));
  return moves;
}
