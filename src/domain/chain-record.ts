/**
 * The record every transaction Hush signs carries in its last instruction, a memo (docs/decisions.md "The
 * chain is the record"): which order it moves money for, readable only with the treasury seed. A store that
 * went back in time (a restored backup, a failover, a lost disk) learns from it, reading the fee payer's
 * history, what it did and forgot, and never pays it again.
 *
 * The plaintext is one fixed length whatever it holds, so the sealed memo (record-cipher.ts) is one length
 * too: nothing in a memo tells a payout from a sweep, or one order from another, to anyone without the seed.
 */

export const RECORD_KINDS = ['payout', 'refund', 'partner_payout', 'sweep', 'stray_return'] as const;
export type RecordKind = (typeof RECORD_KINDS)[number];

export interface ChainRecord {
  kind: RecordKind;
  /** The order's tracking id ('' when the transaction moves no one order's money: a sweep, a partner payout). */
  trackingId: string;
  /** The transfer's part of the order's payout or refund (chain_txs.meta.part). */
  part: number;
}

const VERSION = 1;
/** version, kind, part, tracking id length, tracking id (trk_ and 22 base58 characters, or shorter). */
const TRACKING_MAX = 27;
export const RECORD_PLAINTEXT_LENGTH = 4 + TRACKING_MAX + 1;

export class ChainRecordError extends Error {}

export function encodeRecord(r: ChainRecord): Uint8Array {
  const kind = RECORD_KINDS.indexOf(r.kind);
  if (kind < 0) throw new ChainRecordError(`unknown record kind ${String(r.kind)}`);
  const tracking = Buffer.from(r.trackingId, 'ascii');
  if (tracking.length > TRACKING_MAX) throw new ChainRecordError('tracking id too long for a record');
  if (!Number.isInteger(r.part) || r.part < 0 || r.part > 255) throw new ChainRecordError('record part out of range');
  const out = Buffer.alloc(RECORD_PLAINTEXT_LENGTH);
  out[0] = VERSION;
  out[1] = kind;
  out[2] = r.part;
  out[3] = tracking.length;
  tracking.copy(out, 4);
  return out;
}

/** The record in `bytes`, or null for anything that is not one of this version's records. */
export function decodeRecord(bytes: Uint8Array): ChainRecord | null {
  if (bytes.length !== RECORD_PLAINTEXT_LENGTH || bytes[0] !== VERSION) return null;
  const kind = RECORD_KINDS[bytes[1]!];
  const len = bytes[3]!;
  if (!kind || len > TRACKING_MAX) return null;
  const trackingId = Buffer.from(bytes.subarray(4, 4 + len)).toString('ascii');
  return { kind, trackingId, part: bytes[2]! };
}

/** A sweep's record: the deposit accounts it closes say whose deposits it moved. */
export const SWEEP_RECORD: ChainRecord = Object.freeze({ kind: 'sweep', trackingId: '', part: 0 });
