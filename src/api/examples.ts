/**
 * One worked example per partner wire shape, published in the OpenAPI document (and so in the SDK's
 * generated types' comments and the /docs page): a 0.1 SOL send (a private amount) with a 0.25 % partner
 * fee, at the default fees (service 30 bps), in a class busy enough to fill its set in minutes. The quote
 * is issued by the real issuer, so its quoteId is one Hush could have issued (signed with a key only the
 * documentation uses).
 */
import type { Address } from '@solana/kit';
import { toAmount } from '../domain/money.ts';
import { issueQuote } from '../domain/quote-token.ts';

const SENDER = 'GN7J5CDFh1LskrmMxQ7TS8yoPssvSjjb8REfkhfCjPbG' as Address;
const RECIPIENT = '5QpD7yGRw9RHqEQQTSteSYU185CaPhQkbhQhSedXVUPa' as Address;
const FEE_RECIPIENT = '6vF9dEe8PM67Hz4J1roExQGHkqac2Uw4u97bVxspus3L' as Address;
export const TRACKING_ID_EXAMPLE = 'trk_2JryitQJkiaRiDSdak1qQ1';
const SIGNATURE = '2V9yiv2oQGyzPjXJQFBBzT8GtMmjYFcGMyNuhFERKDTuBAbZ2GjypvW16mWsjvhdqpDsNWxDw1sJ1ZaatogPA5AG';
const PAYOUT_SIGNATURE = '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM95Djm6MU7hgpdZ5hcxWVxgrdgKnvjZ2xKjaNPB5pBnRPF';

/** The key and account the example quote is signed for: documentation only, never a server's. */
export const EXAMPLE_QUOTE_KEY = { secret: new TextEncoder().encode('hush-openapi-example-quote-key'), accountId: 'acct_example' };
const ISSUED_AT_MS = Date.parse('2026-11-21T10:00:00.000Z');

export const quoteRequestExample = {
  amount: '100000000',
  sourceAssetId: 'sol',
  destinationAssetId: 'sol',
  senderAddress: SENDER,
  recipientAddress: RECIPIENT,
  mode: 'exact_in',
  feeBps: 25,
  feeRecipientAddress: FEE_RECIPIENT,
};

const a = (n: bigint) => toAmount(n);
/** The terms both quote examples share: a 0.1 SOL send with a 25 bps partner fee. */
const exampleTerms = {
  senderAddress: SENDER,
  recipientAddress: RECIPIENT,
  feeRecipientAddress: FEE_RECIPIENT,
  feeBps: 25,
  sourceAssetId: 'sol',
  destinationAssetId: 'sol',
  mode: 'exact_in' as const,
  amountIn: a(100_000_000n),
  amountOut: a(99_429_800n),
  serviceFee: a(300_000n),
  partnerFee: a(250_000n),
  networkFee: a(20_200n),
  min: a(10_000_000n),
  max: a(1_000_000_000_000n),
  standard: true,
  suggestedAmounts: [a(10_000_000n), a(100_000_000n), a(1_000_000_000n), a(10_000_000_000n)],
  issuedAtMs: ISSUED_AT_MS,
  expiresAtMs: ISSUED_AT_MS + 60_000,
};

export const quoteExample = issueQuote(EXAMPLE_QUOTE_KEY.secret, EXAMPLE_QUOTE_KEY.accountId, {
  ...exampleTerms,
  duration: 215,
  anonymitySet: 26,
  anonymitySetLikely: 30,
  delaySeconds: 210,
  basis: 'measured',
  nonce: new Uint8Array([0x5e, 0x1d, 0x09, 0xc4, 0x7a, 0x22, 0xb3, 0x8f]),
});

/** A quote request whose partner asks to wait for a set of at least 20 (docs/spec.md §9). */
export const quoteRequestPatientExample = { ...quoteRequestExample, privacy: { minAnonymitySet: 20 } };

/** Its quote on a Hush whose class has no measured traffic yet: no company promised, the whole hold quoted. */
export const quotePatientExample = issueQuote(EXAMPLE_QUOTE_KEY.secret, EXAMPLE_QUOTE_KEY.accountId, {
  ...exampleTerms,
  duration: 21_591,
  anonymitySet: 1,
  anonymitySetLikely: 1,
  delaySeconds: 21_586,
  basis: 'no_traffic',
  requested: { minAnonymitySet: 20 },
  nonce: new Uint8Array([0x5e, 0x1d, 0x09, 0xc4, 0x7a, 0x22, 0xb3, 0x90]),
});

/**
 * The example order's deposit transaction, as buildDepositTransaction builds it from these inputs
 * (test/api/openapi-examples.test.ts builds it again and compares).
 */
