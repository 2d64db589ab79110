import bs58 from 'bs58';
import type { Address } from '@solana/kit';

/**
 * Address ⇄ 32 bytes with small memo tables: partners quote the same wallets over and over, and base58
 * conversion (quadratic) was the largest cost of issuing and opening a quote.
 */
const MAX = 50_000;
const toBytes = new Map<string, Uint8Array>();
const toText = new Map<string, Address>();

export function addressBytes(address: Address): Uint8Array {
  let b = toBytes.get(address);
  if (!b) {
    // kit's isAddress, without its BigInt base58 pass (~30 µs; two fresh addresses per order): 32–44
    // base58 characters that decode to 32 bytes.
    const decoded = typeof address === 'string' && address.length >= 32 && address.length <= 44 ? bs58.decodeUnsafe(address) : undefined;
    if (!decoded || decoded.length !== 32) throw new RangeError(`invalid address: ${address}`);
    b = decoded;
    if (toBytes.size >= MAX) toBytes.clear();
    toBytes.set(address, b);
  }
  return b;
}

export function addressFromBytes(bytes: Uint8Array): Address {
  if (bytes.length !== 32) throw new RangeError('an address is 32 bytes');
  const key = Buffer.from(bytes.buffer, bytes.byteOffset, 32).toString('latin1');
  let a = toText.get(key);
  if (!a) {
    a = bs58.encode(bytes) as Address;
    if (toText.size >= MAX) toText.clear();
    toText.set(key, a);
  }
  return a;
}
