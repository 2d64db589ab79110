import {
  getBase64EncodedWireTransaction,
  getBase58Decoder,
  getSignatureFromTransaction,
  isTransactionModifyingSigner,
  isTransactionPartialSigner,
  isTransactionSendingSigner,
  partiallySignTransactionWithSigners,
  type Rpc,
  type SendTransactionApi,
  type Signature,
  type Transaction,
  type TransactionSigner,
} from '@solana/kit';
import type { HushClient, PlacedOrder } from './client.ts';
import type { StatusRecord, Token } from './types.ts';
import { DepositVerificationError, verifyDepositTransaction, type VerifyDepositOptions } from './verify-deposit.ts';

export interface SignAndSendOptions {
  /** Where a signer that only signs (a key pair, most wallets' signTransaction) has the transaction sent. */
  rpc?: Rpc<SendTransactionApi>;
  /** The source asset as GET /tokens lists it; fetched when absent. */
  asset?: Token;
  /** Overrides of the verifier's caps. */
  verify?: Pick<VerifyDepositOptions, 'maxComputeUnitLimit' | 'maxComputeUnitPriceMicroLamports'>;
}

export interface SentDeposit {
  signature: Signature;
  /** Hush's answer to the deposit hint (`pending` while the chain does not show the transaction yet). */
  hint: { pending: boolean; order: StatusRecord } | null;
}

/**
 * Verifies the order's deposit transaction (verifyDepositTransaction), then has the sender's kit
 * TransactionSigner sign it and sends it: a sending signer (a Wallet Standard wallet's signAndSend)
 * submits it itself, any other is signed here and sent through `rpc`. A signer that changes the message
 * is refused: what is signed must be what was verified. Then tells Hush the signature (the deposit hint).
 */
export async function signAndSend(client: HushClient, order: PlacedOrder, signer: TransactionSigner, opts: SignAndSendOptions = {}): Promise<SentDeposit> {
  if (signer.address !== order.terms.senderAddress) throw new DepositVerificationError('signers', `the signer ${signer.address} is not the order's sender`);
  const asset = opts.asset ?? (await client.tokens()).find((t) => t.assetId === order.quote.sourceAssetId);
  if (!asset) throw new DepositVerificationError('asset_mismatch', `Hush does not list ${order.quote.sourceAssetId}`);
  const { transaction } = await verifyDepositTransaction(order.transaction, {
    quote: order.quote,
    senderAddress: order.terms.senderAddress,
    recipientAddress: order.terms.recipientAddress,
    asset,
    ...opts.verify,
  });
  let signature: Signature;
  // A wallet that can send sends, unless it can also just sign and an rpc was given (then Hush's caller sends).
  const signsOnly = isTransactionPartialSigner(signer) || isTransactionModifyingSigner(signer);
  if (isTransactionSendingSigner(signer) && (!signsOnly || !opts.rpc)) {
    const [bytes] = await signer.signAndSendTransactions([transaction]);
    if (!bytes) throw new Error('the wallet returned no signature');
    signature = getBase58Decoder().decode(bytes) as Signature;
  } else {
    if (!opts.rpc) throw new Error('signAndSend: an rpc is needed to send with a signer that does not send');
    const signed = await partiallySignTransactionWithSigners([signer as Parameters<typeof partiallySignTransactionWithSigners>[0][number]], transaction);
    assertSameMessage(transaction, signed);
    signature = getSignatureFromTransaction(signed);
    await opts.rpc.sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }).send();
  }
  // The hint only speeds detection up (Hush watches the deposit account anyway): its failure is not the deposit's.
  const hint = await client.depositHint(order.trackingId, signature).catch(() => null);
  return { signature, hint };
}

function assertSameMessage(verified: Transaction, signed: Transaction): void {
  const a = verified.messageBytes;
  const b = signed.messageBytes;
  if (a.length !== b.length || a.some((x, i) => x !== b[i])) throw new DepositVerificationError('unexpected_instruction', 'the signer changed the transaction after it was verified');
}
