/**
 * The treasury's key derivation holds every pool: checked against the published SLIP-0010 ed25519 vectors and
 * cross-checked with a maintained implementation (micro-key-producer, a dev dependency) on random seeds.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import fc from 'fast-check';
import bs58 from 'bs58';
import { HDKey } from 'micro-key-producer/slip10.js';
import { slip10Derive } from '../../src/treasury/slip10.ts';
import { addressOfSeed } from '../../src/treasury/treasury-keys.ts';

const H = 0x8000_0000;
const hex = (b: Uint8Array): string => Buffer.from(b).toString('hex');
/** SLIP-0010 publishes ed25519 public keys with a leading 0x00 byte. */
const publicHex = (key: Uint8Array): string => `00${hex(bs58.decode(addressOfSeed(key)))}`;

interface Vector { path: number[]; chainCode: string; key: string; publicKey: string }

// SLIP-0010, "Test vector 1 for ed25519" (https://github.com/satoshilabs/slips/blob/master/slip-0010.md).
const SEED_1 = '000102030405060708090a0b0c0d0e0f';
const VECTORS_1: Vector[] = [
  { path: [], chainCode: '90046a93de5380a72b5e45010748567d5ea02bbf6522f979e05c0d8d8ca9fffb', key: '2b4be7f19ee27bbf30c667b642d5f4aa69fd169872f8fc3059c08ebae2eb19e7', publicKey: '00a4b2856bfec510abab89753fac1ac0e1112364e7d250545963f135f2a33188ed' },
  { path: [0], chainCode: '8b59aa11380b624e81507a27fedda59fea6d0b779a778918a2fd3590e16e9c69', key: '68e0fe46dfb67e368c75379acec591dad19df3cde26e63b93a8e704f1dade7a3', publicKey: '008c8a13df77a28f3445213a0f432fde644acaa215fc72dcdf300d5efaa85d350c' },
  { path: [0, 1], chainCode: 'a320425f77d1b5c2505a6b1b27382b37368ee640e3557c315416801243552f14', key: 'b1d0bad404bf35da785a64ca1ac54b2617211d2777696fbffaf208f746ae84f2', publicKey: '001932a5270f335bed617d5b935c80aedb1a35bd9fc1e31acafd5372c30f5c1187' },
  { path: [0, 1, 2], chainCode: '2e69929e00b5ab250f49c3fb1c12f252de4fed2c1db88387094a0f8c4c9ccd6c', key: '92a5b23c0b8a99e37d07df3fb9966917f5d06e02ddbd909c7e184371463e9fc9', publicKey: '00ae98736566d30ed0e9d2f4486a64bc95740d89c7db33f52121f8ea8f76ff0fc1' },
  { path: [0, 1, 2, 2], chainCode: '8f6d87f93d750e0efccda017d662a1b31a266e4a6f5993b15f5c1f07f74dd5cc', key: '30d1dc7e5fc04c31219ab25a27ae00b50f6fd66622f6e9c913253d6511d1e662', publicKey: '008abae2d66361c879b900d204ad2cc4984fa2aa344dd7ddc46007329ac76c429c' },
  { path: [0, 1, 2, 2, 1_000_000_000], chainCode: '68789923a0cac2cd5a29172a475fe9e0fb14cd6adb5ad98a3fa70333e7afa230', key: '8f94d394a8e8fd6b1bc2f3f49f5c47e385281d5c17e65324b0f62483e37e8793', publicKey: '003c24da049451555d51a7014a37337aa4e12d41e485abccfa46b47dfb2af54b7a' },
];

test('SLIP-0010 ed25519 test vector 1: every published level', () => {
  for (const v of VECTORS_1) {
    const node = slip10Derive(Buffer.from(SEED_1, 'hex'), v.path);
    const at = `m${v.path.map((i) => `/${i}'`).join('')}`;
    assert.equal(hex(node.chainCode), v.chainCode, `${at} chain code`);
    assert.equal(hex(node.key), v.key, `${at} private key`);
    assert.equal(publicHex(node.key), v.publicKey, `${at} public key`);
  }
});

test('agrees with micro-key-producer on random seeds and hardened paths (incl. the treasury\'s m/44\'/501\'/…)', () => {
  fc.assert(
    fc.property(
      fc.uint8Array({ minLength: 16, maxLength: 64 }),
      fc.array(fc.integer({ min: 0, max: H - 1 }), { maxLength: 6 }),
      (seed, tail) => {
        for (const path of [tail, [44, 501, ...tail]]) {
          const ours = slip10Derive(seed, path);
          const theirs = HDKey.fromMasterSeed(seed).derive(`m${path.map((i) => `/${i}'`).join('')}`);
          assert.equal(hex(ours.key), hex(theirs.privateKey));
          assert.equal(hex(ours.chainCode), hex(theirs.chainCode));
          assert.equal(publicHex(ours.key), hex(theirs.publicKey));
        }
      },
    ),
    { numRuns: 300 },
  );
});

test('rejects indices that are not hardened-representable', () => {
  const seed = Buffer.from(SEED_1, 'hex');
  for (const bad of [-1, H, 1.5, Number.NaN]) assert.throws(() => slip10Derive(seed, [bad]), RangeError);
});
