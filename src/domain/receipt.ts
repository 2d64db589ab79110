import canonicalizeModule from 'canonicalize';

// RFC 8785 (JCS) by its reference implementation; a CommonJS module whose typings claim an ES default export.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string;

/**
 * docs/spec.md §12 disclosure receipt: what Hush states about one final order, signed with Ed25519 by a
 * receipt key. The user hands it to whom they choose (a bank, an auditor) to prove where the funds came
 * from; it reveals the deposit↔payout link to that reader only. Every value is a string, a boolean, null,
 * an array or an object (amounts are decimal strings): the canonical form below is then RFC 8785 (JCS).
 */
export interface ReceiptDocument {
  type: 'hush.disclosure_receipt';
  version: 1;
  trackingId: string;
  /** The order's final status: completed, refunded, failed or frozen. */
  status: string;
  source: { assetId: string; mint: string };
  destination: { assetId: string; mint: string };
  amountIn: string;
  amountOut: string;
  sender: string;
  recipient: string;
  deposit: { signature: string; amount: string; confirmedAt: string | null } | null;
  payouts: { signature: string; amount: string }[];
  /** How many payouts of its class landed in its payout's burst on the chain (docs/spec.md §9); null when not released with a class. */
  releasedWith: number | null;
  refund: { signature: string; amount: string; reason: string } | null;
  createdAt: string;
  finalAt: string;
  /** What the order screened as at each stage (docs/spec.md §12); empty when screening was off. */
  screening: { stage: string; result: string; at: string; list: string | null; version: string | null }[];
  issuedAt: string;
  /** The receipt key's public key (base58), as GET /transfer/v1/receipt-keys lists it. */
  keyId: string;
}

/** Domain separation: these bytes can never be mistaken for a Solana transaction message or anything else signed. */
export const RECEIPT_SIGNING_PREFIX = 'hush-receipt-v1\n';

/** The bytes a receipt's signature covers: the prefix and the document's RFC 8785 canonical JSON, as UTF-8. */
export function receiptSigningBytes(document: ReceiptDocument): Uint8Array {
  return new TextEncoder().encode(RECEIPT_SIGNING_PREFIX + canonicalize(document));
}
