import { createCipheriv, createDecipheriv, createPrivateKey, createPublicKey, diffieHellman, hkdfSync, type KeyObject } from 'node:crypto';
import { decodeDepositRecord, DEPOSIT_RECORD_PLAINTEXT_LENGTH, encodeDepositRecord, type DepositRecord } from '../domain/chain-record.ts';
import type { Random } from '../support/random.ts';

const PKCS8_X25519_PREFIX = Buffer.from('302e020100300506032b656e04220420', 'hex');
const SPKI_X25519_PREFIX = Buffer.from('302a300506032b656e032100', 'hex');
const KEY = 32;
const TAG = 16;
const INFO = Buffer.from('hush:deposit-record:v1');
/** base64 of the ephemeral public key, ciphertext and tag: every sealed deposit record is exactly this many characters. */
export const SEALED_DEPOSIT_RECORD_LENGTH = Math.ceil((KEY + DEPOSIT_RECORD_PLAINTEXT_LENGTH + TAG) / 3) * 4;

function privateKeyOf(secret: Uint8Array): KeyObject {
  return createPrivateKey({ key: Buffer.concat([PKCS8_X25519_PREFIX, secret]), format: 'der', type: 'pkcs8' });
}

function publicKeyOf(raw: Uint8Array): KeyObject {
  return createPublicKey({ key: Buffer.concat([SPKI_X25519_PREFIX, raw]), format: 'der', type: 'spki' });
}

function rawPublic(key: KeyObject): Buffer {
  return createPublicKey(key).export({ format: 'der', type: 'spki' }).subarray(-KEY);
}

/** AES-256-GCM key and nonce from the shared secret, bound to both public keys (each message has its own ephemeral key). */
function cipherKeys(shared: Buffer, ephemeral: Uint8Array, recipient: Uint8Array): { key: Buffer; nonce: Buffer } {
  const okm = Buffer.from(hkdfSync('sha256', shared, Buffer.concat([ephemeral, recipient]), INFO, 44));
  return { key: okm.subarray(0, 32), nonce: okm.subarray(32) };
}

/** The worker's public key the API seals deposit records to (published in the store: deposit_record_key). */
export function depositRecordPublicKey(secret: Uint8Array): Uint8Array {
  return new Uint8Array(rawPublic(privateKeyOf(secret)));
}

/**
 * Seals a deposit record to the worker's X25519 public key (an ECIES sealed box on node:crypto: ephemeral X25519,
 * HKDF-SHA256, AES-256-GCM): the API, which holds no seed and no secret of the worker's, can write a record only the
 * seed opens. A fresh ephemeral key per record, from `random`: two records of one order, or a deposit's and its
 * payout's, share no byte a reader could match.
 */
export function sealDepositRecord(publicKey: Uint8Array, record: DepositRecord, random: Random): string {
  const ephemeral = privateKeyOf(random.bytes(KEY));
  const ephemeralPublic = rawPublic(ephemeral);
  const shared = diffieHellman({ privateKey: ephemeral, publicKey: publicKeyOf(publicKey) });
  const { key, nonce } = cipherKeys(shared, ephemeralPublic, publicKey);
  const cipher = createCipheriv('aes-256-gcm', key, nonce);
  const body = Buffer.concat([cipher.update(encodeDepositRecord(record)), cipher.final()]);
  return Buffer.concat([ephemeralPublic, body, cipher.getAuthTag()]).toString('base64');
}

/** The deposit record a memo holds, or null when it is not one sealed to `secret`'s public key. */
export function openDepositRecord(secret: Uint8Array, memo: string): DepositRecord | null {
  if (memo.length !== SEALED_DEPOSIT_RECORD_LENGTH) return null;
  const raw = Buffer.from(memo, 'base64');
  if (raw.length !== KEY + DEPOSIT_RECORD_PLAINTEXT_LENGTH + TAG) return null;
  try {
    const ephemeralPublic = raw.subarray(0, KEY);
    const privateKey = privateKeyOf(secret);
    const shared = diffieHellman({ privateKey, publicKey: publicKeyOf(ephemeralPublic) });
    const { key, nonce } = cipherKeys(shared, ephemeralPublic, rawPublic(privateKey));
    const decipher = createDecipheriv('aes-256-gcm', key, nonce);
    decipher.setAuthTag(raw.subarray(raw.length - TAG));
    return decodeDepositRecord(Buffer.concat([decipher.update(raw.subarray(KEY, raw.length - TAG)), decipher.final()]));
  } catch {
    return null;
  }
}
