import { ConfigError } from './config-error.ts';

/**
 * HUSH_ADMIN_TOKEN carries at least 32 random bytes (docs/spec.md §3), written as ≥ 64 hex characters or ≥ 43
 * base64 / base64url characters (`openssl rand -base64 32` gives 44 with its `=`). Randomness cannot be
 * proven from one value, so only the obvious failures are refused: too short, another alphabet, few
 * distinct characters, or a short pattern repeated. The value itself is never echoed: it is a secret.
 */
const HEX = /^[0-9a-fA-F]{64,}$/;
const BASE64 = /^[A-Za-z0-9+/_-]{43,}={0,2}$/;
/** A random 64-hex token shows ~16 distinct characters, a 43-char base64 one ~31; 12 fails neither in practice. */
const MIN_DISTINCT = 12;
const HOW = 'at least 32 random bytes as 64+ hex or 43+ base64/base64url characters; make one with: openssl rand -base64 32';

/** Whether the string is a shorter block repeated (e.g. "abcd1234" eight times). */
function repeatsAPattern(s: string): boolean {
  for (let p = 1; p <= s.length / 2; p++) {
    let same = true;
    for (let i = p; i < s.length && same; i++) same = s[i] === s[i - p];
    if (same) return true;
  }
  return false;
}

export function adminToken(raw: string | undefined): string | undefined {
  if (!raw) return undefined;
  if (!HEX.test(raw) && !BASE64.test(raw)) throw new ConfigError(`HUSH_ADMIN_TOKEN must be ${HOW}`);
  const body = raw.replace(/=+$/, '');
  if (new Set(body).size < MIN_DISTINCT || repeatsAPattern(body)) {
    throw new ConfigError(`HUSH_ADMIN_TOKEN looks low-entropy (few distinct characters or a repeated pattern): it must be ${HOW}`);
  }
  return raw;
}
