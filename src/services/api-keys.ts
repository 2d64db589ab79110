import { createHash, timingSafeEqual } from 'node:crypto';
import type { Random } from '../support/random.ts';

const BASE32 = 'abcdefghijklmnopqrstuvwxyz234567';
const KEY_PATTERN = /^hush_([a-z2-7]{12})_([A-Za-z0-9_-]{43})$/;

export interface IssuedApiKey {
  keyId: string;
  apiKey: string;
  secretHash: Uint8Array;
}

/** `hush_<keyId>_<secret>`: keyId 12 lowercase base32 chars, secret 32 random bytes base64url (docs/spec.md §3). */
export function generateApiKey(random: Random): IssuedApiKey {
  let keyId = '';
  for (let i = 0; i < 12; i++) keyId += BASE32[random.int(32)];
  const secret = random.bytes(32).toString('base64url');
  return { keyId, apiKey: `hush_${keyId}_${secret}`, secretHash: hashSecret(secret) };
}

export function parseApiKey(apiKey: string): { keyId: string; secret: string } | null {
  const m = KEY_PATTERN.exec(apiKey);
  return m ? { keyId: m[1]!, secret: m[2]! } : null;
}

/** What the store keeps of a secret (a key's, an operator token's, a console session's): its sha256. */
export function hashSecret(secret: string): Buffer {
  return createHash('sha256').update(secret).digest();
}

/** Constant-time comparison of the presented secret's hash with the stored one. */
export function secretMatches(secret: string, storedHash: Uint8Array): boolean {
  const h = hashSecret(secret);
  return h.length === storedHash.length && timingSafeEqual(h, storedHash);
}
