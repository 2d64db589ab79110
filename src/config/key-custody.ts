import { ConfigError } from './config-error.ts';
import type { Role } from './role.ts';

/**
 * TREASURY_SEED and HUSH_QUOTE_KEY by role (docs/spec.md §10, key custody). The process facing partners
 * (role api) must not hold the seed: its environment is refused rather than scrubbed, because deleting a
 * variable from process.env leaves the original environment block (/proc/<pid>/environ) in memory, and
 * an operator who put it there must hear of it. Values are never echoed: they are secrets.
 */
export function keyCustodySettings(env: NodeJS.ProcessEnv, role: Role): { treasurySeed?: string; retiredSeeds?: string[]; quoteKey?: string; receiptKey?: string } {
  const treasurySeed = env.TREASURY_SEED || undefined;
  // docs/operations.md "Rotate the treasury seed": the seeds rotated away from, held until their wallets are drained.
  const retiredSeeds = (env.TREASURY_RETIRED_SEEDS ?? '').split(',').map((s) => s.trim()).filter((s) => s !== '');
  if (role === 'api' && retiredSeeds.length > 0) {
    throw new ConfigError('TREASURY_RETIRED_SEEDS is set for HUSH_ROLE=api: the process facing partners must not hold any treasury seed; remove it from this process\'s environment (only workers need it)');
  }
  if (retiredSeeds.length > 0 && !treasurySeed) {
    throw new ConfigError('TREASURY_RETIRED_SEEDS needs TREASURY_SEED: the seed that takes over (with the default seed file, rotate with npm run treasury:rotate)');
  }
  const quoteKey = env.HUSH_QUOTE_KEY || undefined;
  if (role === 'api' && treasurySeed) {
    throw new ConfigError('TREASURY_SEED is set for HUSH_ROLE=api: the process facing partners must not hold the treasury seed; remove it from this process\'s environment (only workers need it)');
  }
  // docs/spec.md §12: receipts are signed where orders settle; the process facing partners only serves them.
  const receiptKey = env.HUSH_RECEIPT_KEY || undefined;
  if (role === 'api' && receiptKey) {
    throw new ConfigError('HUSH_RECEIPT_KEY is set for HUSH_ROLE=api: the process facing partners holds no signing key; remove it from this process\'s environment (workers sign receipts)');
  }
  if (receiptKey && !parseQuoteKey(receiptKey)) throw new ConfigError('HUSH_RECEIPT_KEY must encode at least 32 bytes, hex or base64 (e.g. openssl rand -hex 32)');
  if (quoteKey && !parseQuoteKey(quoteKey)) throw new ConfigError('HUSH_QUOTE_KEY must encode at least 32 bytes, hex or base64 (e.g. openssl rand -hex 32)');
  // Every API of a shared store must verify the quotes the others issued: a key per data dir would not.
  if (role === 'api' && env.DATABASE_URL && !quoteKey) {
    throw new ConfigError('HUSH_ROLE=api on a shared store (DATABASE_URL) needs HUSH_QUOTE_KEY, the same on every API process (e.g. openssl rand -hex 32)');
  }
  return { treasurySeed, ...(retiredSeeds.length > 0 ? { retiredSeeds } : {}), quoteKey, ...(receiptKey ? { receiptKey } : {}) };
}

/** HUSH_QUOTE_KEY: hex or base64 (standard or url-safe) of at least 32 bytes; null when it is neither. */
export function parseQuoteKey(raw: string): Uint8Array | null {
  const s = raw.trim();
  const bytes = /^[0-9a-fA-F]+$/.test(s) && s.length % 2 === 0
    ? Buffer.from(s, 'hex')
    : /^[A-Za-z0-9+/_-]+={0,2}$/.test(s) ? Buffer.from(s, s.includes('-') || s.includes('_') ? 'base64url' : 'base64') : null;
  return bytes && bytes.length >= 32 ? new Uint8Array(bytes) : null;
}
