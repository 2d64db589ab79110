import { createCipheriv, createDecipheriv } from 'node:crypto';
import { decodeRecord, encodeRecord, RECORD_PLAINTEXT_LENGTH, type ChainRecord } from '../domain/chain-record.ts';
import type { Random } from '../support/random.ts';

const NONCE = 12;
const TAG = 16;
/** base64 of nonce, ciphertext and tag: every sealed record is exactly this many characters. */
export const SEALED_RECORD_LENGTH = Math.ceil((NONCE + RECORD_PLAINTEXT_LENGTH + TAG) / 3) * 4;

/**
 * AES-256-GCM under the treasury's record key (node:crypto, no hand-written cipher): a fresh random nonce per
 * record, so two records of one order are unrelated bytes, and the tag, so a memo someone else wrote in the
 * same shape is never taken for Hush's.
 */
export function sealRecord(key: Uint8Array, record: ChainRecord, random: Random): string {
  const nonce = random.bytes(NONCE);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(encodeRecord(record)), cipher.final()]);
  return Buffer.concat([nonce, body, cipher.getAuthTag()]).toString('base64');
}

/** The record a memo holds, or null when it is not one sealed under `key`. */
export function openRecord(key: Uint8Array, memo: string): ChainRecord | null {
  if (memo.length !== SEALED_RECORD_LENGTH) return null;
  const raw = Buffer.from(memo, 'base64');
  if (raw.length !== NONCE + RECORD_PLAINTEXT_LENGTH + TAG) return null;
  try {
    const decipher = createDecipheriv('aes-256-gcm', key, raw.subarray(0, NONCE));
    decipher.setAuthTag(raw.subarray(raw.length - TAG));
    const plain = Buffer.concat([decipher.update(raw.subarray(NONCE, raw.length - TAG)), decipher.final()]);
    return decodeRecord(plain);
  } catch {
    return null;
  }
}
