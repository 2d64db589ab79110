// The checks a disclosure receipt passes, in order, each with a reason in plain words. This file imports
// nothing and uses only what Node (≥ 20.18) and browsers both have (WebCrypto's Ed25519, TextEncoder): the
// SDK's verifyReceipt runs it, and Hush serves it unchanged (types stripped) to the public receipt-check
// page, so the page and the SDK check a receipt the same way (docs/compliance.md "Checking a receipt").

/** What a receipt's signature covers, after this prefix: the document's canonical JSON (docs/spec.md §12). */
export const RECEIPT_PREFIX = 'hush-receipt-v1\n';

export type ReceiptCheckId = 'format' | 'key' | 'signature' | 'amounts';

export interface ReceiptCheckResult {
  id: ReceiptCheckId;
  /** What was checked, in plain words. */
  title: string;
  /** 'skipped' when an earlier check failed and this one could not run. */
  outcome: 'passed' | 'failed' | 'skipped';
  /** Why it failed (or what it found), in plain words. */
  detail: string;
  /** The document field the failure is about, when one is. */
  field?: string;
}

export interface ReceiptReport {
  /** Genuine: every check passed. */
  valid: boolean;
  /** The first failed check, when one failed. */
  failed: ReceiptCheckId | null;
  checks: ReceiptCheckResult[];
  /** The signing key (base58), when the receipt names one. */
  keyId: string | null;
}

const TITLES: Record<ReceiptCheckId, string> = {
  format: 'It is a Hush disclosure receipt',
  key: 'It was signed by a receipt key this Hush publishes',
  signature: 'The signature covers exactly this document',
  amounts: 'Its amounts agree with each other',
};

/**
 * RFC 8785 (JCS) canonical JSON, for the JSON values a receipt holds: object keys sorted by UTF-16 code
 * units, no whitespace, strings and numbers as JSON.stringify writes them. The same output as the
 * `canonicalize` package Hush signs with (test/sdk/receipt-checks.test.ts compares them).
 */
export function canonicalJson(value: unknown): string {
  if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('a number that is not finite has no JSON form');
  if (value === null || typeof value !== 'object') return JSON.stringify(value);
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const o = value as Record<string, unknown>;
  const keys = Object.keys(o).filter((k) => o[k] !== undefined).sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(o[k])}`).join(',')}}`;
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

