import { parseQuoteKey } from '../config/key-custody.ts';
import { secretFileText } from './secret-file.ts';

/** Where embedded mode keeps a generated quote key (mode 0600), beside the PGlite store. */
const QUOTE_KEY_FILE = 'quote-key';

/**
 * The key of the quote MAC and the deposit budget draws: a secret of its own, so the process that answers
 * partners needs no treasury seed (no signing key derives from it, and it derives none). HUSH_QUOTE_KEY,
 * else `DATA_DIR/quote-key`, generated at first start. Every process answering quotes of one deployment
 * needs the same key (config refuses role api on a shared store without HUSH_QUOTE_KEY).
 */
export function loadQuoteKey(opts: { quoteKey?: string; dataDir: string }): Uint8Array {
  if (opts.quoteKey) {
    const key = parseQuoteKey(opts.quoteKey);
    // loadConfig already refused a malformed value; this guards other callers.
    if (!key) throw new Error('HUSH_QUOTE_KEY must encode at least 32 bytes (hex or base64)');
    return key;
  }
  const { path, text } = secretFileText(opts.dataDir, QUOTE_KEY_FILE);
  const key = parseQuoteKey(text);
  if (!key) throw new Error(`${path} must hold at least 32 bytes in hex`);
  return key;
}
