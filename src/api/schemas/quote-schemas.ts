import { Type } from 'typebox';
import { quoteExample, quotePatientExample, quoteRequestExample, quoteRequestPatientExample, tokenExample } from '../examples.ts';
import { QUOTE_ID_PATTERN, address, amount, assetId, requestAmount, success, timestamp } from './fields.ts';

/** The wire shapes of the tokens list and of quoting. */

const MODE =
  'exact_in: amount is what the sender pays, fees come out of it; exact_out: amount is what the recipient gets, fees come on top. Swaps (source ≠ destination asset) are exact_in only';
const mode = (description = MODE) => Type.Union([Type.Literal('exact_in'), Type.Literal('exact_out')], { title: 'Mode', description });

const Token = Type.Object(
  {
    assetId: Type.String({ description: 'The id requests name this asset by' }),
    symbol: Type.String({ description: 'Ticker, e.g. USDC' }),
    name: Type.String({ description: 'Display name' }),
    decimals: Type.Integer({ description: 'Decimal places of one unit: an amount of 1 unit is 10^decimals base units' }),
    mint: Type.String({ description: 'SPL mint address (wrapped SOL for SOL)' }),
    tokenProgram: Type.String({ description: 'The token program of the mint (SPL Token or Token-2022)' }),
    native: Type.Boolean({ description: 'SOL itself: sent and paid as lamports, not as a token account balance' }),
    swappable: Type.Boolean({ description: 'Can be the destination of a swap from another asset' }),
    min: amount('The smallest amount a quote takes'),
    max: amount('The largest amount a quote takes now: what Hush can pay out, rounded down to two significant digits'),
    denominations: Type.Array(amount('A standard amount'), {
      description:
        'The standard (private) amounts: a transfer whose pinned amount (amountIn for exact_in, amountOut for exact_out) is one of them takes the private path: its payout is held with the others of the same amount and released with them, so it cannot be told apart from them. Offer these in a UI',
    }),
    swapGrid: Type.String({ pattern: '^[1-9][0-9]*$', description: 'Swap payouts into this asset are rounded down to a multiple of this many base units' }),
  },
  { title: 'Token', description: 'An asset Hush moves, with its limits and standard amounts', examples: [tokenExample] },
);

export const TokensResponse = Type.Object(
  { success: success(true), tokens: Type.Array(Token, { description: 'Every asset Hush moves' }) },
  { title: 'TokenList', description: 'The assets usable as source and destination', examples: [{ success: true, tokens: [tokenExample] }] },
);

const MIN_SET = Type.Object(
  {
    minAnonymitySet: Type.Integer({
      minimum: 1,
      maximum: 1000,
      description: 'Hold the payout until it is released together with at least this many of its class (itself included), for at most HUSH_PRIVACY_MAX_WAIT_S (default 6 h). A class whose traffic cannot bring the set within that is not held for it: it goes together when the hold of its oldest member runs out, with every member whose set is out of reach (the quote says what to expect)',
    }),
  },
  { additionalProperties: false, title: 'PrivacyMinSet', description: 'Wait for a set of at least this many' },
);
const MAX_DELAY = Type.Object(
  {
    maxDelaySeconds: Type.Integer({
      minimum: 0,
      description: "The most the user will wait between the confirmed deposit and the payout leaving, in seconds, up to HUSH_PRIVACY_MAX_WAIT_S; within it the class is steered to the operator's target set as usual",
    }),
  },
  { additionalProperties: false, title: 'PrivacyMaxDelay', description: 'Wait at most this long' },
);
/** The partner's privacy choice: one of the two, or none (the operator's defaults). */
const PrivacyChoice = Type.Union([MIN_SET, MAX_DELAY], {
  title: 'PrivacyChoice',
  description:
    "The user's trade between privacy and time (docs: Privacy): wait for a set (minAnonymitySet) or bound the wait (maxDelaySeconds). Absent: the operator's target set and delay budget, and a class with no traffic is not held. Orders of different choices share their class",
});

export const QuoteRequestBody = Type.Object(
  {
    amount: requestAmount('The pinned amount: what the sender pays (exact_in) or what the recipient gets (exact_out)'),
    sourceAssetId: assetId('The asset the sender pays in'),
    destinationAssetId: assetId('The asset the recipient gets (another asset: a swap, exact_in only)'),
    senderAddress: address('The wallet that signs and pays the deposit; a refund goes back to it'),
    recipientAddress: address('The wallet that gets the payout (an ordinary wallet, not a program or token account)'),
    mode: Type.Optional(mode(`${MODE}. Default exact_in`)),
    feeBps: Type.Optional(Type.Integer({ description: "Your revenue share in basis points of the pinned amount, 0 up to your account's fee cap. Default 0" })),
    feeRecipientAddress: Type.Optional(address('Where your fee is paid: required when feeBps > 0, and registered to your account by the operator')),
    privacy: Type.Optional(PrivacyChoice),
  },
  { additionalProperties: false, title: 'QuoteRequest', description: 'What to price: who pays whom how much of what', examples: [quoteRequestExample, quoteRequestPatientExample] },
);

