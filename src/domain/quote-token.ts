/**
 * Firm quotes without a database write: the quoteId *is* the quote. It carries, in a compact
 * versioned binary layout, everything needed to rebuild the quote object exactly as issued plus the
 * quote request's terms (sender, recipient, feeBps, feeRecipientAddress), and a MAC keyed by a
 * server secret over (accountId, payload). The accountId is MACed but not stored, so a quoteId
 * presented by another account simply fails verification (SPEC §3: another account's quoteId is 404).
 *
 * Layout v1 (big-endian), then base64url, prefixed "q_":
 *   u8   version (1)
 *   u8   flags: 1 = exact_out, 2 = destination ≠ source, 4 = recipient ≠ sender, 8 = feeRecipient present
 *   u48  issuedAt, ms since epoch
 *   8B   nonce (random)
 *   32B  senderAddress
 *   32B  recipientAddress                 (only if flag 4; else equals sender)
 *   32B  feeRecipientAddress              (only if flag 8)
 *   u8+  sourceAssetId (length, ASCII)
 *   u8+  destinationAssetId               (only if flag 2; else equals source)
 *   LEB128 varints: expiresAt − issuedAt (ms), duration, feeBps, amountIn, amountOut,
 *                   serviceFee, partnerFee, networkFee, min, max
 *   16B  HMAC-SHA256(secret, "hush/quote/v1" ‖ u16 len ‖ accountId ‖ payload)[0..16]
 * fee and protocolFee are not stored: they are defined as sums of stored parts (SPEC §4).
 */
import { hash, randomFillSync, timingSafeEqual } from 'node:crypto';
import type { Address } from '@solana/kit';
import { addressBytes, addressFromBytes } from './address-codec.ts';
import type { QuoteMode } from './fees.ts';
import { type Amount, U64_MAX, formatAmount, isAmount, toAmount } from './money.ts';

const VERSION = 1;
const PREFIX = 'q_';
const NONCE_BYTES = 8;
const TAG_BYTES = 16;
const MAC_DOMAIN = Buffer.from('hush/quote/v1', 'ascii');
const MAX_ID_CHARS = 512; // far above the largest v1 id (~290 chars); bounds work on hostile input
const MAX_TIMESTAMP_MS = 2 ** 48 - 1;
const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER);
const ASSET_ID = /^[\x21-\x7e]{1,32}$/;

const FLAG_EXACT_OUT = 1;
const FLAG_CROSS_ASSET = 2;
const FLAG_OWN_RECIPIENT = 4;
const FLAG_FEE_RECIPIENT = 8;
const KNOWN_FLAGS = 15;


/** The quote object on the wire (seed part 2), fields in canonical order. */
export interface QuoteObject {
  sourceAssetId: string;
  destinationAssetId: string;
  mode: QuoteMode;
  amountIn: string;
  amountOut: string;
  fee: string;
  protocolFee: string;
  networkFee: string;
  feeBreakdown: { serviceFee: string; partnerFee: string; networkFee: string };
  duration: number;
  min: string;
  max: string;
  quoteId: string;
  issuedAt: string;
  expiresAt: string;
}

/** The quote request terms the order must repeat (SPEC §4 order rules). */
export interface QuoteRequestTerms {
  senderAddress: Address;
  recipientAddress: Address;
  feeBps: number;
  feeRecipientAddress?: Address;
}

/** Everything issueQuote needs; `fee`/`protocolFee` are derived. A FeeQuote spreads straight in. */
export interface QuoteTerms extends QuoteRequestTerms {
  sourceAssetId: string;
  destinationAssetId: string;
  mode: QuoteMode;
  amountIn: Amount;
  amountOut: Amount;
  serviceFee: Amount;
  partnerFee: Amount;
  networkFee: Amount;
  min: Amount;
  max: Amount;
  /** Expected seconds to delivery, non-negative integer. */
  duration: number;
  issuedAtMs: number;
  expiresAtMs: number;
  /** 8 bytes; random when omitted (tests pass one to be deterministic). */
  nonce?: Uint8Array;
}

export interface OpenedQuote {
  quote: QuoteObject;
  request: QuoteRequestTerms;
  /** Hex of the random nonce. */
  nonce: string;
  /** Same as quoteKey(quote.quoteId). */
  key: string;
}

// ---- binary helpers -------------------------------------------------------------------------

