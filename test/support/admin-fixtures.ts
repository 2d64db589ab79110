/** What the operator-function tests share: a key's shape, how a key authenticates, temporary directories. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { HushError } from '../../src/domain/errors.ts';
import { Authenticator } from '../../src/services/authenticator.ts';
import type { Db } from '../../src/store/db.ts';
import { systemClock } from '../../src/support/clock.ts';

export const API_KEY_PATTERN = /^hush_[a-z2-7]{12}_[A-Za-z0-9_-]{43}$/;

/** `ok:<account id>` when the key authenticates (no cache), else the error's code. */
export async function authCode(db: Db, apiKey: string): Promise<string> {
  try {
    const caller = await new Authenticator(db, 0, systemClock).authenticate(`Bearer ${apiKey}`);
    return `ok:${caller.account.id}`;
  } catch (e) {
    if (e instanceof HushError) return e.code;
    throw e;
  }
}

/** Temporary directories a test file makes, all removed by `removeAll` (its `after` hook). */
export function tempDirs(prefix: string): { make(): string; removeAll(): void } {
  const made: string[] = [];
  return {
    make: () => {
      const d = mkdtempSync(join(tmpdir(), prefix));
      made.push(d);
      return d;
    },
    removeAll: () => {
      for (const d of made.splice(0)) rmSync(d, { recursive: true, force: true });
    },
  };
}
