import { KeyObject, sign as ed25519Sign } from 'node:crypto';
import { promisify } from 'node:util';
import bs58 from 'bs58';
import { AccountRole, getAddressComparator, type Address, type Instruction, type KeyPairSigner } from '@solana/kit';
import { addressBytes } from '../domain/address-codec.ts';

/**
 * The compile, sign and encode steps of a legacy-free (v0, no lookup tables) transaction, producing the
 * very bytes kit's `signTransactionMessageWithSigners` + `getBase64EncodedWireTransaction` produce for the
 * same fee payer, instructions and blockhash (test/chain/fast-transaction.test.ts compares them), at a
 * fraction of the CPU: kit's codec pipeline and async WebCrypto per signature cost ~0.6 ms per payout,
 * which a burst of payouts pays on the worker's one event loop. Same account order (fee payer, then
 * signers, then writable, then kit's address comparator), same header, same Ed25519 signatures (the
 * scheme is deterministic; node:crypto signs with the very key kit would use). Signatures are made on
 * libuv's thread pool (node:crypto's callback form): a burst's ~70 µs of signing per payout then runs on
 * the other core while the event loop compiles the next one and writes the store.
 */

/**
 * Where signatures are made: on libuv's thread pool (production: the other core signs while the event loop
 * works), or on the event loop itself, for a host that must decide the order of every event (the simulator:
 * a signature finishing on another thread lands in an order no seed decides).
 */
export type SigningThread = 'thread-pool' | 'event-loop';

const signOnPool = promisify(ed25519Sign) as (algorithm: null, data: Uint8Array, key: KeyObject) => Promise<Buffer>;

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

export interface CompiledMessage {
  /** The v0 message bytes (what signatures sign). */
  message: Buffer;
  /** Signer addresses in signature order (fee payer first). */
  signers: Address[];
}

// Module-level, not per call: under tsx (keepNames) every closure made per call also pays a defineProperty.
function isSigner(role: number): boolean {
  return (role & 2) !== 0;
}
function isWritable(role: number): boolean {
  return (role & 1) !== 0;
}

/**
 * kit's compile of a v0 message without lookup tables, byte for byte: fee payer, then signers, then
 * writable accounts, each group in kit's address order; null for shapes kit would refuse (a writable or
 * signing program) or more than 256 accounts.
 */
export function compileMessage(feePayer: Address, instructions: readonly Instruction[], blockhash: string): CompiledMessage | null {
  const roles = new Map<string, number>([[feePayer, AccountRole.WRITABLE_SIGNER]]);
  for (const ix of instructions) {
    for (const meta of ix.accounts ?? []) roles.set(meta.address, (roles.get(meta.address) ?? 0) | meta.role);
  }
  for (const ix of instructions) {
    const role = roles.get(ix.programAddress);
    // kit refuses a writable or fee-paying program; leave such odd shapes to it.
    if (role !== undefined && (role & 1) !== 0) return null;
    if (role === undefined) roles.set(ix.programAddress, AccountRole.READONLY);
  }
  comparator ??= getAddressComparator();
  const rest = [...roles.entries()].filter(([a]) => a !== feePayer);
  rest.sort(([a, ra], [b, rb]) => {
    if (isSigner(ra) !== isSigner(rb)) return isSigner(ra) ? -1 : 1;
    if (isWritable(ra) !== isWritable(rb)) return isWritable(ra) ? -1 : 1;
    return comparator!(a, b);
  });
  const ordered: [string, number][] = [[feePayer, AccountRole.WRITABLE_SIGNER], ...rest];
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
    ...ordered.map(([a]) => addressBytes(a as Address)),
    addressBytes(blockhash as Address),
    Uint8Array.from(tail),
    ...datas,
    Uint8Array.of(0), // no address table lookups
  ]);
  return { message, signers: ordered.slice(0, numSigners).map(([a]) => a as Address) };
}

/** The wire transaction: the signature count, the signatures (64 zero bytes for a missing one), the message. */
export function wireTransaction(compiled: CompiledMessage, signatures: (Uint8Array | null)[]): Buffer {
  const count: number[] = [];
  shortVec(compiled.signers.length, count);
  return Buffer.concat([Uint8Array.from(count), ...compiled.signers.map((_, i) => signatures[i] ?? new Uint8Array(64)), compiled.message]);
}

/**
 * Compiles, signs and encodes; null when some signer's key is not usable here (kit's path then).
 * Every signer must be attached to its account meta (as kit's instruction builders do) or be the fee payer.
 */
export async function compileAndSign(feePayer: KeyPairSigner, instructions: readonly Instruction[], blockhash: string, on: SigningThread = 'thread-pool'): Promise<FastSigned | null> {
  const signers = new Map<string, KeyPairSigner>([[feePayer.address, feePayer]]);
  for (const ix of instructions) {
    for (const meta of ix.accounts ?? []) {
      const signer = (meta as { signer?: KeyPairSigner }).signer;
      if (signer && !signers.has(meta.address)) signers.set(meta.address, signer);
    }
  }
  const compiled = compileMessage(feePayer.address, instructions, blockhash);
  if (!compiled) return null;
  const keys: KeyObject[] = [];
  for (const a of compiled.signers) {
    const signer = signers.get(a);
    const k = signer ? nativeKey(signer) : null;
    if (!k) return null;
    keys.push(k);
  }
  const signatures = on === 'thread-pool' ? await Promise.all(keys.map((k) => signOnPool(null, compiled.message, k))) : keys.map((k) => ed25519Sign(null, compiled.message, k));
  return { signature: bs58.encode(signatures[0]!), wire: wireTransaction(compiled, signatures).toString('base64') };
}
