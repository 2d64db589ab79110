/**
 * The record every transaction Hush signs carries in its last instruction, a memo (docs/decisions.md "The
 * chain is the record"): which order it moves money for, and enough of its terms to rebuild it from the chain
 * (whose account, which mode, which assets), readable only with the treasury seed. A store that went back in
 * time (a restored backup, a failover, a lost disk) learns from it, reading the fee payer's history, what it
 * did and forgot, and never pays it again.
 *
 * The plaintext is one fixed length whatever it holds, so the sealed memo (record-cipher.ts) is one length
 * too: nothing in a memo tells a payout from a sweep, or one order from another, to anyone without the seed.
 */

export const RECORD_KINDS = ['payout', 'refund', 'partner_payout', 'sweep', 'stray_return', 'drain', 'deposit'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];
const MODES = ['', 'exact_in', 'exact_out'] as const;

export interface ChainRecord {
  kind: RecordKind;
  /** The order's tracking id ('' when the transaction moves no one order's money: a sweep, a partner payout). */
  trackingId: string;
  /** The transfer's part of the order's payout or refund (chain_txs.meta.part). */
  part: number;
  /** The order's terms the chain does not show ('' / absent when unknown): its partner account, mode and assets. */
  accountId?: string;
  mode?: 'exact_in' | 'exact_out';
  sourceAssetId?: string;
  destinationAssetId?: string;
}

const VERSION = 1;
/** Each text field: a length byte, then up to this many ASCII characters. */
const FIELDS = [
  ['trackingId', 27],
  ['accountId', 23],
  ['sourceAssetId', 11],
  ['destinationAssetId', 11],
] as const;
const HEADER = 4;
export const RECORD_PLAINTEXT_LENGTH = HEADER + FIELDS.reduce((s, [, n]) => s + 1 + n, 0);

export class ChainRecordError extends Error {}

/** A field too long for its slot is left out (the record then cannot rebuild the order, only name it). */
export function encodeRecord(r: ChainRecord): Uint8Array {
  const kind = RECORD_KINDS.indexOf(r.kind);
  if (kind < 0) throw new ChainRecordError(`unknown record kind ${String(r.kind)}`);
  if (!Number.isInteger(r.part) || r.part < 0 || r.part > 255) throw new ChainRecordError('record part out of range');
  if (Buffer.byteLength(r.trackingId, 'ascii') > FIELDS[0][1]) throw new ChainRecordError('tracking id too long for a record');
  const out = Buffer.alloc(RECORD_PLAINTEXT_LENGTH);
  out[0] = VERSION;
  out[1] = kind;
  out[2] = r.part;
  out[3] = MODES.indexOf(r.mode ?? '');
  let at = HEADER;
  for (const [name, max] of FIELDS) {
    const text = Buffer.from(r[name] ?? '', 'ascii');
    if (text.length <= max && /^[\x21-\x7e]*$/.test(r[name] ?? '')) {
      out[at] = text.length;
      text.copy(out, at + 1);
    }
    at += 1 + max;
  }
  return out;
}

/** The record in `bytes`, or null for anything that is not one of this version's records. */
export function decodeRecord(bytes: Uint8Array): ChainRecord | null {
  if (bytes.length !== RECORD_PLAINTEXT_LENGTH || bytes[0] !== VERSION) return null;
  const kind = RECORD_KINDS[bytes[1]!];
  const mode = MODES[bytes[3]!];
  if (!kind || mode === undefined) return null;
  const text: Record<string, string> = {};
  let at = HEADER;
  for (const [name, max] of FIELDS) {
    const len = bytes[at]!;
    if (len > max) return null;
    text[name] = Buffer.from(bytes.subarray(at + 1, at + 1 + len)).toString('ascii');
    at += 1 + max;
  }
  const r: ChainRecord = { kind, trackingId: text.trackingId!, part: bytes[2]! };
  if (text.accountId) r.accountId = text.accountId;
  if (mode) r.mode = mode;
  if (text.sourceAssetId) r.sourceAssetId = text.sourceAssetId;
  if (text.destinationAssetId) r.destinationAssetId = text.destinationAssetId;
  return r;
}

/** A sweep's record: the deposit accounts it closes say whose deposits it moved. */
export const SWEEP_RECORD: ChainRecord = Object.freeze({ kind: 'sweep', trackingId: '', part: 0 });
/** A retired wallet's drain (docs/operations.md "Rotate the treasury seed"): no order's money. */
export const DRAIN_RECORD: ChainRecord = Object.freeze({ kind: 'drain', trackingId: '', part: 0 });

/**
 * The record an order's deposit transaction carries (docs/decisions.md "The deposit carries its order's record"):
 * the record's fields, then what a payout needs that the chain does not show, the recipient and amountOut. Sealed to
 * the worker's public key by the API (which holds no seed: src/treasury/deposit-record-box.ts), so a store that
 * forgot the order pays it as promised from the chain alone.
 */
export interface DepositRecord extends ChainRecord {
  kind: 'deposit';
  /** The recipient's address, 32 bytes. */
  recipient: Uint8Array;
  amountOut: bigint;
}

export const DEPOSIT_RECORD_PLAINTEXT_LENGTH = RECORD_PLAINTEXT_LENGTH + 32 + 8;

export function encodeDepositRecord(r: DepositRecord): Uint8Array {
  if (r.recipient.length !== 32) throw new ChainRecordError('a recipient is 32 bytes');
  if (r.amountOut < 0n || r.amountOut >= 2n ** 64n) throw new ChainRecordError('amountOut out of range');
  const out = Buffer.alloc(DEPOSIT_RECORD_PLAINTEXT_LENGTH);
  Buffer.from(encodeRecord(r)).copy(out, 0);
  Buffer.from(r.recipient).copy(out, RECORD_PLAINTEXT_LENGTH);
  out.writeBigUInt64LE(r.amountOut, RECORD_PLAINTEXT_LENGTH + 32);
  return out;
}

export function decodeDepositRecord(bytes: Uint8Array): DepositRecord | null {
  if (bytes.length !== DEPOSIT_RECORD_PLAINTEXT_LENGTH) return null;
  const head = decodeRecord(bytes.subarray(0, RECORD_PLAINTEXT_LENGTH));
  if (!head || head.kind !== 'deposit') return null;
  const b = Buffer.from(bytes);
  return { ...head, kind: 'deposit', recipient: new Uint8Array(b.subarray(RECORD_PLAINTEXT_LENGTH, RECORD_PLAINTEXT_LENGTH + 32)), amountOut: b.readBigUInt64LE(RECORD_PLAINTEXT_LENGTH + 32) };
}
