import { createHmac, createPrivateKey, createPublicKey } from 'node:crypto';
import bs58 from 'bs58';
import { type Address, type KeyPairSigner } from '@solana/kit';
import { addressFromBytes } from '../domain/address-codec.ts';
import { slip10Derive } from './slip10.ts';
import { secretFileText } from './secret-file.ts';
import { RETIRED_SEED_FILE, retiredSeedLines } from './seed-rotation.ts';
import { signerFromSeed } from './seed-signer.ts';

const SOLANA = [44, 501];
const PKCS8_ED25519_PREFIX = Buffer.from('302e020100300506032b657004220420', 'hex');

function addressOfSeedPkcs8(seed: Uint8Array): Address {
  const priv = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519_PREFIX, seed]), format: 'der', type: 'pkcs8' });
  return addressFromBytes(createPublicKey(priv).export({ format: 'der', type: 'spki' }).subarray(-32));
}

const PLACEHOLDER_X = Buffer.alloc(32).toString('base64url');

/**
 * OpenSSL 3's DER decoder made a PKCS#8 import cost ~0.45 ms, most of an order's CPU. A JWK import builds
 * the key from the raw private bytes (~0.04 ms); Node requires `x` but derives the public key from `d`.
 */
function addressOfSeedJwk(seed: Uint8Array): Address {
  const jwk = createPrivateKey({ key: { kty: 'OKP', crv: 'Ed25519', d: Buffer.from(seed).toString('base64url'), x: PLACEHOLDER_X }, format: 'jwk' }).export({ format: 'jwk' });
  return addressFromBytes(Buffer.from(jwk.x!, 'base64url'));
}

/** The JWK path only if this runtime derives the same key as PKCS#8 does (a later Node may validate `x`). */
const fastPathAgrees = ((): boolean => {
  const probe = createHmac('sha256', 'hush:jwk-probe').digest();
  try {
    return addressOfSeedJwk(probe) === addressOfSeedPkcs8(probe);
  } catch {
    return false;
  }
})();

/** Public key of an ed25519 private seed, synchronously (native), for addresses on the request path. */
export function addressOfSeed(seed: Uint8Array): Address {
  return fastPathAgrees ? addressOfSeedJwk(seed) : addressOfSeedPkcs8(seed);
}

export function depositOwnerSeedOf(depositMaster: Uint8Array, trackingId: string): Uint8Array {
  return createHmac('sha256', depositMaster).update(`deposit:${trackingId}`).digest();
}

/**
 * Every Hush key comes from one master secret:
 *   m/44'/501'/0'/0'            common fee payer
 *   m/44'/501'/1'/<asset>'/<n>' pool wallet n of an asset
 *   m/44'/501'/2'               deposit master; an order's deposit owner is HMAC(deposit master, trackingId)
 *   m/44'/501'/3'               quote MAC key
 *   m/44'/501'/5'               record key: seals the record in every transaction Hush signs (chain-record.ts)
 *   m/44'/501'/6'               deposit record secret: X25519, opens the records the API seals into deposits
 * Per-order owners use a keyed hash of the trackingId rather than a numeric path so they can be derived
 * before the order has a database row, yet only the holder of the seed can derive them.
 */
export class TreasuryKeys {
  private readonly depositMaster: Uint8Array;
  readonly quoteMacKey: Uint8Array;
  /** Keys the public webhook event ids (see WebhookDispatcher). */
  readonly eventIdKey: Uint8Array;
  /** Seals and opens the records Hush's transactions carry (record-cipher.ts). */
  readonly recordKey: Uint8Array;
  /** Opens the records deposits carry (deposit-record-box.ts); its public half is published for the API. */
  readonly depositRecordSecret: Uint8Array;

  constructor(private readonly seed: Uint8Array) {
    if (seed.length < 32) throw new Error('treasury seed must be at least 32 bytes');
    this.depositMaster = slip10Derive(seed, [...SOLANA, 2]).key;
    this.quoteMacKey = slip10Derive(seed, [...SOLANA, 3]).key;
    this.eventIdKey = slip10Derive(seed, [...SOLANA, 4]).key;
    this.recordKey = slip10Derive(seed, [...SOLANA, 5]).key;
    this.depositRecordSecret = slip10Derive(seed, [...SOLANA, 6]).key;
  }

  feePayerSeed(): Uint8Array {
    return slip10Derive(this.seed, [...SOLANA, 0, 0]).key;
  }

  poolSeed(assetIndex: number, n: number): Uint8Array {
    return slip10Derive(this.seed, [...SOLANA, 1, assetIndex, n]).key;
  }

  depositOwnerSeed(trackingId: string): Uint8Array {
    return depositOwnerSeedOf(this.depositMaster, trackingId);
  }

  /** For the deposit-identity worker thread, which derives owners ahead of orders. */
  get depositMasterKey(): Uint8Array {
    return this.depositMaster;
  }

  depositOwnerAddress(trackingId: string): Address {
    return addressOfSeed(this.depositOwnerSeed(trackingId));
  }

  static signer(seed: Uint8Array): Promise<KeyPairSigner> {
    return signerFromSeed(seed);
  }

  toJSON() {
    return '[TreasuryKeys]';
  }
}

/** A seed as an operator writes it: hex or base58, at least 32 bytes. */
export function parseSeed(text: string, name = 'TREASURY_SEED'): Uint8Array {
  const s = text.trim();
  const bytes = /^[0-9a-fA-F]+$/.test(s) && s.length % 2 === 0 ? Buffer.from(s, 'hex') : Buffer.from(bs58.decodeUnsafe(s) ?? []);
  if (bytes.length < 32) throw new Error(`${name} must encode at least 32 bytes (hex or base58)`);
  return new Uint8Array(bytes);
}

/** TREASURY_SEED (hex or base58, ≥ 32 bytes) or, in embedded mode, a generated file under DATA_DIR (mode 0600). */
export function loadTreasurySeed(opts: { treasurySeed?: string; dataDir: string }): Uint8Array {
  if (opts.treasurySeed) return parseSeed(opts.treasurySeed);
  return new Uint8Array(Buffer.from(secretFileText(opts.dataDir, 'treasury-seed').text.trim(), 'hex'));
}

/**
 * The seeds rotated away from (docs/operations.md "Rotate the treasury seed"): TREASURY_RETIRED_SEEDS with
 * TREASURY_SEED, else in embedded mode DATA_DIR/treasury-seed-retired, one hex seed a line (seed-rotation.ts).
 */
export function loadRetiredSeeds(opts: { treasurySeed?: string; retiredSeeds?: string[]; dataDir: string }): Uint8Array[] {
  if (opts.treasurySeed) return (opts.retiredSeeds ?? []).map((s) => parseSeed(s, 'TREASURY_RETIRED_SEEDS'));
  return retiredSeedLines(opts.dataDir).map((s) => parseSeed(s, `${RETIRED_SEED_FILE} (DATA_DIR)`));
}
