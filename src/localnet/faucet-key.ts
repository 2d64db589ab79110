import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { createKeyPairSignerFromBytes, createKeyPairSignerFromPrivateKeyBytes, type KeyPairSigner } from '@solana/kit';
import type { Random } from '../support/random.ts';

/**
 * Loads or creates the local faucet / mint-authority key, stored like `solana-keygen` output (64-byte JSON
 * array, mode 0600); a chain kept in memory (`dir` null) draws it from `random`.
 */
export async function loadFaucetKey(dir: string | null, random: Random): Promise<KeyPairSigner> {
  if (dir === null) return createKeyPairSignerFromPrivateKeyBytes(random.bytes(32));
  const path = join(dir, 'faucet-keypair.json');
  if (!existsSync(path)) {
    const { privateKey, publicKey } = generateKeyPairSync('ed25519');
    const seed = privateKey.export({ format: 'der', type: 'pkcs8' }).subarray(-32);
    const pub = publicKey.export({ format: 'der', type: 'spki' }).subarray(-32);
    writeFileSync(path, JSON.stringify([...seed, ...pub]), { mode: 0o600 });
  }
  const bytes = new Uint8Array(JSON.parse(readFileSync(path, 'utf8')) as number[]);
  return createKeyPairSignerFromBytes(bytes);
}