/** One scratch buffer for every quote: issuing is synchronous, and `done()` copies the bytes out. */
const SCRATCH = new Uint8Array(384);
const SCRATCH_VIEW = new DataView(SCRATCH.buffer);

class Writer {
  private readonly bytes = SCRATCH;
  private readonly view = SCRATCH_VIEW;
  private at = 0;
  u8(v: number): void {
    this.view.setUint8(this.at++, v);
  }
  u48(v: number): void {
    this.view.setUint16(this.at, Math.floor(v / 2 ** 32));
    this.view.setUint32(this.at + 2, v >>> 0);
    this.at += 6;
  }
  raw(b: Uint8Array): void {
    this.bytes.set(b, this.at);
    this.at += b.length;
  }
  ascii(s: string): void {
    this.u8(s.length);
    for (let i = 0; i < s.length; i++) this.u8(s.charCodeAt(i));
  }
  varint(v: bigint): void {
    if (v <= MAX_SAFE) {
      // Amounts almost always fit a double exactly; Number steps allocate no BigInts.
      let n = Number(v);
      while (n >= 0x80) {
        this.bytes[this.at++] = (n % 0x80) | 0x80;
        n = Math.floor(n / 0x80);
      }
      this.bytes[this.at++] = n;
      return;
    }
    while (v >= 0x80n) {
      this.u8(Number(v & 0x7fn) | 0x80);
      v >>= 7n;
    }
    this.u8(Number(v));
  }
  done(): Uint8Array {
    return this.bytes.slice(0, this.at);
  }
}

class Reader {
  private readonly view: DataView;
  private at = 0;
  constructor(private readonly bytes: Uint8Array) {
    this.view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  }
  u8(): number {
    return this.view.getUint8(this.at++); // RangeError past the end
  }
  u48(): number {
    const v = this.view.getUint16(this.at) * 2 ** 32 + this.view.getUint32(this.at + 2);
    this.at += 6;
    return v;
  }
  raw(n: number): Uint8Array {
    if (this.at + n > this.bytes.length) throw new RangeError('truncated');
    const out = this.bytes.subarray(this.at, this.at + n);
    this.at += n;
    return out;
  }
  ascii(): string {
    return String.fromCharCode(...this.raw(this.u8()));
  }
  /** Canonical LEB128 only (no overlong forms), at most u64. */
  varint(): bigint {
    let v = 0n;
    for (let shift = 0n; shift < 70n; shift += 7n) {
      const b = this.u8();
      v |= BigInt(b & 0x7f) << shift;
      if ((b & 0x80) === 0) {
        if (b === 0 && shift > 0n) throw new RangeError('overlong varint');
        if (v > U64_MAX) throw new RangeError('varint over u64');
        return v;
      }
    }
    throw new RangeError('varint too long');
  }
  smallInt(): number {
    const v = this.varint();
    if (v > BigInt(Number.MAX_SAFE_INTEGER)) throw new RangeError('integer too large');
    return Number(v);
  }
  end(): void {
    if (this.at !== this.bytes.length) throw new RangeError('trailing bytes');
  }
}

const SHA256_BLOCK = 64;
/** The secret's inner and outer HMAC key blocks (RFC 2104), computed once per secret. */
const macPads = new WeakMap<Uint8Array, { inner: Buffer; outer: Buffer }>();
function padsOf(secret: Uint8Array): { inner: Buffer; outer: Buffer } {
  let p = macPads.get(secret);
  if (!p) {
    const key = secret.length > SHA256_BLOCK ? hash('sha256', secret, 'buffer') : secret;
    const inner = Buffer.alloc(SHA256_BLOCK, 0x36);
    const outer = Buffer.alloc(SHA256_BLOCK, 0x5c);
    for (let i = 0; i < key.length; i++) {
      inner[i]! ^= key[i]!;
      outer[i]! ^= key[i]!;
    }
    macPads.set(secret, (p = { inner, outer }));
  }
  return p;
}
/** Reused inputs of the two digests (MACing is synchronous): inner pad ‖ message, outer pad ‖ inner digest. */
const INNER_SCRATCH = Buffer.alloc(1024);
const OUTER_SCRATCH = Buffer.alloc(SHA256_BLOCK + 32);

