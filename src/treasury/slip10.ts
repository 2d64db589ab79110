import { createHmac } from 'node:crypto';

/**
 * SLIP-0010 ed25519 derivation (hardened only, as ed25519 allows). Written here because it is a dozen
 * lines over node:crypto's native HMAC, while the packages that offer it bring pure-JS hashing.
 */
export interface Slip10Node {
  key: Uint8Array;
  chainCode: Uint8Array;
}

const HARDENED = 0x8000_0000;

function slip10Master(seed: Uint8Array): Slip10Node {
  const I = createHmac('sha512', 'ed25519 seed').update(seed).digest();
  return { key: I.subarray(0, 32), chainCode: I.subarray(32) };
}

function slip10Child(parent: Slip10Node, index: number): Slip10Node {
  if (!Number.isInteger(index) || index < 0 || index >= HARDENED) throw new RangeError(`SLIP-0010 index out of range: ${index}`);
  const data = Buffer.alloc(37);
  data[0] = 0;
  data.set(parent.key, 1);
  data.writeUInt32BE(index + HARDENED, 33);
  const I = createHmac('sha512', parent.chainCode).update(data).digest();
  return { key: I.subarray(0, 32), chainCode: I.subarray(32) };
}

/** `m/44'/501'/…` style paths; every component is hardened. */
export function slip10Derive(seed: Uint8Array, path: readonly number[]): Slip10Node {
  return path.reduce(slip10Child, slip10Master(seed));
}
