import {
  getBase64EncodedWireTransaction,
  getBase58Decoder,
  getSignatureFromTransaction,
  isTransactionModifyingSigner,
  isTransactionPartialSigner,
  isTransactionSendingSigner,
  partiallySignTransactionWithSigners,
  isSolanaError,
  SOLANA_ERROR__INSTRUCTION_ERROR__INSUFFICIENT_FUNDS,
  SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE,
  SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_RENT,
  type GetSlotApi,
  type Rpc,
  type SendTransactionApi,
  type Signature,
  type Transaction,
  type TransactionSigner,
} from '@solana/kit';
import type { HushClient, PlacedOrder } from './client.ts';
import { HushSdkError } from './errors.ts';
import { InsufficientFundsError, senderFunds, type FundsRpc } from './sender-funds.ts';
import type { StatusRecord, Token } from './types.ts';
import { DepositVerificationError, verifyDepositTransaction, type VerifyDepositOptions } from './verify-deposit.ts';

export interface SignAndSendOptions {
  /** Where a signer that only signs (a key pair, most wallets' signTransaction) has the transaction sent. */
  rpc?: Rpc<SendTransactionApi>;
  /** The source asset as GET /tokens lists it; fetched when absent. */
  asset?: Token;
  /** Overrides of the verifier's caps. */
  verify?: Pick<VerifyDepositOptions, 'maxComputeUnitLimit' | 'maxComputeUnitPriceMicroLamports'>;
  /**
   * When the transaction's blockhash is dead (past `blockhashExpiresAtSlot`, or the chain says "blockhash not
   * found"), ask Hush for a new one (hush.refresh(order)), verify and sign it, and send it, once. Off: a
   * HushSdkError `BLOCKHASH_EXPIRED` says to do so.
   */
  refreshExpired?: boolean;
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
  try {
    return await signAndSendOnce(client, order, signer, asset, opts);
  } catch (e) {
    if (!(e instanceof HushSdkError && e.code === 'BLOCKHASH_EXPIRED' && opts.refreshExpired)) throw e;
    return signAndSendOnce(client, await client.refresh(order), signer, asset, opts);
  }
}

async function signAndSendOnce(client: HushClient, order: PlacedOrder, signer: TransactionSigner, asset: Token, opts: SignAndSendOptions): Promise<SentDeposit> {
  // Known dead before anything is signed: the order says when its transaction's blockhash dies.
  const slot = await currentSlot(opts.rpc);
  if (slot !== null && slot > BigInt(order.blockhashExpiresAtSlot)) throw expired(order, slot);
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
    await opts.rpc
      .sendTransaction(getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' })
      .send()
      .catch(async (e: unknown) => {
        throw await chainRefusal(e, order, opts.rpc, asset);
      });
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

function expired(order: PlacedOrder, slot?: bigint, cause?: unknown): HushSdkError {
  const when = slot === undefined ? '' : ` (slot ${slot} is past ${order.blockhashExpiresAtSlot})`;
  return new HushSdkError('BLOCKHASH_EXPIRED', `the deposit transaction of ${order.trackingId} expired before it was sent${when}: call hush.refresh(order) and sign the new one, or pass refreshExpired: true`, { cause });
}

async function currentSlot(rpc: unknown): Promise<bigint | null> {
  const r = rpc as Partial<Rpc<GetSlotApi>> | undefined;
  if (typeof r?.getSlot !== 'function') return null;
  return r.getSlot({ commitment: 'confirmed' }).send().catch(() => null);
}

/** The chain's refusal of the deposit as the SDK's typed error, when it is one the partner can act on; else as it came. */
async function chainRefusal(e: unknown, order: PlacedOrder, rpc: unknown, asset: Token): Promise<unknown> {
  const causes: unknown[] = [];
  for (let c: unknown = e; c && causes.length < 5; c = (c as { cause?: unknown }).cause) causes.push(c);
  const has = (code: number) => causes.some((c) => isSolanaError(c, code as never));
  const text = causes.map((c) => String((c as Error)?.message ?? c)).join(' | ');
  if (has(SOLANA_ERROR__TRANSACTION_ERROR__BLOCKHASH_NOT_FOUND) || /blockhash not found/i.test(text)) return expired(order, undefined, e);
  // A sender that never held SOL has no account at all: the fee payer "not found" is the same shortfall.
  const short = [SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_FEE, SOLANA_ERROR__TRANSACTION_ERROR__INSUFFICIENT_FUNDS_FOR_RENT, SOLANA_ERROR__INSTRUCTION_ERROR__INSUFFICIENT_FUNDS, SOLANA_ERROR__TRANSACTION_ERROR__ACCOUNT_NOT_FOUND];
  if (short.some(has) || /insufficient (funds|lamports)|no record of a prior credit|AccountNotFound/i.test(text)) {
    // With a full RPC, the amounts: what the sender holds and lacks.
    const funds = await senderFunds(rpc as FundsRpc, order.terms.senderAddress, order.quote, asset).catch(() => null);
    if (funds && funds.shortfalls.length > 0) return new InsufficientFundsError(order.terms.senderAddress, funds, { cause: e });
    return new HushSdkError('INSUFFICIENT_FUNDS', `the chain refused the deposit of ${order.trackingId}: the sender ${order.terms.senderAddress} lacks funds (${order.quote.amountIn} of ${asset.assetId} plus SOL for fees and rent)`, { cause: e });
  }
  return e;
}
