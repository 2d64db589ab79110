import type { Receipt, ReceiptKey } from './types.ts';
import { checkReceipt } from './receipt-checks.ts';

export { checkReceipt, type ReceiptCheckId, type ReceiptCheckResult, type ReceiptReport } from './receipt-checks.ts';

export type ReceiptCheck = { valid: true; keyId: string } | { valid: false; reason: 'unknown_key' | 'bad_signature' | 'malformed' };

/**
 * Checks a disclosure receipt against the receipt keys Hush publishes (GET /transfer/v1/receipt-keys, or
 * the operator's own copy of them): the key that signed it must be one of `keys`, and the Ed25519
 * signature must cover exactly this document. Any field changed, added or removed fails. It proves what
 * Hush stated; the transactions it names can be looked up on chain by anyone holding it. `checkReceipt`
 * gives every check with its reason in words (what the receipt-check page shows).
 */
export async function verifyReceipt(receipt: Receipt, keys: readonly (ReceiptKey | string)[]): Promise<ReceiptCheck> {
  const report = await checkReceipt(receipt, keys.map((k) => (typeof k === 'string' ? k : k.keyId)));
  const failed = (id: string) => report.checks.find((c) => c.id === id)?.outcome === 'failed';
  if (failed('format')) return { valid: false, reason: 'malformed' };
  if (failed('key')) return { valid: false, reason: 'unknown_key' };
  // A signature that is not 64 bytes of base58 says nothing about the document: malformed, as before.
  if (failed('signature')) return { valid: false, reason: report.checks.find((c) => c.id === 'signature')?.field === 'signature' ? 'malformed' : 'bad_signature' };
  // The amounts are covered by the signature: a genuine receipt's always agree.
  if (!report.valid) return { valid: false, reason: 'bad_signature' };
  return { valid: true, keyId: report.keyId! };
}
