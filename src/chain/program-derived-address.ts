import { createHash } from 'node:crypto';
import bs58 from 'bs58';
import type { Address } from '@solana/kit';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { addressBytes } from '../domain/address-codec.ts';

/**
 * Synchronous program-derived addresses. kit's `getProgramDerivedAddress` is async (WebCrypto digest)
 * and round-trips every address through BigInt base58; on the order path it cost ~0.5 ms per deposit
 * account. Here the hash is node:crypto's and the off-curve test is the same ed25519 decompression check
 * kit and the runtime use, in BigInt.
 */
const P = 2n ** 255n - 19n;
const D = 37095705934669439343138083508754565189542113879843219016388785533085940283555n;
const SQRT_M1 = 19681161376707505956807079304988542015446066515923890162744021073123829784752n;
const PDA_MARKER = Buffer.from('ProgramDerivedAddress');

const mod = (a: bigint): bigint => {
  const r = a % P;
  return r >= 0n ? r : r + P;
};

function pow2k(x: bigint, k: number): bigint {
  let r = x;
  for (let i = 0; i < k; i++) r = (r * r) % P;
  return r;
}

/** x^(2^252 - 3) mod p, by the usual addition chain. */
function pow252m3(x: bigint): bigint {
  const x2 = (x * x) % P;
  const b2 = (x2 * x) % P;
  const b4 = (pow2k(b2, 2) * b2) % P;
  const b5 = (pow2k(b4, 1) * x) % P;
  const b10 = (pow2k(b5, 5) * b5) % P;
  const b20 = (pow2k(b10, 10) * b10) % P;
  const b40 = (pow2k(b20, 20) * b20) % P;
  const b80 = (pow2k(b40, 40) * b40) % P;
  const b160 = (pow2k(b80, 80) * b80) % P;
  const b240 = (pow2k(b160, 80) * b80) % P;
  const b250 = (pow2k(b240, 10) * b10) % P;
  return (pow2k(b250, 2) * x) % P;
}

/** True when 32 bytes decompress to a point of the ed25519 curve (so they cannot be a PDA). */
export function isOnCurve(bytes: Uint8Array): boolean {
  let y = 0n;
  for (let i = 31; i >= 0; i--) y = (y << 8n) | BigInt(i === 31 ? bytes[i]! & 0x7f : bytes[i]!);
  const y2 = mod(y * y);
  const u = mod(y2 - 1n);
  const v = mod(D * y2 + 1n);
  const v3 = (((v * v) % P) * v) % P;
  const v7 = (((v3 * v3) % P) * v) % P;
  let x = (((u * v3) % P) * pow252m3((u * v7) % P)) % P;
  const vx2 = (((v * x) % P) * x) % P;
  const root1 = vx2 === u;
  const root2 = vx2 === mod(-u);
  if (!root1 && !root2) return false;
  if (root2) x = (x * SQRT_M1) % P;
  // As kit: x = 0 with the sign bit set is not a valid encoding.
  return !(x === 0n && (bytes[31]! & 0x80) !== 0);
}

export function findProgramAddress(seeds: readonly Uint8Array[], programAddress: Address): [Address, number] {
  const program = addressBytes(programAddress);
  for (let bump = 255; bump >= 0; bump--) {
    const h = createHash('sha256');
    for (const s of seeds) h.update(s);
    const digest = h.update(Uint8Array.of(bump)).update(program).update(PDA_MARKER).digest();
    if (!isOnCurve(digest)) return [bs58.encode(digest) as Address, bump];
  }
  throw new Error('no viable bump seed');
}

export function associatedTokenAddressSync(owner: Address, mint: Address, tokenProgram: Address): Address {
  return findProgramAddress([addressBytes(owner), addressBytes(tokenProgram), addressBytes(mint)], ASSOCIATED_TOKEN_PROGRAM_ADDRESS)[0];
}