/**
 * HMAC-SHA256 (RFC 2104) over "hush/quote/v1" ‖ u16 len ‖ accountId ‖ payload, cut to TAG_BYTES. By hand
 * from two one-shot digests because createHmac sets up an OpenSSL context per call: ~9 µs of a quote under
 * load against ~6 µs here. test/domain/quote-token.test.ts checks every tag against createHmac.
 */
function mac(secret: Uint8Array, accountId: string, payload: Uint8Array): Buffer {
  const { inner, outer } = padsOf(secret);
  const accountBytes = Buffer.byteLength(accountId);
  const size = SHA256_BLOCK + MAC_DOMAIN.length + 2 + accountBytes + payload.length;
  const buf = size <= INNER_SCRATCH.length ? INNER_SCRATCH : Buffer.alloc(size);
  inner.copy(buf, 0);
  let at = SHA256_BLOCK + MAC_DOMAIN.copy(buf, SHA256_BLOCK);
  at = buf.writeUInt16BE(accountBytes, at);
  at += buf.write(accountId, at, 'utf8');
  buf.set(payload, at);
  outer.copy(OUTER_SCRATCH, 0);
  hash('sha256', buf.subarray(0, size), 'buffer').copy(OUTER_SCRATCH, SHA256_BLOCK);
  return hash('sha256', OUTER_SCRATCH, 'buffer').subarray(0, TAG_BYTES);
}

function checkKey(secret: Uint8Array, accountId: string): void {
  if (secret.length < 16) throw new RangeError('quote secret must be at least 16 bytes');
  if (typeof accountId !== 'string' || accountId.length === 0 || Buffer.byteLength(accountId) > 0xffff) {
    throw new RangeError('accountId must be a non-empty string');
  }
}

/** Nonces cut from a pool refilled 4 KiB at a time: one CSPRNG call per 512 quotes instead of per quote. */
const noncePool = Buffer.alloc(4096);
let nonceAt = noncePool.length;
function nextNonce(): Uint8Array {
  if (nonceAt + NONCE_BYTES > noncePool.length) {
    randomFillSync(noncePool);
    nonceAt = 0;
  }
  const out = Uint8Array.prototype.slice.call(noncePool, nonceAt, nonceAt + NONCE_BYTES);
  nonceAt += NONCE_BYTES;
  return out;
}

const isoPrefixes = new Map<number, string>();
/**
 * toISOString, with the date-and-seconds part reused (a quote formats two instants, issuedAt and
 * expiresAt, seconds apart; formatting them was a visible share of a quote).
 */
function iso(ms: number): string {
  // Outside years 0000–9999 the ISO form has a different shape: no reuse there.
  if (ms < 0 || ms >= 253402300800000) return new Date(ms).toISOString();
  const second = Math.floor(ms / 1000);
  let prefix = isoPrefixes.get(second);
  if (prefix === undefined) {
    if (isoPrefixes.size >= 64) isoPrefixes.clear();
    prefix = new Date(second * 1000).toISOString().slice(0, 20);
    isoPrefixes.set(second, prefix);
  }
  return `${prefix}${String(ms - second * 1000).padStart(3, '0')}Z`;
}

function hex(b: Uint8Array): string {
  return Buffer.from(b.buffer, b.byteOffset, b.byteLength).toString('hex');
}

// ---- quote object -----------------------------------------------------------------------------

function quoteObject(t: Omit<QuoteTerms, keyof QuoteRequestTerms | 'nonce'>, quoteId: string): QuoteObject {
  const protocolFee = toAmount(t.serviceFee + t.partnerFee);
  const fee = toAmount(protocolFee + t.networkFee);
  // Key order here is the canonical field order (seed part 2) that firstQuoteDifference follows.
  return {
    sourceAssetId: t.sourceAssetId,
    destinationAssetId: t.destinationAssetId,
    mode: t.mode,
    amountIn: formatAmount(t.amountIn),
    amountOut: formatAmount(t.amountOut),
    fee: formatAmount(fee),
    protocolFee: formatAmount(protocolFee),
    networkFee: formatAmount(t.networkFee),
    feeBreakdown: {
      serviceFee: formatAmount(t.serviceFee),
      partnerFee: formatAmount(t.partnerFee),
      networkFee: formatAmount(t.networkFee),
    },
    duration: t.duration,
    min: formatAmount(t.min),
    max: formatAmount(t.max),
    quoteId,
    issuedAt: iso(t.issuedAtMs),
    expiresAt: iso(t.expiresAtMs),
  };
}

