import { Type } from 'typebox';
import { success } from './fields.ts';

const Str = (description: string) => Type.String({ description });
const NullableStr = (description: string) => Type.Union([Type.String(), Type.Null()], { description });

const EXAMPLE_DOCUMENT = {
  type: 'hush.disclosure_receipt',
  version: 1,
  trackingId: 'trk_4Vd8nR2kP9qXz7LmB3sT6w',
  status: 'completed',
  source: { assetId: 'usdc', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
  destination: { assetId: 'usdc', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' },
  amountIn: '10000000',
  amountOut: '9965000',
  sender: '7xKXtg2CW87d97TXJSDpbD5jBkheTqA83TZRuJosgAsU',
  recipient: '9WzDXwBbmkg8ZTbNMqUxvQRAyrZzDsGYdLVL9zYtAWWM',
  deposit: { signature: '5Ez4h6kirpwxJxLUjaun3x69tdbv7wrQ6iyevhK2zCKo2F1piiayXnwYgTMxj9DWVt4kUmjVF9bnYRhqYgDW1DSP', amount: '10000000', confirmedAt: '2026-11-24T10:00:02.410Z' },
  payouts: [{ signature: 'ZiKHgJhge6fftLoTgNbaWiTs1PwK6h3cCNibha8A6v2coSHTjEqraCYhxFhxCWPk3Yh1kuT5hdUxrWmYJL5vKLG', amount: '9965000' }],
  releasedWith: null,
  refund: null,
  createdAt: '2026-11-24T09:59:40.118Z',
  finalAt: '2026-11-24T10:14:31.902Z',
  screening: [
    { stage: 'deposit', result: 'clear', at: '2026-11-24T10:00:02.433Z', list: null, version: null },
    { stage: 'payout', result: 'clear', at: '2026-11-24T10:14:30.577Z', list: null, version: null },
  ],
  issuedAt: '2026-11-24T10:14:32.015Z',
  keyId: '7ZCPfKpnvnsfybXNnFZLAGzJ2wFiSEEWz9DPTN885v2h',
};

const ReceiptDocument = Type.Object(
  {
    type: Type.Literal('hush.disclosure_receipt', { description: 'Always hush.disclosure_receipt' }),
    version: Type.Literal(1, { description: 'The document format: 1' }),
    trackingId: Str('The order'),
    status: Str('Its final status: completed, refunded, failed or frozen'),
    source: Type.Object({ assetId: Str('Its asset id'), mint: Str('Its mint (base58)') }, { description: 'The asset deposited' }),
    destination: Type.Object({ assetId: Str('Its asset id'), mint: Str('Its mint (base58)') }, { description: 'The asset paid out' }),
    amountIn: Str('Base units the sender was to deposit'),
    amountOut: Str('Base units the recipient was to receive'),
    sender: Str('The sender the order was made for'),
    recipient: Str('The recipient the order was made for'),
    deposit: Type.Union([Type.Object({ signature: Str('The deposit transaction (base58)'), amount: Str('What it paid, base units'), confirmedAt: NullableStr('When Hush saw it confirmed') }), Type.Null()], { description: "The deposit's transaction signature and amount" }),
    payouts: Type.Array(Type.Object({ signature: Str('A payout transaction (base58)'), amount: Str('What it paid, base units') }), { description: "Hush's transactions that paid the recipient (the link the receipt discloses)" }),
    releasedWith: Type.Union([Type.Integer({ minimum: 1 }), Type.Null()], {
      description:
        "For a payout released with its class: how many payouts of its class landed in its payout's burst on the chain, counted by the burst rule an outside reader applies once every payout of its release was final (the receipt waits for that). Null when the order was not released with a class or no payout of it landed",
    }),
    refund: Type.Union([Type.Object({ signature: Str('The refund transaction (base58)'), amount: Str('What it returned, base units'), reason: Str('Why the order was refunded') }), Type.Null()], { description: 'The refund to the sender, if the order was refunded' }),
    createdAt: Str('When the order was created'),
    finalAt: Str('When it became final'),
    screening: Type.Array(
      Type.Object({
        stage: Str('deposit, payout, refund or resolution'),
        result: Str('clear, held by screening, or not checked (the provider did not answer and the operator lets such checks pass); for a resolution: release, refund or freeze'),
        at: Str('When it was checked'),
        list: NullableStr('Always null: a receipt never names a list or a provider (receipts signed before 2026-11-25 may)'),
        version: NullableStr('Always null (receipts signed before 2026-11-25 may carry a version)'),
      }),
      { description: 'What the order screened as when its deposit confirmed and before its payout, and any operator resolution; empty when screening was off' },
    ),
    issuedAt: Str('When Hush signed this receipt'),
    keyId: Str('The receipt key that signed it (base58 Ed25519 public key), as GET /transfer/v1/receipt-keys lists it'),
  },
  { title: 'ReceiptDocument', description: 'What Hush states about the order' },
);

export const ReceiptResponse = Type.Object(
  {
    success: success(true),
    receipt: Type.Object(
      {
        document: ReceiptDocument,
        algorithm: Type.Literal('ed25519', { description: 'Always ed25519' }),
        signature: Str('Base58 Ed25519 signature over the UTF-8 bytes of "hush-receipt-v1\\n" followed by the RFC 8785 canonical JSON of `document`'),
      },
      { title: 'DisclosureReceipt', description: 'The document and its signature: verify before trusting it (the SDK verifyReceipt)' },
    ),
  },
  {
    title: 'ReceiptResponse',
    description: "The order's signed disclosure receipt",
    examples: [{ success: true, receipt: { document: EXAMPLE_DOCUMENT, algorithm: 'ed25519', signature: '4UU99NQYXVRHX2WrHkps5rohQBYMi7vGt7zzbSz9VSpygSZoWZtDGXcAS7RV4NbYTkpM7dW5NdXroPNxqrY7XdQN' } }],
  },
);

export const ReceiptKeysResponse = Type.Object(
  {
    success: success(true),
    keys: Type.Array(
      Type.Object(
        {
          keyId: Str('The base58 Ed25519 public key'),
          algorithm: Type.Literal('ed25519', { description: 'Always ed25519' }),
          publishedAt: Str('When a worker first signed with it'),
        },
        { description: 'A receipt key' },
      ),
      { description: 'Every key that ever signed a receipt here, newest first: a receipt signed before a rotation still verifies' },
    ),
  },
  {
    title: 'ReceiptKeysResponse',
    description: 'The public keys of disclosure receipts',
    examples: [{ success: true, keys: [{ keyId: '7ZCPfKpnvnsfybXNnFZLAGzJ2wFiSEEWz9DPTN885v2h', algorithm: 'ed25519', publishedAt: '2026-11-01T08:00:00.000Z' }] }],
  },
);
