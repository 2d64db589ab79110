import type { OperationId } from '../schemas/operation-errors.ts';

/** What each partner operation does, the rules it applies and how to use it: the reference's own words. */
export const DESCRIPTIONS: Record<OperationId, string> = {
  listTokens:
    'Every asset Hush moves, with its limits (min, max: what Hush can pay out now) and its standard amounts (denominations). Only a transfer of a standard amount is private: offer those amounts in your UI. The list changes only with the operator\'s configuration; cache it for minutes.',
  createQuote:
    'Prices a transfer of `amount` (base units, digits only) from sourceAssetId to destinationAssetId: what the sender pays (amountIn), what the recipient gets (amountOut), every fee, the expected time (duration) and the privacy it will have (privacy). The quote is firm until expiresAt: create the order from it, unchanged, before then. A quote with privacy.standard false is not private: privacy.suggestedAmounts lists the nearest amounts that are. Addresses must be ordinary wallets (not programs, token accounts or Hush\'s own). A partner fee needs feeBps up to your cap and a registered feeRecipientAddress.',
  createOrder:
    'Turns a quote into an order: send the quote object exactly as received and the same terms (senderAddress, recipientAddress, feeBps, feeRecipientAddress); any difference is QUOTE_MISMATCH. The answer holds the unsigned deposit transaction: the sender signs it as it is and sends it before blockhashExpiresAtSlot (then refresh it). Send an Idempotency-Key and retry with it after a timeout: the same terms get the original answer. Each quote backs one order. An account can have a limited number of orders awaiting a deposit (TOO_MANY_OPEN_ORDERS).',
  refreshOrder:
    "A new unsigned deposit transaction for an order still awaiting its deposit, when the first one's blockhash expired (past blockhashExpiresAtSlot) before it landed. Same order, same amounts, same deposit account. Sign and send only one of them.",
  getStatus:
    "The order's status record. Poll it until `final` is true (every few seconds; send the ETag back in If-None-Match to get a 304 without a body while nothing changed), or receive the order.status_changed webhook instead. While the payout of a private amount waits for its class, privacy.releaseBy says until when at the latest. Another account's trackingId is answered NOT_FOUND, like one that does not exist.",
  findOrderByQuote:
    "The status record of the order created from this quote (pass quote.quoteId), for a partner that lost the trackingId, e.g. when POST /order timed out and no Idempotency-Key was kept. Only your own account's orders; NOT_FOUND when no order was created from it (the quote can still be used while it has not expired). POST /order with a used quote answers QUOTE_ALREADY_USED with details.trackingId as well.",
  getReceipt:
    "The order's disclosure receipt, once it is final: a document stating its deposit and payout (or refund) transactions, amounts, assets, times and what screening found, signed with Ed25519 by a receipt key of Hush's own (never a key that moves funds). Your user can hand it to a bank or an auditor to prove where the funds came from; it reveals the deposit↔payout link to that reader only. Verify it with the SDK's verifyReceipt and the keys of GET /transfer/v1/receipt-keys. RECEIPT_NOT_READY while the order is not final, and for the seconds after it becomes final while the receipt is signed; another account's trackingId is NOT_FOUND.",
  listReceiptKeys:
    'The public keys disclosure receipts are signed with (base58 Ed25519), newest first. Keys are never withdrawn: a receipt signed before a rotation still verifies. Give them to whoever verifies a receipt, with the receipt.',
  sendDepositHint:
    "Tells Hush which transaction is the order's deposit, so it is seen at once instead of at the next scan of the deposit account. Optional: Hush finds the deposit without it. Hush checks the transaction on chain: it must be signed by the order's sender and fund the order's deposit account. 200: confirmed and matching; 202: not visible at confirmed yet, Hush keeps watching.",
  sendTestWebhook:
    "Sends one webhook.test event, signed like every event, to your account's webhook URL now, and answers whether it was delivered (2xx), refused (the URL's address is not one webhooks may reach) or failed. The event is neither stored nor retried. NOT_FOUND when the account has no webhook.",
};
