/**
 * Firm quotes without a database write: the quoteId *is* the quote. It carries, in a compact
 * versioned binary layout, everything needed to rebuild the quote object exactly as issued plus the
 * quote request's terms (sender, recipient, feeBps, feeRecipientAddress), and a MAC keyed by a
 * server secret over (accountId, payload). The accountId is MACed but not stored, so a quoteId
 * presented by another account simply fails verification (docs/spec.md §3: another account's quoteId is 404).
 *
 * Layout v5 (big-endian), then base64url, prefixed "q_" (older ids are no longer read: a quote lives
 * seconds, so a deploy only turns the few outstanding ones into QUOTE_NOT_FOUND):
 *   u8   version (5; v4 added privacy.anonymitySetLikely, issue 51; v5 networkFeePrice, issue 73)
 *   u8   flags: 1 = exact_out, 2 = destination ≠ source, 4 = recipient ≠ sender, 8 = feeRecipient present,
 *               16 = privacy.standard, 32 = privacy.basis is no_traffic, 64 = privacy.requested present
 *   u48  issuedAt, ms since epoch
 *   8B   nonce (random)
 *   32B  senderAddress
 *   32B  recipientAddress                 (only if flag 4; else equals sender)
 *   32B  feeRecipientAddress              (only if flag 8)
 *   u8+  sourceAssetId (length, ASCII)
 *   u8+  destinationAssetId               (only if flag 2; else equals source)
 *   LEB128 varints: expiresAt − issuedAt (ms), duration, feeBps, amountIn, amountOut,
 *                   serviceFee, partnerFee, networkFee, networkFeePrice (0: not given), min, max, privacy.anonymitySet,
 *                   privacy.anonymitySetLikely, privacy.delaySeconds
 *   u8   number of privacy.suggestedAmounts (≤ 4), then each as a varint
 *   u8+  privacy.requested (only if flag 64): 1 = minAnonymitySet, 2 = maxDelaySeconds, then its value as a varint
 *   16B  HMAC-SHA256(secret, "hush/quote/v1" ‖ u16 len ‖ accountId ‖ payload)[0..16]
 * fee and protocolFee are not stored: they are defined as sums of stored parts (docs/spec.md §4).
 */
import { timingSafeEqual } from 'node:crypto';
import type { Address } from '@solana/kit';
import { addressBytes, addressFromBytes } from './address-codec.ts';
import type { QuoteMode } from './fees.ts';
import { type Amount, U64_MAX, formatAmount, isAmount, toAmount } from './money.ts';
import { Reader, Writer, hex } from './quote-binary.ts';
import { DEPOSIT_ACCOUNT_RENT } from './network-cost.ts';
import { MAX_MIN_ANONYMITY_SET, type PrivacyChoice } from './privacy-choice.ts';
import { NONCE_BYTES, TAG_BYTES, checkQuoteKey, quoteMac, writeQuoteMac } from './quote-mac.ts';

const VERSION = 5;
const PREFIX = 'q_';
const MAX_ID_CHARS = 640; // far above the largest v2 id (~340 chars); bounds work on hostile input
const MAX_TIMESTAMP_MS = 2 ** 48 - 1;
/** At most this many suggested amounts travel in a quote. */
const MAX_SUGGESTED = 4;
const ASSET_ID = /^[\x21-\x7e]{1,32}$/;

const FLAG_EXACT_OUT = 1;
const FLAG_CROSS_ASSET = 2;
const FLAG_OWN_RECIPIENT = 4;
const FLAG_FEE_RECIPIENT = 8;
const FLAG_STANDARD = 16;
const FLAG_NO_TRAFFIC = 32;
const FLAG_REQUESTED = 64;
const KNOWN_FLAGS = 127;
const CHOICE_MIN_SET = 1;
const CHOICE_MAX_DELAY = 2;


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
  feeBreakdown: { serviceFee: string; partnerFee: string; networkFee: string; depositAccountRent: string };
  duration: number;
  min: string;
  max: string;
  privacy: { standard: boolean; anonymitySet: number; anonymitySetLikely: number; delaySeconds: number; suggestedAmounts: string[]; basis: 'measured' | 'no_traffic'; requested?: PrivacyChoice };
  quoteId: string;
  issuedAt: string;
  expiresAt: string;
}

