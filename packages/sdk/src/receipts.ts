import canonicalizeModule from 'canonicalize';
import { address, getBase58Encoder, getPublicKeyFromAddress, isAddress, verifySignature, type SignatureBytes } from '@solana/kit';
import type { Receipt, ReceiptKey } from './types.ts';

// RFC 8785 (JCS) by its reference implementation; a CommonJS module whose typings claim an ES default export.
const canonicalize = canonicalizeModule as unknown as (value: unknown) => string;

/** What a receipt's signature covers, after this prefix: the document's canonical JSON (docs/spec.md §12). */
const PREFIX = 'hush-receipt-v1\n';

export type ReceiptCheck = { valid: true; keyId: string } | { valid: false; reason: 'unknown_key' | 'bad_signature' | 'malformed' };

/**
 * Checks a disclosure receipt against the receipt keys Hush publishes (GET /transfer/v1/receipt-keys, or
 * the operator's own copy of them): the key that signed it must be one of `keys`, and the Ed25519
 * signature must cover exactly this document. Any field changed, added or removed fails. It proves what
 * Hush stated; the transactions it names can be looked up on chain by anyone holding it.
 */
export async function verifyReceipt(receipt: Receipt, keys: readonly (ReceiptKey | string)[]): Promise<ReceiptCheck> {
  const doc = receipt?.document as { keyId?: unknown } | undefined;
  if (!doc || typeof doc.keyId !== 'string' || receipt.algorithm !== 'ed25519' || typeof receipt.signature !== 'string') return { valid: false, reason: 'malformed' };
  const keyId = doc.keyId;
  if (!keys.some((k) => (typeof k === 'string' ? k : k.keyId) === keyId) || !isAddress(keyId)) return { valid: false, reason: 'unknown_key' };
  let signature: Uint8Array;
  try {
    signature = new Uint8Array(getBase58Encoder().encode(receipt.signature));
  } catch {
    return { valid: false, reason: 'malformed' };
  }
  if (signature.length !== 64) return { valid: false, reason: 'malformed' };
  const bytes = new TextEncoder().encode(PREFIX + canonicalize(receipt.document));
  const ok = await verifySignature(await getPublicKeyFromAddress(address(keyId)), signature as SignatureBytes, bytes);
  return ok ? { valid: true, keyId } : { valid: false, reason: 'bad_signature' };
}