function fail(what: string): never {
  throw new RangeError(`issueQuote: invalid ${what}`);
}

function checkTerms(t: QuoteTerms): void {
  if (!ASSET_ID.test(t.sourceAssetId)) fail('sourceAssetId');
  if (!ASSET_ID.test(t.destinationAssetId)) fail('destinationAssetId');
  if (t.mode !== 'exact_in' && t.mode !== 'exact_out') fail('mode');
  for (const k of ['amountIn', 'amountOut', 'serviceFee', 'partnerFee', 'networkFee', 'min', 'max'] as const) {
    if (!isAmount(t[k])) fail(k);
  }
  if (t.serviceFee + t.partnerFee + t.networkFee > U64_MAX) fail('fee total');
  if (!Number.isSafeInteger(t.duration) || t.duration < 0) fail('duration');
  if (!Number.isSafeInteger(t.feeBps) || t.feeBps < 0 || t.feeBps > 10_000) fail('feeBps');
  if (!Number.isSafeInteger(t.issuedAtMs) || t.issuedAtMs < 0 || t.issuedAtMs > MAX_TIMESTAMP_MS) fail('issuedAtMs');
  if (!Number.isSafeInteger(t.expiresAtMs) || t.expiresAtMs < t.issuedAtMs || t.expiresAtMs > MAX_TIMESTAMP_MS) {
    fail('expiresAtMs');
  }
  if (t.nonce !== undefined && t.nonce.length !== NONCE_BYTES) fail('nonce');
}

/** Issues a firm quote: validates the terms, encodes and MACs them into the quoteId. */
export function issueQuote(secret: Uint8Array, accountId: string, terms: QuoteTerms): QuoteObject {
  checkKey(secret, accountId);
  checkTerms(terms);
  const cross = terms.destinationAssetId !== terms.sourceAssetId;
  const ownRecipient = terms.recipientAddress !== terms.senderAddress;
  const hasFeeRecipient = terms.feeRecipientAddress !== undefined;
  const w = new Writer();
  w.u8(VERSION);
  w.u8(
    (terms.mode === 'exact_out' ? FLAG_EXACT_OUT : 0) |
      (cross ? FLAG_CROSS_ASSET : 0) |
      (ownRecipient ? FLAG_OWN_RECIPIENT : 0) |
      (hasFeeRecipient ? FLAG_FEE_RECIPIENT : 0),
  );
  w.u48(terms.issuedAtMs);
  w.raw(terms.nonce ?? nextNonce());
  // The encoder throws on anything that is not a 32-byte base58 address: a caller bug here.
  w.raw(addressBytes(terms.senderAddress));
  if (ownRecipient) w.raw(addressBytes(terms.recipientAddress));
  if (terms.feeRecipientAddress !== undefined) w.raw(addressBytes(terms.feeRecipientAddress));
  w.ascii(terms.sourceAssetId);
  if (cross) w.ascii(terms.destinationAssetId);
  w.varint(BigInt(terms.expiresAtMs - terms.issuedAtMs));
  w.varint(BigInt(terms.duration));
  w.varint(BigInt(terms.feeBps));
  for (const v of [terms.amountIn, terms.amountOut, terms.serviceFee, terms.partnerFee, terms.networkFee]) w.varint(v);
  w.varint(terms.min);
  w.varint(terms.max);
  const payload = w.done();
  const id = Buffer.concat([payload, mac(secret, accountId, payload)]);
  return quoteObject(terms, PREFIX + id.toString('base64url'));
}

/** Decodes the base64url body strictly: alphabet only, and canonical (re-encodes to the same text). */
function decodeId(quoteId: unknown): Buffer | null {
  if (typeof quoteId !== 'string' || quoteId.length > MAX_ID_CHARS || !quoteId.startsWith(PREFIX)) return null;
  const body = quoteId.slice(PREFIX.length);
  if (!/^[A-Za-z0-9_-]+$/.test(body)) return null;
  const bytes = Buffer.from(body, 'base64url');
  // Node ignores stray low bits in the last character; two spellings of one quote must not exist.
  if (bytes.toString('base64url') !== body) return null;
  return bytes;
}

/**
 * Verifies a quoteId for this account and rebuilds the quote as issued plus its request terms.
 * null when malformed, forged, tampered with, or issued to another account. Expiry is not checked
 * here (the caller compares `quote.expiresAt` with its clock, to answer QUOTE_EXPIRED rather than 404).
 */