/** The quote request terms the order must repeat (docs/spec.md §4 order rules). */
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
  /**
   * The compute-unit price (micro-lamports) networkFee was priced at: the fee grid's rung for this quote. Not in
   * the quote object (the rung is public anyway: networkFee follows from it); carried so the order and the
   * ledger know the rung its partner was charged at, which prices and the grid may have left since.
   */
  networkFeePrice?: bigint;
  min: Amount;
  max: Amount;
  /** Expected seconds to delivery, non-negative integer. */
  duration: number;
  /** Whether the pinned amount is one of the asset's denominations (docs/spec.md §9). */
  standard: boolean;
  /** The release size the order gets at least four times in five, integer ≥ 1. */
  anonymitySet: number;
  /** The central estimate of the release size, integer ≥ anonymitySet. */
  anonymitySetLikely: number;
  /** The release delay not exceeded four times in five, seconds (part of `duration`). */
  delaySeconds: number;
  /** Nearest standard amounts in the request's mode, at most MAX_SUGGESTED. */
  suggestedAmounts: readonly Amount[];
  /** Whether the estimate is measured from the class's traffic or there was none. */
  basis: 'measured' | 'no_traffic';
  /** The partner's privacy choice, when it made one. */
  requested?: PrivacyChoice;
  issuedAtMs: number;
  expiresAtMs: number;
  /** 8 random bytes, drawn by the issuer (QuoteService: QuoteNonces): identical terms still give distinct quotes. */
  nonce: Uint8Array;
}

export interface OpenedQuote {
  quote: QuoteObject;
  request: QuoteRequestTerms;
  /** Hex of the random nonce. */
  nonce: string;
  /** Same as quoteKey(quote.quoteId). */
  key: string;
  /** QuoteTerms.networkFeePrice; null when the issuer gave none. */
  networkFeePrice: bigint | null;
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

/** The choice as (kind, value); null when out of range. */
function choiceValue(c: PrivacyChoice): [number, number] | null {
  const [kind, value] = 'minAnonymitySet' in c ? [CHOICE_MIN_SET, c.minAnonymitySet] : [CHOICE_MAX_DELAY, c.maxDelaySeconds];
  if (!Number.isSafeInteger(value) || value < 0 || (kind === CHOICE_MIN_SET && (value < 1 || value > MAX_MIN_ANONYMITY_SET))) return null;
  return [kind, value];
}

function readChoice(kind: number, value: number): PrivacyChoice | null {
  if (kind === CHOICE_MIN_SET && value >= 1 && value <= MAX_MIN_ANONYMITY_SET) return { minAnonymitySet: value };
  if (kind === CHOICE_MAX_DELAY) return { maxDelaySeconds: value };
  return null;
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
      // Not part of fee (in SOL, whatever the source asset): what the deposit transaction's account costs the sender.
      depositAccountRent: formatAmount(toAmount(DEPOSIT_ACCOUNT_RENT)),
    },
    duration: t.duration,
    min: formatAmount(t.min),
    max: formatAmount(t.max),
    privacy: {
      standard: t.standard,
      anonymitySet: t.anonymitySet,
      anonymitySetLikely: t.anonymitySetLikely,
      delaySeconds: t.delaySeconds,
      suggestedAmounts: t.suggestedAmounts.map(formatAmount),
      basis: t.basis,
      ...(t.requested !== undefined ? { requested: t.requested } : {}),
    },
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
  if (t.networkFeePrice !== undefined && (t.networkFeePrice < 0n || t.networkFeePrice > U64_MAX)) fail('networkFeePrice');
  if (!Number.isSafeInteger(t.duration) || t.duration < 0) fail('duration');
  if (typeof t.standard !== 'boolean') fail('standard');
  if (!Number.isSafeInteger(t.anonymitySet) || t.anonymitySet < 1) fail('anonymitySet');
  if (!Number.isSafeInteger(t.anonymitySetLikely) || t.anonymitySetLikely < t.anonymitySet) fail('anonymitySetLikely');
  if (!Number.isSafeInteger(t.delaySeconds) || t.delaySeconds < 0) fail('delaySeconds');
  if (t.suggestedAmounts.length > MAX_SUGGESTED || !t.suggestedAmounts.every(isAmount)) fail('suggestedAmounts');
  if (t.basis !== 'measured' && t.basis !== 'no_traffic') fail('basis');
  if (t.requested !== undefined && choiceValue(t.requested) === null) fail('requested');
  if (!Number.isSafeInteger(t.feeBps) || t.feeBps < 0 || t.feeBps > 10_000) fail('feeBps');
  if (!Number.isSafeInteger(t.issuedAtMs) || t.issuedAtMs < 0 || t.issuedAtMs > MAX_TIMESTAMP_MS) fail('issuedAtMs');
  if (!Number.isSafeInteger(t.expiresAtMs) || t.expiresAtMs < t.issuedAtMs || t.expiresAtMs > MAX_TIMESTAMP_MS) {
    fail('expiresAtMs');
  }
  if (t.nonce.length !== NONCE_BYTES) fail('nonce');
}

