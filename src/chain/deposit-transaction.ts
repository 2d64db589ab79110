import {
  appendTransactionMessageInstructions,
  blockhash as toBlockhash,
  compileTransaction,
  createNoopSigner,
  createTransactionMessage,
  getBase64EncodedWireTransaction,
  pipe,
  setTransactionMessageFeePayer,
  setTransactionMessageLifetimeUsingBlockhash,
  type Address,
} from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { associatedTokenAddress } from './associated-token-address.ts';
import {
  findAssociatedTokenPda,
  getCreateAssociatedTokenInstruction,
  getSyncNativeInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';

export interface DepositTransactionInput {
  sender: Address;
  depositOwner: Address;
  mint: Address;
  tokenProgram: Address;
  decimals: number;
  native: boolean;
  amount: bigint;
  blockhash: string;
  lastValidBlockHeight: bigint;
  computeUnitLimit: number;
  computeUnitPriceMicroLamports: bigint;
}

export async function depositTokenAccount(depositOwner: Address, mint: Address, tokenProgram: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner: depositOwner, mint, tokenProgram });
  return ata;
}

/**
 * The one transaction the sender signs: compute budget, NON-idempotent creation of the order's one-time
 * deposit token account (so only one of an order's transactions can ever succeed), and the transfer of
 * exactly `amount` into it. Nothing else: no memo, nothing that names Hush or the recipient.
 */
export async function buildDepositTransaction(input: DepositTransactionInput): Promise<{ base64: string; depositAccount: Address }> {
  const sender = createNoopSigner(input.sender);
  const depositAccount = await depositTokenAccount(input.depositOwner, input.mint, input.tokenProgram);
  const create = getCreateAssociatedTokenInstruction({ payer: sender, ata: depositAccount, owner: input.depositOwner, mint: input.mint, tokenProgram: input.tokenProgram });
  let transfer;
  if (input.native) {
    transfer = [
      getTransferSolInstruction({ source: sender, destination: depositAccount, amount: input.amount }),
      getSyncNativeInstruction({ account: depositAccount }, { programAddress: input.tokenProgram }),
    ];
  } else {
    const source = await associatedTokenAddress(input.sender, input.mint, input.tokenProgram);
    transfer = [
      getTransferCheckedInstruction(
        { source, mint: input.mint, destination: depositAccount, authority: sender, amount: input.amount, decimals: input.decimals },
        { programAddress: input.tokenProgram },
      ),
    ];
  }
  const message = pipe(
    createTransactionMessage({ version: 0 }),
    (m) => setTransactionMessageFeePayer(input.sender, m),
    (m) => setTransactionMessageLifetimeUsingBlockhash({ blockhash: toBlockhash(input.blockhash), lastValidBlockHeight: input.lastValidBlockHeight }, m),
    (m) =>
      appendTransactionMessageInstructions(
        [
          getSetComputeUnitLimitInstruction({ units: input.computeUnitLimit }),
          getSetComputeUnitPriceInstruction({ microLamports: input.computeUnitPriceMicroLamports }),
          create,
          ...transfer,
        ],
        m,
      ),
  );
  return { base64: getBase64EncodedWireTransaction(compileTransaction(message)), depositAccount };
}
