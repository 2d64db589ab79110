/**
 * What a wallet's first minutes leave on a fresh local chain, for the wallet-library conformance tests: a
 * funded sender, a SOL transfer paying a priority fee, USDC from the faucet (an associated token account
 * created with its inner instructions), and a USDC transferChecked into a new associated token account.
 */
import { generateKeyPairSigner, type Address, type KeyPairSigner, type Signature } from '@solana/kit';
import { getSetComputeUnitLimitInstruction, getSetComputeUnitPriceInstruction } from '@solana-program/compute-budget';
import { getTransferSolInstruction } from '@solana-program/system';
import { findAssociatedTokenPda, getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { buildSignedTransaction, fundedWallet, latestBlockhash, MINTS, requestTokenAirdrop, send, SOL, TOKEN_PROGRAM, waitForStatus, type LocalRpc } from './localnet.ts';

export const PRIORITY_MICRO_LAMPORTS = 12_345n;

export interface WalletHistory {
  sender: KeyPairSigner;
  recipient: KeyPairSigner;
  senderUsdc: Address;
  recipientUsdc: Address;
  /** A SOL transfer with a compute-unit limit and price. */
  solTransfer: Signature;
  /** The faucet's USDC to the sender: ATA createIdempotent (inner: createAccount, initializeAccount3, …) and mintTo. */
  tokenAirdrop: Signature;
  /** The sender's USDC transferChecked into the recipient's new associated token account. */
  tokenTransfer: Signature;
}

export async function walletHistory(rpc: LocalRpc, url: string): Promise<WalletHistory> {
  const sender = await fundedWallet(rpc, 10n * SOL);
  const recipient = await generateKeyPairSigner();
  const lifetime = await latestBlockhash(rpc);
  const sol = await buildSignedTransaction(
    sender,
    [
      getSetComputeUnitLimitInstruction({ units: 10_000 }),
      getSetComputeUnitPriceInstruction({ microLamports: PRIORITY_MICRO_LAMPORTS }),
      getTransferSolInstruction({ source: sender, destination: recipient.address, amount: SOL / 10n }),
    ],
    lifetime,
  );
  const solTransfer = await send(rpc, sol.wire);
  const tokenAirdrop = await requestTokenAirdrop(url, sender.address, MINTS.USDC, 25_000_000n);
  await waitForStatus(rpc, tokenAirdrop, 'confirmed');
  const [senderUsdc] = await findAssociatedTokenPda({ owner: sender.address, mint: MINTS.USDC, tokenProgram: TOKEN_PROGRAM });
  const [recipientUsdc] = await findAssociatedTokenPda({ owner: recipient.address, mint: MINTS.USDC, tokenProgram: TOKEN_PROGRAM });
  const token = await buildSignedTransaction(
    sender,
    [
      getCreateAssociatedTokenIdempotentInstruction({ payer: sender, owner: recipient.address, mint: MINTS.USDC, ata: recipientUsdc }),
      getTransferCheckedInstruction({ source: senderUsdc, mint: MINTS.USDC, destination: recipientUsdc, authority: sender, amount: 1_500_000n, decimals: 6 }),
    ],
    await latestBlockhash(rpc),
  );
  const tokenTransfer = await send(rpc, token.wire);
  await waitForStatus(rpc, tokenTransfer, 'confirmed');
  await waitForStatus(rpc, solTransfer, 'confirmed');
  return { sender, recipient, senderUsdc, recipientUsdc, solTransfer, tokenAirdrop, tokenTransfer };
}
