import { createHash } from 'node:crypto';
import type { Address } from '@solana/kit';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { addressBytes, addressFromBytes } from './address-codec.ts';

/**
 * Synchronous program-derived addresses. kit's `getProgramDerivedAddress` is async (WebCrypto digest)
 * and round-trips every address through BigInt base58; on the order path it cost ~0.5 ms per deposit
 * account. Here the hash is node:crypto's, and the off-curve test gives the answer of the ed25519
 * decompression check kit and the runtime use without decompressing (see isOnCurve).
 */
const P = 2n ** 255n - 19n;
const MASK_255 = 2n ** 255n - 1n;
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const PDA_MARKER = Buffer.from('ProgramDerivedAddress');

/** a mod p for 0 ≤ a < 2^510, by 2^255 ≡ 19 (shifts instead of BigInt division). */
function reduce(a: bigint): bigint {
  a = (a & MASK_255) + (a >> 255n) * 19n;
  a = (a & MASK_255) + (a >> 255n) * 19n;
  return a >= P ? a - P : a;
}

/** The Jacobi symbol (a/n) for odd n > 0 and 0 ≤ a < n: binary reciprocity, no exponentiation. */
function jacobi(a: bigint, n: bigint): number {
  let t = 1;
  while (a !== 0n) {
    while ((a & 1n) === 0n) {
      a >>= 1n;
      const r = n & 7n;
      if (r === 3n || r === 5n) t = -t;
    }
    [a, n] = [n, a];
    if ((a & 3n) === 3n && (n & 3n) === 3n) t = -t;
    a %= n;
  }
  return n === 1n ? t : 0;
}

/**
 * True when 32 bytes decompress to a point of the ed25519 curve (so they cannot be a PDA). Decompression
 * solves x² = u/v with u = y² − 1, v = d·y² + 1, and succeeds exactly when u/v is a square mod p. v is
 * never 0 (−1/d is not a square), so that is when u·v is a square: a Legendre symbol, ~4× cheaper than
 * the square root decompression computes. u = 0 gives x = 0, which the encoding's sign bit must not
 * contradict. test/chain/derivations.test.ts compares it with kit on random bytes.
 */
export function isOnCurve(bytes: Uint8Array): boolean {
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? bytes[i]! & 0x7f : bytes[i]!);
  const y2 = reduce(y * y);
  const u = y2 === 0n ? P - 1n : y2 - 1n;
  if (u === 0n) return (bytes[31]! & 0x80) === 0;
  const v = reduce(D * y2 + 1n);
  return jacobi(reduce(u * v), P) === 1;
}

export function findProgramAddress(seeds: readonly Uint8Array[], programAddress: Address): [Address, number] {
  const program = addressBytes(programAddress);
  for (let bump = 255; bump >= 0; bump--) {
    const h = createHash('sha256');
    for (const s of seeds) h.update(s);
    const digest = h.update(Uint8Array.of(bump)).update(program).update(PDA_MARKER).digest();
    if (!isOnCurve(digest)) return [addressFromBytes(digest), bump];
  }
  throw new Error('no viable bump seed');
}

export function associatedTokenAddressSync(owner: Address, mint: Address, tokenProgram: Address): Address {
  return associatedTokenAddressAndBump(owner, mint, tokenProgram)[0];
}

/** The associated token account and its bump seed (the associated-token program pays for each seed tried above it). */
export function associatedTokenAddressAndBump(owner: Address, mint: Address, tokenProgram: Address): [Address, number] {
  return findProgramAddress([addressBytes(owner), addressBytes(tokenProgram), addressBytes(mint)], ASSOCIATED_TOKEN_PROGRAM_ADDRESS);
}
