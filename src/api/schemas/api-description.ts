/** The document's introduction: the rules every operation shares, stated where a partner reads them. */
export const API_DESCRIPTION = `Quote, order and track private token transfers on Solana.

**Flow.** GET /transfer/v1/tokens lists the assets and their standard amounts. POST /transfer/v1/quote prices a transfer (firm until expiresAt, 60 s by default). POST /transfer/v1/order turns the unchanged quote into an order and returns an unsigned deposit transaction; the sender signs and sends it. Then poll GET /transfer/v1/status/{trackingId} (with If-None-Match) until \`final\`, or receive webhooks. POST /transfer/v1/deposit with the deposit's signature makes Hush see it at once.

**Private amounts.** A transfer is private only when its pinned amount (amountIn for exact_in, amountOut for exact_out) is one of the asset's standard amounts (\`denominations\`): its payout is then held and released together with the other payouts of the same asset and amount (its class), so nobody can link the deposit to the payout by amount or timing. The quote says so in \`privacy.standard\` and \`privacy.anonymitySet\` (the set the payout leaves with at least 4 times in 5; \`privacy.anonymitySetLikely\` is the likely one), and offers the nearest standard amounts in \`privacy.suggestedAmounts\`. The wait (\`privacy.delaySeconds\`, not exceeded 4 times in 5, then the status record's \`privacy.releaseBy\`) is what buys the privacy: minutes, not seconds.

**Amounts** are strings of decimal digits in the asset's base units (lamports for SOL; 10^-6 USDC for USDC): 25.5 USDC is "25500000". **Addresses** and **signatures** are base58. **Times** are ISO 8601 UTC with milliseconds.

**Authentication.** Every operation takes \`Authorization: Bearer hush_<keyId>_<secret>\`, a key the operator issues for your account. Your account is yours to manage: GET /transfer/v1/account shows it; POST /transfer/v1/account/keys creates another key and DELETE /transfer/v1/account/keys/{keyId} revokes one (create, deploy, revoke: a rotation without downtime); PUT /transfer/v1/account/webhook sets the webhook.

**Errors.** Every error answer is \`{"success": false, "error": {"code", "message", "details"?, "requestId"}}\`. Branch on \`code\` (each code always has the same HTTP status); \`message\` explains the fix to a developer; \`details\` is fixed per code. Each operation lists the codes it can answer, with an example of each. A 429 or 503 carries Retry-After: wait that long, then retry the same request.

**Rate limits.** Each key has a token bucket per kind of operation (tokens, quote, order, status, account) that holds twice the per-second rate and refills from empty in 2 s; every answer carries RateLimit-Limit, RateLimit-Remaining, RateLimit-Reset, RateLimit-Policy and RateLimit. Requests without a valid key draw on a bucket per client address.

**Idempotency.** Send an Idempotency-Key (or X-Idempotency-Key) with POST /transfer/v1/order and retry with the same key after a timeout: the same terms get the original answer (Idempotent-Replayed: true), other terms get IDEMPOTENCY_CONFLICT. A quote backs one order only.

**Request ids.** Every answer carries X-Request-Id (yours when you send a well-formed one); quote it to support.

**Webhooks.** Once a webhook URL is set for your account (PUT /transfer/v1/account/webhook, or by the operator), Hush posts signed events to it (see the webhooks of this document): verify the Standard Webhooks signature over the raw body and drop repeats by webhook-id.`;
