export { createHushClient, waitProgress, type HushClient, type HushClientOptions, type PlacedOrder, type StatusResult, type WaitOptions, type WaitProgress } from './client.ts';
export { HushApiError, HushSdkError, HushTransportError } from './errors.ts';
export {
  DEFAULT_MAX_COMPUTE_UNIT_LIMIT,
  DEFAULT_MAX_COMPUTE_UNIT_PRICE,
  DEPOSIT_RECORD_LENGTH,
  DepositVerificationError,
  MEMO_PROGRAM_ADDRESS,
  verifyDepositTransaction,
  type DepositRefusal,
  type VerifiedDeposit,
  type VerifyDepositOptions,
} from './verify-deposit.ts';
export { heldFor, statusDetail } from './status-detail.ts';
export { assertSenderCanPay, senderFunds, InsufficientFundsError, BASE_FEE_LAMPORTS, MAX_PRIORITY_FEE_LAMPORTS, type FundsRpc, type SenderFunds } from './sender-funds.ts';
export { describePrivacy, privateAmountsNearby, type PrivateAmountOption } from './private-amounts.ts';
export { signAndSend, type SentDeposit, type SignAndSendOptions } from './sign-and-send.ts';
export type { Account, ApiKeyInfo, CreatedApiKey, ErrorCode, Order, OrderRequest, OrderStatus, OrderTerms, Quote, QuoteRequest, Receipt, ReceiptKey, StatusRecord, Token, WebhookSecret } from './types.ts';
export { checkReceipt, verifyReceipt, type ReceiptCheck, type ReceiptCheckId, type ReceiptCheckResult, type ReceiptReport } from './receipts.ts';
export type { paths, components, operations } from './generated/openapi.ts';
export { verifyWebhook, HushWebhookError, type HushWebhookEvent, type OrderEventData, type ReleasedStatusRecord } from './webhooks.ts';
