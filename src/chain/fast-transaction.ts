import { KeyObject, sign as ed25519Sign } from 'node:crypto';
import { AccountRole, getAddressComparator, type Instruction, type KeyPairSigner } from '@solana/kit';

/**
 * The compile, sign and encode steps of a legacy-free (v0, no lookup tables) transaction, producing the
 * very bytes kit's `signTransactionMessageWithSigners` + `getBase64EncodedWireTransaction` produce for the
 * same fee payer, instructions and blockhash (test/chain/fast-transaction.test.ts compares them), at a
 * fraction of the CPU: kit's codec pipeline and async WebCrypto per signature cost ~0.6 ms per payout,
 * which a burst of payouts pays on the worker's one event loop. Same account order (fee payer, then
 * signers, then writable, then kit's address comparator), same header, same Ed25519 signatures (the
 * scheme is deterministic; node:crypto signs synchronously with the very key kit would use).
 */

const ALPHABET = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';
const INDEX = new Map([...ALPHABET].map((c, i) => [c, i]));

/** Base58 → bytes (fixed length, as addresses and blockhashes are 32 bytes). */
function base58Bytes(s: string, length: number): Uint8Array {
  const out = new Uint8Array(length);
  for (const ch of s) {
    let carry = INDEX.get(ch);
    if (carry === undefined) throw new Error(`not base58: ${s}`);
    for (let i = length - 1; i >= 0; i--) {
      carry += out[i]! * 58;
      out[i] = carry & 0xff;
      carry >>= 8;
    }
    if (carry !== 0) throw new Error(`base58 value too long: ${s}`);
  }
  return out;
}

/** Bytes → base58 (leading zero bytes as '1's, as everywhere in Solana). */
export function base58String(bytes: Uint8Array): string {
  const digits: number[] = [];
  for (const byte of bytes) {
    let carry = byte;
    for (let i = 0; i < digits.length; i++) {
      carry += digits[i]! << 8;
      digits[i] = carry % 58;
      carry = (carry / 58) | 0;
    }
    while (carry > 0) {
      digits.push(carry % 58);
      carry = (carry / 58) | 0;
    }
  }
  let out = '';
  for (let i = 0; i < bytes.length && bytes[i] === 0; i++) out += '1';
  for (let i = digits.length - 1; i >= 0; i--) out += ALPHABET[digits[i]!];
  return out;
}

/** Recently used addresses (pools, programs, mints, the fee payer come back all the time). */
const ADDRESS_CACHE_MAX = 20_000;
const addressBytes = new Map<string, Uint8Array>();
function addressOf(a: string): Uint8Array {
  let b = addressBytes.get(a);
  if (!b) {
    b = base58Bytes(a, 32);
    if (addressBytes.size >= ADDRESS_CACHE_MAX) addressBytes.clear();
    addressBytes.set(a, b);
  }
  return b;
}

const privateKeys = new WeakMap<CryptoKey, KeyObject | null>();
/** The node:crypto handle of a signer's key; null when it is not a native WebCrypto Ed25519 key. */
function nativeKey(signer: KeyPairSigner): KeyObject | null {
  const key = signer.keyPair?.privateKey;
  if (!key) return null;
  let k = privateKeys.get(key);
  if (k === undefined) {
    try {
      k = KeyObject.from(key);
      if (k.asymmetricKeyType !== 'ed25519') k = null;
    } catch {
      k = null;
    }
    privateKeys.set(key, k);
  }
  return k;
}

function shortVec(n: number, out: number[]): void {
  for (;;) {
    let b = n & 0x7f;
    n >>= 7;
    if (n === 0) return void out.push(b);
    b |= 0x80;
    out.push(b);
  }
}

let comparator: ((a: string, b: string) => number) | undefined;

export interface FastSigned {
  signature: string;
  wire: string;
}

/**
 * Compiles, signs and encodes; null when some signer's key is not usable here (kit's path then).
 * Every signer must be attached to its account meta (as kit's instruction builders do) or be the fee payer.
 */
export function compileAndSign(feePayer: KeyPairSigner, instructions: readonly Instruction[], blockhash: string): FastSigned | null {
  const roles = new Map<string, number>([[feePayer.address, AccountRole.WRITABLE_SIGNER]]);
  const signers = new Map<string, KeyPairSigner>([[feePayer.address, feePayer]]);
  for (const ix of instructions) {
    for (const meta of ix.accounts ?? []) {
      roles.set(meta.address, (roles.get(meta.address) ?? 0) | meta.role);
      const signer = (meta as { signer?: KeyPairSigner }).signer;
      if (signer && !signers.has(meta.address)) signers.set(meta.address, signer);
    }
  }
  for (const ix of instructions) {
    const role = roles.get(ix.programAddress);
    // kit refuses a writable or fee-paying program; leave such odd shapes to it.
    if (role !== undefined && (role & 1) !== 0) return null;
    if (role === undefined) roles.set(ix.programAddress, AccountRole.READONLY);
  }
  comparator ??= getAddressComparator();
  const isSigner = (r: number) => (r & 2) !== 0;
  const isWritable = (r: number) => (r & 1) !== 0;
  const rest = [...roles.entries()].filter(([a]) => a !== feePayer.address);
  rest.sort(([a, ra], [b, rb]) => {
    if (isSigner(ra) !== isSigner(rb)) return isSigner(ra) ? -1 : 1;
    if (isWritable(ra) !== isWritable(rb)) return isWritable(ra) ? -1 : 1;
    return comparator!(a, b);
  });
  const ordered: [string, number][] = [[feePayer.address, AccountRole.WRITABLE_SIGNER], ...rest];
  if (ordered.length > 256) return null;
  let numSigners = 0;
  let readonlySigners = 0;
  let readonlyNonSigners = 0;
  for (const [, r] of ordered) {
    if (isSigner(r)) {
      numSigners++;
      if (!isWritable(r)) readonlySigners++;
    } else if (!isWritable(r)) readonlyNonSigners++;
  }
  const keys: KeyObject[] = [];
  for (const [a] of ordered.slice(0, numSigners)) {
    const signer = signers.get(a);
    const k = signer ? nativeKey(signer) : null;
    if (!k) return null;
    keys.push(k);
  }
  const index = new Map(ordered.map(([a], i) => [a, i]));
  const head: number[] = [0x80, numSigners, readonlySigners, readonlyNonSigners];
  shortVec(ordered.length, head);
  const tail: number[] = [];
  shortVec(instructions.length, tail);
  const datas: Uint8Array[] = [];
  for (const ix of instructions) {
    const part: number[] = [index.get(ix.programAddress)!];
    const accounts = ix.accounts ?? [];
    shortVec(accounts.length, part);
    for (const m of accounts) part.push(index.get(m.address)!);
    const data = ix.data ?? new Uint8Array(0);
    shortVec(data.length, part);
    datas.push(Uint8Array.from(part), data as Uint8Array);
  }
  const message = Buffer.concat([
    Uint8Array.from(head),
    ...ordered.map(([a]) => addressOf(a)),
    addressOf(blockhash),
    Uint8Array.from(tail),
    ...datas,
    Uint8Array.of(0), // no address table lookups
  ]);
  const sigCount: number[] = [];
  shortVec(numSigners, sigCount);
  const signatures = keys.map((k) => ed25519Sign(null, message, k));
  const wire = Buffer.concat([Uint8Array.from(sigCount), ...signatures, message]);
  return { signature: base58String(signatures[0]!), wire: wire.toString('base64') };
}
