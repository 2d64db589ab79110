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
    'The public keys disclosure receipts are signed with (base58 Ed25519), newest first. Keys are never withdrawn: a receipt signed before a rotation still verifies. Give them to whoever verifies a receipt, with the receipt. Public: it answers without an API key too (from the anonymous rate limit of the caller\'s address), so the receipt-check page at /receipt-check can fetch them in the reader\'s browser.',
  sendDepositHint:
    "Tells Hush which transaction is the order's deposit, so it is seen at once instead of at the next scan of the deposit account. Optional: Hush finds the deposit without it. Hush checks the transaction on chain: it must be signed by the order's sender and fund the order's deposit account. 200: confirmed and matching; 202: not visible at confirmed yet, Hush keeps watching.",
  sendTestWebhook:
    "Sends one webhook.test event, signed like every event, to your account's webhook URL now, and answers whether it was delivered (2xx), refused (the URL's address is not one webhooks may reach) or failed. The event is neither stored nor retried. NOT_FOUND when the account has no webhook.",
  getAccount:
    "The account of the key making the request, as it is now: its name, fee cap and registered fee recipients (the operator sets those), its webhook URL (never the secret; while a replaced secret still signs, until when), its keys (never a secret: when each was created, expires and was revoked, which are active, and which one is making this request) and its per-key rates. Every /account operation draws on the key's small account bucket: these are rare operations.",
  setWebhook:
    "Points the account's webhook at `url` and issues a new signing secret, answered this once: store it before anything else. Events from now on (and any still undelivered) go to the new URL. The replaced secret, if any, keeps signing every event beside the new one for 24 h (two v1 signatures in webhook-signature), so a receiver switches without missing one. The URL must be https, without credentials, at most 2048 characters; an address webhooks may not reach (private, loopback, link-local, cloud metadata, reserved) is WEBHOOK_URL_REFUSED. A host name is checked again at every delivery, on every address it resolves to. Check the receiver with POST /transfer/v1/webhooks/test.",
  clearWebhook:
    'Removes the webhook and its secrets: no more events are posted, and events not delivered yet are given up. Setting one again issues a new secret. Answers the same when there was none.',
  rotateWebhookSecret:
    "A new signing secret for the account's webhook, answered this once; the URL stays. The replaced secret keeps signing beside it for 24 h (previousSecretExpiresAt), so deploy the new one to the receiver within that time. Only the secret replaced last signs beside the current one: rotating again within 24 h ends the older one at once. NOT_FOUND when the account has no webhook.",
  createApiKey:
    'A new API key for this account, active at once, its full value (apiKey) answered this once: only a hash of its secret is kept. To rotate a key: create the new one, deploy it, then revoke the old one. expiresInSeconds makes it stop by itself. An account has at most 10 active keys (TOO_MANY_KEYS); revoked and expired keys beyond the 20 newest are deleted when a key is created.',
  revokeApiKey:
    "Revokes one of this account's keys: it stops authenticating at once on the server that answered, and on every server within 5 s. The key making the request may revoke itself (key.current is then true, and this is its last answer). The account's last active key is never revoked (LAST_ACTIVE_KEY): create another first, or ask the operator. Another account's key id is NOT_FOUND, as an unknown one. Revoking a revoked key answers it unchanged.",
};
