import bs58 from 'bs58';
import type { Address } from '@solana/kit';

/**
 * Base58 is quadratic and shows up first in the RPC hot path, yet the same few hundred addresses repeat
 * across transactions; these caches make each distinct address cost one conversion.
 */
const MAX_ENTRIES = 200_000;
const toText = new Map<string, Address>();
const toBytes = new Map<string, Uint8Array>();

function bytesKey(bytes: Uint8Array): string {
  return Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('latin1');
}

/** 32 bytes in base58 are an address by definition: the one place the localnet brands one. */
export function addressToText(bytes: Uint8Array): Address {
  const key = bytesKey(bytes);
  let s = toText.get(key);
  if (s === undefined) {
    if (toText.size >= MAX_ENTRIES) toText.clear();
    s = bs58.encode(bytes) as Address;
    toText.set(key, s);
  }
  return s;
}

export function addressToBytes(text: string): Uint8Array {
  let b = toBytes.get(text);
  if (b === undefined) {
    if (toBytes.size >= MAX_ENTRIES) toBytes.clear();
    b = bs58.decode(text);
    toBytes.set(text, b);
  }
  return b;
}

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const CHUNK = 58n ** 8n;

/**
 * Base58 of a one-off value (a signature): native BigInt division by 58^8, then eight digits per chunk in
 * plain numbers — about twice as fast as the byte-wise algorithm for 64 bytes.
 */
export function base58Encode(bytes: Uint8Array): string {
  let zeros = 0;
  while (zeros < bytes.length && bytes[zeros] === 0) zeros++;
  if (zeros === bytes.length) return '1'.repeat(zeros);
  let n = BigInt(`0x${Buffer.from(bytes.buffer, bytes.byteOffset, bytes.byteLength).toString('hex')}`);
  let out = '';
  while (n > 0n) {
    let r = Number(n % CHUNK);
    n /= CHUNK;
    for (let i = 0; i < 8 && (n > 0n || r > 0); i++) {
      out = ALPHABET[r % 58] + out;
      r = Math.floor(r / 58);
    }
  }
  return '1'.repeat(zeros) + out;
}
export const base58Decode = (text: string): Uint8Array => bs58.decode(text);