const FeeBreakdown = Type.Object(
  {
    serviceFee: amount("Hush's fee"),
    partnerFee: amount('Your fee (feeBps), paid to feeRecipientAddress'),
    networkFee: amount('The Solana fees Hush pays for the payout, charged at cost'),
    depositAccountRent: amount(
      "Not part of fee, and in lamports (SOL's base units) whatever the source asset: the rent of the order's one-time deposit account, which the sender's deposit transaction opens and pays for beside amountIn. Hush recovers it when it closes the account; a refund sends it back to the sender with the refunded deposit. On a completed order Hush keeps it: a cost of the order the sender pays, stated here before anything is signed",
    ),
  },
  { title: 'FeeBreakdown', description: 'fee, part by part, in the source asset; and the deposit account rent the sender pays beside it, in lamports' },
);

const QuotePrivacy = Type.Object(
  {
    standard: Type.Boolean({
      description: "The pinned amount is one of the asset's standard amounts (denominations): the private path, its payout held and released with the others of its amount (its class)",
    }),
    anonymitySet: Type.Integer({
      minimum: 1,
      description:
        "The number of payouts this one leaves together with (the set it hides in), counting itself, that the order gets at least 4 times in 5, from its class's recent traffic; 1 for an amount that is not standard (not private)",
    }),
    anonymitySetLikely: Type.Integer({
      minimum: 1,
      description: 'The central estimate of that set: what the order most likely gets (at least anonymitySet; the two are equal when the traffic leaves no doubt)',
    }),
    delaySeconds: Type.Integer({
      minimum: 0,
      description: 'The wait, in seconds, between the deposit being confirmed and the payout leaving, not exceeded at least 4 times in 5 (part of duration)',
    }),
    suggestedAmounts: Type.Array(amount('A standard amount'), {
      maxItems: 4,
      description: "The standard amounts nearest to the requested one, in the request's mode, ascending: offer them when standard is false",
    }),
    basis: Type.Union([Type.Literal('measured'), Type.Literal('no_traffic')], {
      description:
        "How sure the estimate is: measured from the class's recent traffic, or no_traffic when the class has none to measure (then anonymitySet is 1: the payout goes out alone after two slots unless privacy asked to wait)",
    }),
    requested: Type.Optional(PrivacyChoice),
  },
  { additionalProperties: false, title: 'QuotePrivacy', description: 'How private this transfer will be, before it is made' },
);

export const Quote = Type.Object(
  {
    sourceAssetId: Type.String({ description: 'The asset the sender pays in' }),
    destinationAssetId: Type.String({ description: 'The asset the recipient gets' }),
    mode: mode(),
    amountIn: amount('What the sender deposits, in the source asset'),
    amountOut: amount('What the recipient gets, in the destination asset'),
    fee: amount('All fees, in the source asset: serviceFee + partnerFee + networkFee'),
    protocolFee: amount('serviceFee + partnerFee'),
    networkFee: amount('The network part of fee (feeBreakdown.networkFee)'),
    feeBreakdown: FeeBreakdown,
    duration: Type.Integer({ description: 'Expected seconds from the confirmed deposit to the payout, the privacy wait (privacy.delaySeconds) included' }),
    min: amount('The smallest amount this pair takes'),
    max: amount('The largest amount this pair takes now'),
    privacy: QuotePrivacy,
    quoteId: Type.String({
      pattern: QUOTE_ID_PATTERN,
      description: '"q_" and base64url: the quote itself, signed by Hush for your account. Send the whole quote object back unchanged in POST /transfer/v1/order',
    }),
    issuedAt: timestamp('When the quote was issued'),
    expiresAt: timestamp('The quote is firm until then (60 s by default); an order after it is QUOTE_EXPIRED'),
  },
  { title: 'Quote', description: 'A firm price: amounts, fees, limits, expected delivery time and privacy', examples: [quoteExample, quotePatientExample] },
);

export const QuoteResponse = Type.Object(
  { success: success(true), quote: Quote },
  { title: 'QuoteResponse', description: 'A firm quote until expiresAt', examples: [{ success: true, quote: quoteExample }] },
);
