import { KeyObject, sign } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { signerFromSeed } from './seed-signer.ts';
import { parseQuoteKey } from '../config/key-custody.ts';
import { secretFileText } from './secret-file.ts';

/** Where embedded mode keeps a generated receipt key (mode 0600), beside the store. */
const RECEIPT_KEY_FILE = 'receipt-key';

/** The key disclosure receipts are signed with (docs/spec.md §12): its own, never a treasury key. */
export interface ReceiptKey {
  /** The public key, base58: what receipts name and GET /transfer/v1/receipt-keys publishes. */
  keyId: string;
  /** An Ed25519 signature of `bytes`, base58. */
  sign(bytes: Uint8Array): Promise<string>;
}

/**
 * HUSH_RECEIPT_KEY (32+ bytes, hex or base64: the first 32 are the Ed25519 seed), else
 * `DATA_DIR/receipt-key`, generated at first start. Held by the roles that settle (worker, all), which
 * sign each final order's receipt once; the API only serves what they signed. Rotation: start the workers
 * with a new key; receipts already signed keep naming the old one, which stays published.
 */
export async function loadReceiptKey(opts: { receiptKey?: string; dataDir: string }): Promise<ReceiptKey> {
  const text = opts.receiptKey ?? secretFileText(opts.dataDir, RECEIPT_KEY_FILE).text;
  const bytes = parseQuoteKey(text);
  if (!bytes) throw new Error(opts.receiptKey ? 'HUSH_RECEIPT_KEY must encode at least 32 bytes (hex or base64)' : `${RECEIPT_KEY_FILE} in DATA_DIR must hold at least 32 bytes in hex`);
  const signer = await signerFromSeed(bytes.subarray(0, 32));
  const key = KeyObject.from(signer.keyPair.privateKey);
  const base58 = getBase58Decoder();
  return {
    keyId: signer.address,
    // node:crypto signs on the event loop (~50 µs), where WebCrypto's signature finished on the thread pool in an
    // order no simulated seed decides.
    sign: async (message) => base58.decode(sign(null, message, key)),
  };
}