export const depositTransactionExample = {
  input: {
    sender: SENDER,
    depositOwner: 'Hv7dPZ2xT1mF3YjRkq9wLs4uNbE8cA6gVn5pQzXrKt2B' as Address,
    mint: 'So11111111111111111111111111111111111111112' as Address,
    tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address,
    decimals: 9,
    native: true,
    amount: 100_000_000n,
    blockhash: '9sHcv6xwn9YkB8nxTUGKDwPwNnmqVp5oAXxU8Fdkm4J6',
    lastValidBlockHeight: 1_234_717n,
    computeUnitLimit: 24_401,
    computeUnitPriceMicroLamports: 1100n,
  },
  base64: 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAACAAQAHCeRHnjCqHc1+LU9WrO9k7B2QV+372Vf3di6liao5VCZb+Y0IlQ+BhIeWjtPkdz3/1c6bJxOr7TtxMwsqGRV5a/cAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAIyXJY9OJInxuz0QKRSODYMLWhOZ2v8QhASOe9jb6fhZAwZGb+UhFzL/7K26csOb57yM5bvF9xJrLEObOkAAAAD7VkRvHjx2fwjOBDVmBH+h0rus1nwTkIKMWhY7+c1u0AabiFf+q4GE+2h/Y0YYwDXaxDncGus7VZig8AAAAAABBqfVFxksXFEhjMlMPUrxf1ja7gibof1E49vZigAAAAAG3fbh12Whk9nL4UbO63msHLSF7V9bN5E6jPWFfv8AqYO/U8lswd7/sEOI0dsqBqnwiY65qQYRV3sGKjeiQHhbBQQABQJRXwAABAAJA0wEAAAAAAAAAwYAAQUGAggBAAICAAEMAgAAAADh9QUAAAAACAIBBwERAA==',
};

export const orderRequestExample = {
  quote: quoteExample,
  senderAddress: SENDER,
  recipientAddress: RECIPIENT,
  feeBps: 25,
  feeRecipientAddress: FEE_RECIPIENT,
};

export const orderExample = {
  trackingId: TRACKING_ID_EXAMPLE,
  transaction: depositTransactionExample.base64,
  transactionEncoding: 'base64',
  amountIn: '100000000',
  amountOut: '99429800',
  sourceSymbol: 'SOL',
  destinationSymbol: 'SOL',
  eta: 215,
  expiration: '2026-11-21T10:30:02.000Z',
  blockhashExpiresAtSlot: 1_234_717,
  lastValidBlockHeight: 1_234_717,
};

const history = [
  { status: 'awaiting_deposit', at: '2026-11-21T10:00:02.000Z' },
  { status: 'deposit_detected', at: '2026-11-21T10:00:03.700Z' },
  { status: 'deposit_confirmed', at: '2026-11-21T10:00:04.100Z' },
  { status: 'sending', at: '2026-11-21T10:03:40.300Z' },
  { status: 'completed', at: '2026-11-21T10:03:41.012Z' },
];
const deposit = { signature: SIGNATURE, amount: '100000000', confirmedAt: '2026-11-21T10:00:04.100Z' };
const base = {
  trackingId: TRACKING_ID_EXAMPLE,
  createdAt: '2026-11-21T10:00:02.000Z',
  expiration: '2026-11-21T10:30:02.000Z',
  sourceAssetId: 'sol',
  destinationAssetId: 'sol',
  amountIn: '100000000',
  amountOut: '99429800',
  deposit,
  refund: null,
  failureReason: null,
};

/** Completed: the payout left with 19 others of its class after 216 s. */
export const statusExample = {
  ...base,
  status: 'completed',
  final: true,
  updatedAt: '2026-11-21T10:03:41.012Z',
  payouts: [{ signature: PAYOUT_SIGNATURE, amount: '99429800', confirmedAt: '2026-11-21T10:03:41.012Z' }],
  history,
  privacy: { standard: true, releaseBy: null, releasedWith: 20, releasedWithPending: null, heldSeconds: 216 },
};

/** Held: the deposit is confirmed and the payout waits for its class. */
export const heldStatusExample = {
  ...base,
  status: 'deposit_confirmed',
  final: false,
  updatedAt: '2026-11-21T10:00:04.100Z',
  payouts: [],
  history: history.slice(0, 3),
  privacy: { standard: true, releaseBy: '2026-11-21T10:05:04.100Z', releasedWith: null, releasedWithPending: null, heldSeconds: null },
};

/** The record as the `sending` transition that released the payout left it. */
export const releasedStatusExample = {
  ...statusExample,
  status: 'sending',
  final: false,
  updatedAt: '2026-11-21T10:03:40.300Z',
  payouts: [],
  history: history.slice(0, 4),
  // Issue 54: the set is counted where the release's payouts land, after this transition.
  privacy: { ...statusExample.privacy, releasedWith: null },
};

export const tokenExample = {
  assetId: 'usdc',
  symbol: 'USDC',
  name: 'USD Coin',
  decimals: 6,
  mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v',
  tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  native: false,
  swappable: true,
  min: '1000000',
  max: '100000000000',
  denominations: ['1000000', '10000000', '100000000', '1000000000', '10000000000', '100000000000'],
  swapGrid: '10000',
};

export const depositHintExample = { trackingId: TRACKING_ID_EXAMPLE, signature: SIGNATURE };

/** An order event's id: "evt_" and 22 base64url characters (keyed, so ids reveal no volume). */
export const EVENT_ID_EXAMPLE = 'evt_Qm3vXc0pL7aTzR9kWn2bYe';