/** Base58 (Bitcoin alphabet) to bytes; null when `text` is not base58. */
export function base58Bytes(text: string): Uint8Array | null {
  if (text.length === 0 || text.length > 128) return null;
  let n = 0n;
  for (const ch of text) {
    const d = ALPHABET.indexOf(ch);
    if (d < 0) return null;
    n = n * 58n + BigInt(d);
  }
  const bytes: number[] = [];
  for (; n > 0n; n >>= 8n) bytes.unshift(Number(n & 0xffn));
  for (let i = 0; i < text.length && text[i] === '1'; i++) bytes.unshift(0);
  return new Uint8Array(bytes);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const DIGITS = /^(0|[1-9][0-9]*)$/;

/** Why the receipt's shape is not a receipt's, or null when it is. */
function formatProblem(receipt: unknown): { detail: string; field?: string } | null {
  if (!isObject(receipt)) return { detail: 'It is not a JSON object with a document and a signature.' };
  const d = receipt.document;
  if (!isObject(d)) return { detail: 'It has no document.', field: 'document' };
  if (receipt.algorithm !== 'ed25519') return { detail: 'Its algorithm is not ed25519.', field: 'algorithm' };
  if (typeof receipt.signature !== 'string') return { detail: 'It has no signature.', field: 'signature' };
  if (d.type !== 'hush.disclosure_receipt' || d.version !== 1) return { detail: 'Its document is not a Hush disclosure receipt of version 1.', field: 'type' };
  if (typeof d.keyId !== 'string') return { detail: 'Its document names no signing key.', field: 'keyId' };
  for (const f of ['amountIn', 'amountOut'] as const) if (typeof d[f] !== 'string' || !DIGITS.test(d[f] as string)) return { detail: `Its ${f} is not an amount.`, field: f };
  if (!Array.isArray(d.payouts)) return { detail: 'Its payouts are not a list.', field: 'payouts' };
  return null;
}

/** Where the amounts a genuine receipt states contradict each other, or null. */
function amountsProblem(d: Record<string, unknown>): { detail: string; field: string } | null {
  const payouts = d.payouts as { amount?: unknown }[];
  if (payouts.some((p) => !isObject(p) || typeof p.amount !== 'string' || !DIGITS.test(p.amount))) return { detail: 'A payout has no amount.', field: 'payouts' };
  if (d.status !== 'completed') return null;
  const paid = payouts.reduce((s, p) => s + BigInt(p.amount as string), 0n);
  if (paid.toString() !== d.amountOut) return { detail: `amountOut says ${d.amountOut} base units, but the payouts add up to ${paid}.`, field: 'amountOut' };
  const deposit = d.deposit;
  if (isObject(deposit) && deposit.amount !== d.amountIn) return { detail: `amountIn says ${String(d.amountIn)} base units, but the deposit was ${String(deposit.amount)}.`, field: 'amountIn' };
  return null;
}

/** Ed25519 through WebCrypto (Node ≥ 20.18 and every current browser; a browser only in a secure context). */
async function ed25519Verify(publicKey: Uint8Array, signature: Uint8Array, message: Uint8Array): Promise<boolean> {
  const subtle = globalThis.crypto?.subtle;
  if (!subtle) throw new Error('WebCrypto is not available here (a browser offers it only on https or localhost)');
  const key = await subtle.importKey('raw', publicKey as BufferSource, { name: 'Ed25519' }, false, ['verify']);
  return subtle.verify({ name: 'Ed25519' }, key, signature as BufferSource, message as BufferSource);
}

/**
 * Runs every check on a disclosure receipt against the receipt keys Hush publishes (the keyIds of GET
 * /transfer/v1/receipt-keys): its shape, that a published key signed it, that the Ed25519 signature covers
 * exactly this document (any field changed, added or removed fails), and that its amounts agree (a
 * completed order's payouts add up to amountOut, its deposit is amountIn). Each check says in plain words
 * what failed and, where it can, which field.
 */
export async function checkReceipt(receipt: unknown, keys: readonly (string | { keyId: string })[]): Promise<ReceiptReport> {
  // The key ids, or the keys as GET /transfer/v1/receipt-keys lists them (as verifyReceipt takes them): a key object was read as no key.
  const keyIds = keys.map((k) => (typeof k === 'string' ? k : k.keyId));
  const checks: ReceiptCheckResult[] = [];
  const add = (id: ReceiptCheckId, outcome: ReceiptCheckResult['outcome'], detail: string, field?: string) =>
    void checks.push({ id, title: TITLES[id], outcome, detail, ...(field ? { field } : {}) });
  const skipRest = (from: ReceiptCheckId[]) => from.forEach((id) => add(id, 'skipped', 'Not checked: an earlier check failed.'));
  const done = (keyId: string | null): ReceiptReport => {
    const failed = checks.find((c) => c.outcome === 'failed')?.id ?? null;
    return { valid: failed === null, failed, checks, keyId };
  };

  const shape = formatProblem(receipt);
  if (shape) {
    add('format', 'failed', shape.detail, shape.field);
    skipRest(['key', 'signature', 'amounts']);
    return done(null);
  }
  const r = receipt as { document: Record<string, unknown>; signature: string };
  const keyId = r.document.keyId as string;
  add('format', 'passed', 'A document, its Ed25519 signature and the key that made it.');

  const publicKey = base58Bytes(keyId);
  if (!keyIds.includes(keyId) || publicKey?.length !== 32) {
    add('key', 'failed', `The key ${keyId} is not one this Hush publishes: anyone could have made this signature.`, 'keyId');
    skipRest(['signature']);
  } else {
    add('key', 'passed', `Signed by receipt key ${keyId}, which this Hush publishes.`);
    const signature = base58Bytes(r.signature);
    if (signature?.length !== 64) add('signature', 'failed', 'The signature is not an Ed25519 signature (64 bytes in base58).', 'signature');
    else {
      const ok = await ed25519Verify(publicKey, signature, new TextEncoder().encode(RECEIPT_PREFIX + canonicalJson(r.document)));
      if (ok) add('signature', 'passed', 'Not one character of the document changed since Hush signed it.');
      else add('signature', 'failed', 'The signature does not match this document: something in it was changed, added or removed after Hush signed it.');
    }
  }
  const amounts = amountsProblem(r.document);
  if (amounts) add('amounts', 'failed', amounts.detail, amounts.field);
  else add('amounts', 'passed', r.document.status === 'completed' ? 'The payouts add up to amountOut and the deposit is amountIn.' : 'Every amount is a whole number of base units.');
  return done(keyId);
}