export function openQuoteId(secret: Uint8Array, accountId: string, quoteId: string): OpenedQuote | null {
  checkKey(secret, accountId);
  const bytes = decodeId(quoteId);
  if (bytes === null || bytes.length <= TAG_BYTES + 2) return null;
  const payload = bytes.subarray(0, bytes.length - TAG_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  if (!timingSafeEqual(tag, mac(secret, accountId, payload))) return null;
  try {
    const r = new Reader(payload);
    if (r.u8() !== VERSION) return null;
    const flags = r.u8();
    if ((flags & ~KNOWN_FLAGS) !== 0) return null;
    const issuedAtMs = r.u48();
    const nonce = r.raw(NONCE_BYTES);
    const senderAddress = addressFromBytes(r.raw(32));
    const recipientAddress = flags & FLAG_OWN_RECIPIENT ? addressFromBytes(r.raw(32)) : senderAddress;
    const feeRecipientAddress = flags & FLAG_FEE_RECIPIENT ? addressFromBytes(r.raw(32)) : undefined;
    const sourceAssetId = r.ascii();
    const destinationAssetId = flags & FLAG_CROSS_ASSET ? r.ascii() : sourceAssetId;
    const expiresAtMs = issuedAtMs + r.smallInt();
    const duration = r.smallInt();
    const feeBps = r.smallInt();
    const [amountIn, amountOut, serviceFee, partnerFee, networkFee, min, max] = Array.from({ length: 7 }, () =>
      toAmount(r.varint()),
    ) as [Amount, Amount, Amount, Amount, Amount, Amount, Amount];
    r.end();
    const mode: QuoteMode = flags & FLAG_EXACT_OUT ? 'exact_out' : 'exact_in';
    const quote = quoteObject(
      { sourceAssetId, destinationAssetId, mode, amountIn, amountOut, serviceFee, partnerFee, networkFee, min, max,
        duration, issuedAtMs, expiresAtMs },
      quoteId,
    );
    const request: QuoteRequestTerms = { senderAddress, recipientAddress, feeBps };
    if (feeRecipientAddress !== undefined) request.feeRecipientAddress = feeRecipientAddress;
    return { quote, request, nonce: hex(nonce), key: hex(tag) };
  } catch {
    // Only reachable for a validly MACed payload we cannot read (e.g. a future layout).
    return null;
  }
}

/**
 * The unique key of "a quote backs at most one order": hex of the 16-byte MAC tag. The tag is a
 * keyed function of the whole payload (nonce included) and the account, so distinct quotes get
 * distinct keys (128 bits, no birthday worry), and one quote has exactly one key because ids are
 * canonical. Only meaningful for a quoteId that openQuoteId accepted.
 */
export function quoteKey(quoteId: string): string {
  const bytes = decodeId(quoteId);
  if (bytes === null || bytes.length <= TAG_BYTES) throw new RangeError('malformed quoteId');
  return hex(bytes.subarray(bytes.length - TAG_BYTES));
}

function isPlainObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function differenceAt(expected: unknown, actual: unknown, path: string): string | null {
  if (isPlainObject(expected)) {
    if (!isPlainObject(actual)) return path;
    for (const key of Object.keys(expected)) {
      const sub = path === '' ? key : `${path}.${key}`;
      if (!Object.prototype.hasOwnProperty.call(actual, key)) return sub; // removed
      const d = differenceAt(expected[key], actual[key], sub);
      if (d !== null) return d; // changed (at any depth)
    }
    for (const key of Object.keys(actual)) {
      if (!Object.prototype.hasOwnProperty.call(expected, key)) return path === '' ? key : `${path}.${key}`; // added
    }
    return null;
  }
  // Leaves are strings or numbers; Object.is keeps types apart (5 vs "5") and -0 apart from 0.
  return Object.is(expected, actual) ? null : path;
}

/**
 * Path of the first field of `submitted` that was added, removed or changed relative to the issued
 * quote, e.g. "amountOut", "feeBreakdown.partnerFee", "extraField"; null when identical. Fields are
 * visited in the canonical order, depth first; added fields come after an object's own fields.
 * "$" when `submitted` itself is not an object.
 */
export function firstQuoteDifference(issued: QuoteObject, submitted: unknown): string | null {
  const d = differenceAt(issued, submitted, '');
  return d === '' ? '$' : d;
}
