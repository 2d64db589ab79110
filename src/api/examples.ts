/**
 * One worked example per partner wire shape, published in the OpenAPI document (and so in the SDK's
 * generated types' comments and the /docs page): a 0.1 SOL send with a 0.25 % partner fee. The figures
 * follow docs/spec.md §4's arithmetic at the default fees (service 30 bps).
 */
const SENDER = 'GN7J5CDFh1LskrmMxQ7TS8yoPssvSjjb8REfkhfCjPbG';
const RECIPIENT = '5QpD7yGRw9RHqEQQTSteSYU185CaPhQkbhQhSedXVUPa';
const FEE_RECIPIENT = '6vF9dEe8PM67Hz4J1roExQGHkqac2Uw4u97bVxspus3L';
const TRACKING_ID = 'trk_2JryitQJkiaRiDSdak1qQ1';
const SIGNATURE = '2V9yiv2oQGyzPjXJQFBBzT8GtMmjYFcGMyNuhFERKDTuBAbZ2GjypvW16mWsjvhdqpDsNWxDw1sJ1ZaatogPA5AG';

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

export const quoteExample = {
  sourceAssetId: 'sol',
  destinationAssetId: 'sol',
  mode: 'exact_in',
  amountIn: '100000000',
  amountOut: '99405000',
  fee: '595000',
  protocolFee: '550000',
  networkFee: '45000',
  feeBreakdown: { serviceFee: '300000', partnerFee: '250000', networkFee: '45000' },
  duration: 85,
  min: '10000000',
  max: '1000000000000',
  privacy: { standard: true, anonymitySet: 20, delaySeconds: 110, suggestedAmounts: ['10000000', '100000000', '1000000000', '10000000000'] },
  quoteId: 'q1.AAAAAZNV2m8AAAAAAAAAAQ.5Ul2Ck4lZ8M1Qz0w',
  issuedAt: '2026-11-21T10:00:00.000Z',
  expiresAt: '2026-11-21T10:01:00.000Z',
};

export const orderRequestExample = {
  quote: quoteExample,
  senderAddress: SENDER,
  recipientAddress: RECIPIENT,
  feeBps: 25,
  feeRecipientAddress: FEE_RECIPIENT,
};

export const orderExample = {
  trackingId: TRACKING_ID,
  transaction: 'AQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAgAEC…',
  transactionEncoding: 'base64',
  amountIn: '100000000',
  amountOut: '99405000',
  sourceSymbol: 'SOL',
  destinationSymbol: 'SOL',
  eta: 85,
  expiration: '2026-11-21T10:30:00.000Z',
  blockhashExpiresAtSlot: 1_234_717,
};

export const statusExample = {
  trackingId: TRACKING_ID,
  status: 'completed',
  final: true,
  createdAt: '2026-11-21T10:00:02.000Z',
  updatedAt: '2026-11-21T10:03:41.012Z',
  expiration: '2026-11-21T10:30:00.000Z',
  sourceAssetId: 'sol',
  destinationAssetId: 'sol',
  amountIn: '100000000',
  amountOut: '99405000',
  deposit: { signature: SIGNATURE, amount: '100000000', confirmedAt: '2026-11-21T10:00:04.100Z' },
  payouts: [{ signature: '4uQeVj5tqViQh7yWWGStvkEG1Zmhx6uasJtWCJziofM95Djm6MU7hgpdZ5hcxWVxgrdgKnvjZ2xKjaNPB5pBnRPF', amount: '99405000', confirmedAt: '2026-11-21T10:03:41.012Z' }],
  refund: null,
  failureReason: null,
  history: [
    { status: 'awaiting_deposit', at: '2026-11-21T10:00:02.000Z' },
    { status: 'deposit_detected', at: '2026-11-21T10:00:03.700Z' },
    { status: 'deposit_confirmed', at: '2026-11-21T10:00:04.100Z' },
    { status: 'sending', at: '2026-11-21T10:03:40.300Z' },
    { status: 'completed', at: '2026-11-21T10:03:41.012Z' },
  ],
  privacy: { standard: true, releaseBy: null, releasedWith: 20, heldSeconds: 216 },
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
};

export const depositHintExample = { trackingId: TRACKING_ID, signature: SIGNATURE };

/** The error body of a code whose details need showing (published with the statuses that carry it). */
export const errorExamples: Record<string, { code: string; message: string; details?: Record<string, unknown>; requestId: string }> = {
  TOO_MANY_OPEN_ORDERS: {
    code: 'TOO_MANY_OPEN_ORDERS',
    message: 'This account has 50 orders awaiting a deposit; fund one or let it expire before creating another',
    details: { maxOpenOrders: 50 },
    requestId: '3f0c9b1e-6a7d-4c2b-9e55-0d1f2a3b4c5d',
  },
};