/** Issues a firm quote: validates the terms, encodes and MACs them into the quoteId. */
export function issueQuote(secret: Uint8Array, accountId: string, terms: QuoteTerms): QuoteObject {
  checkQuoteKey(secret, accountId);
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
      (hasFeeRecipient ? FLAG_FEE_RECIPIENT : 0) |
      (terms.standard ? FLAG_STANDARD : 0) |
      (terms.basis === 'no_traffic' ? FLAG_NO_TRAFFIC : 0) |
      (terms.requested !== undefined ? FLAG_REQUESTED : 0),
  );
  w.u48(terms.issuedAtMs);
  w.raw(terms.nonce);
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
  w.varint(terms.networkFeePrice ?? 0n);
  w.varint(terms.min);
  w.varint(terms.max);
  w.varint(BigInt(terms.anonymitySet));
  w.varint(BigInt(terms.anonymitySetLikely));
  w.varint(BigInt(terms.delaySeconds));
  w.u8(terms.suggestedAmounts.length);
  for (const v of terms.suggestedAmounts) w.varint(v);
  if (terms.requested !== undefined) {
    const [kind, value] = choiceValue(terms.requested)!;
    w.u8(kind);
    w.varint(BigInt(value));
  }
  // The tag goes right after the payload in the writer's scratch, and the text is read from there: no copy.
  const end = writeQuoteMac(secret, accountId, w.buffer.subarray(0, w.length), w.buffer, w.length);
  return quoteObject(terms, PREFIX + w.buffer.toString('base64url', 0, end));
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
  checkQuoteKey(secret, accountId);
  const bytes = decodeId(quoteId);
  if (bytes === null || bytes.length <= TAG_BYTES + 2) return null;
  const payload = bytes.subarray(0, bytes.length - TAG_BYTES);
  const tag = bytes.subarray(bytes.length - TAG_BYTES);
  if (!timingSafeEqual(tag, quoteMac(secret, accountId, payload))) return null;
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
    const amountIn = toAmount(r.varint());
    const amountOut = toAmount(r.varint());
    const serviceFee = toAmount(r.varint());
    const partnerFee = toAmount(r.varint());
    const networkFee = toAmount(r.varint());
    const networkFeePrice = r.varint();
    const min = toAmount(r.varint());
    const max = toAmount(r.varint());
    const anonymitySet = r.smallInt();
    const anonymitySetLikely = r.smallInt();
    const delaySeconds = r.smallInt();
    const count = r.u8();
    if (anonymitySet < 1 || anonymitySetLikely < anonymitySet || count > MAX_SUGGESTED) return null;
    const suggestedAmounts: Amount[] = [];
    for (let i = 0; i < count; i++) suggestedAmounts.push(toAmount(r.varint()));
    const requested = flags & FLAG_REQUESTED ? readChoice(r.u8(), r.smallInt()) : undefined;
    if (requested === null) return null;
    r.end();
    const mode: QuoteMode = flags & FLAG_EXACT_OUT ? 'exact_out' : 'exact_in';
    const quote = quoteObject(
      { sourceAssetId, destinationAssetId, mode, amountIn, amountOut, serviceFee, partnerFee, networkFee, min, max,
        duration, standard: (flags & FLAG_STANDARD) !== 0, anonymitySet, anonymitySetLikely, delaySeconds, suggestedAmounts, issuedAtMs,
        expiresAtMs, basis: flags & FLAG_NO_TRAFFIC ? 'no_traffic' : 'measured', ...(requested ? { requested } : {}) },
      quoteId,
    );
    const request: QuoteRequestTerms = { senderAddress, recipientAddress, feeBps };
    if (feeRecipientAddress !== undefined) request.feeRecipientAddress = feeRecipientAddress;
    return { quote, request, nonce: hex(nonce), key: hex(tag), networkFeePrice: networkFeePrice === 0n ? null : networkFeePrice };
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

export { firstQuoteDifference } from './quote-difference.ts';
