import { createPrivateKey, createPublicKey } from 'node:crypto';
import { partiallySignTransaction, signBytes, type Address, type KeyPairSigner, type SignatureBytes } from '@solana/kit';
import bs58 from 'bs58';

/** PKCS#8 DER prefix of a raw Ed25519 private key (RFC 8410): the 32-byte seed follows it. */
const PKCS8_ED25519 = Buffer.from('302e020100300506032b657004220420', 'hex');

/**
 * kit's KeyPairSigner for a 32-byte Ed25519 seed, made without the thread pool: kit's own
 * (`createKeyPairSignerFromPrivateKeyBytes`) exports the public key through WebCrypto, a job on libuv's
 * thread pool, so a worker deriving a deposit owner's signer for a sweep waited on it, in an order no
 * simulated seed decides. Here the public key comes from node:crypto and the keys are imported (WebCrypto's
 * imports are done on the event loop); the signer is the same object kit builds (its address, key pair and
 * the two signing functions, which Hush's own fast path bypasses: src/chain/fast-transaction.ts).
 */
export async function signerFromSeed(seed: Uint8Array): Promise<KeyPairSigner> {
  const der = Buffer.concat([PKCS8_ED25519, seed]);
  const spki = createPublicKey(createPrivateKey({ key: der, format: 'der', type: 'pkcs8' })).export({ format: 'der', type: 'spki' });
  const raw = spki.subarray(spki.length - 32);
  const [privateKey, publicKey] = await Promise.all([
    crypto.subtle.importKey('pkcs8', der, 'Ed25519', false, ['sign']),
    crypto.subtle.importKey('raw', raw, 'Ed25519', true, ['verify']),
  ]);
  const address = bs58.encode(raw) as Address;
  const keyPair = { privateKey, publicKey } as CryptoKeyPair;
  return Object.freeze({
    address,
    keyPair,
    signMessages: (messages) =>
      Promise.all(messages.map(async (m) => Object.freeze({ [address]: (await signBytes(privateKey, m.content)) as SignatureBytes }))),
    signTransactions: (transactions) => Promise.all(transactions.map(async (t) => Object.freeze({ [address]: (await partiallySignTransaction([keyPair], t)).signatures[address]! }))),
  } as KeyPairSigner);
}
