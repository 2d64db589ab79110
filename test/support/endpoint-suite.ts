/** What the endpoint suites share: the fields each answer has, and one listening Hush with an account. */
import type { Address } from '@solana/kit';
import { startTestHush, type TestAccount, type TestHush } from './hush-server.ts';

export const WSOL_MINT = 'So11111111111111111111111111111111111111112' as Address;
export const MEMO_PROGRAMS = ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo'];
export const AMOUNT = /^(0|[1-9][0-9]*)$/;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
export const QUOTE_FIELDS = ['amountIn', 'amountOut', 'destinationAssetId', 'duration', 'expiresAt', 'fee', 'feeBreakdown', 'issuedAt', 'max', 'min', 'mode', 'networkFee', 'privacy', 'protocolFee', 'quoteId', 'sourceAssetId'];
export const ORDER_FIELDS = ['amountIn', 'amountOut', 'blockhashExpiresAtSlot', 'destinationSymbol', 'eta', 'expiration', 'lastValidBlockHeight', 'sourceSymbol', 'trackingId', 'transaction', 'transactionEncoding'];
export const STATUS_FIELDS = ['amountIn', 'amountOut', 'createdAt', 'deposit', 'destinationAssetId', 'expiration', 'failureReason', 'final', 'history', 'payouts', 'privacy', 'refund', 'sourceAssetId', 'status', 'trackingId', 'updatedAt'];
export const ORDER_TTL_S = 1800;
/** Where an order can be once its deposit is confirmed (the settlement worker runs alongside the API). */
export const AFTER_DEPOSIT = ['deposit_confirmed', 'sending', 'completed'];

/** 200 ms slots: a blockhash lives ~30 s, long enough to hold an original and a refreshed transaction. */
export async function startEndpointSuite(): Promise<{ t: TestHush; acct: TestAccount }> {
  const t = await startTestHush({ env: { LOCALNET_SLOT_MS: '200', HUSH_ORDER_TTL_S: String(ORDER_TTL_S) } });
  return { t, acct: await t.createAccount({ feeRecipients: 2 }) };
}
