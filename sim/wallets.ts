import { createPrivateKey, createPublicKey, sign, type KeyObject } from 'node:crypto';
import bs58 from 'bs58';
import type { Random } from '../src/support/random.ts';

/** PKCS#8 DER prefix of a raw Ed25519 private key (RFC 8410): the 32-byte seed follows it. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * A simulated user's wallet: an Ed25519 key drawn from the run's seed, signing synchronously with node:crypto
 * (WebCrypto's signatures finish on the thread pool, in an order no seed decides).
 */
export class SimWallet {
  readonly address: string;
  readonly privateKey: KeyObject;

  constructor(seed: Uint8Array) {
    this.privateKey = createPrivateKey({ key: Buffer.concat([PKCS8_ED25519, seed]), format: 'der', type: 'pkcs8' });
    const spki = createPublicKey(this.privateKey).export({ format: 'der', type: 'spki' });
    this.address = bs58.encode(spki.subarray(spki.length - 32));
  }

  static draw(random: Random): SimWallet {
    return new SimWallet(random.bytes(32));
  }

  /**
   * Signs a base64 wire transaction whose only signer is this wallet (an order's deposit transaction): its
   * signature goes in the first slot. Returns the signed wire (base64) and its signature (base58).
   */
  signWire(base64: string): { wire: string; signature: string } {
    const bytes = Buffer.from(base64, 'base64');
    if (bytes[0] !== 1) throw new Error(`expected one signature slot, found ${bytes[0]}`);
    const message = bytes.subarray(65);
    const signature = sign(null, message, this.privateKey);
    const signed = Buffer.concat([bytes.subarray(0, 1), signature, message]);
    return { wire: signed.toString('base64'), signature: bs58.encode(signature) };
  }
}
