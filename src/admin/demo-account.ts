/** The embedded-mode demo partner (docs/spec.md §3): its account, key and fee recipient, kept in DATA_DIR. */
import { chmod, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { createKeyPairSignerFromBytes, generateKeyPairSigner, writeKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { isHushError } from '../domain/errors.ts';
import { findApiKey, getAccountByName } from '../store/accounts-store.ts';
import type { Db, Queryable } from '../store/db.ts';
import { parseApiKey, secretMatches } from '../services/api-keys.ts';
import { AdminService } from './admin-service.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

const DEMO_ACCOUNT_NAME = 'demo';
export const DEMO_ACCOUNT_FILE = 'demo-account.json';
export const DEMO_FEE_RECIPIENT_FILE = 'demo-fee-recipient.json';

export interface DemoAccount {
  accountId: string;
  apiKey: string;
  feeRecipientAddress: string;
}

/**
 * True when `apiKey` is a well-formed key of `accountId` that is stored, unrevoked, unexpired and whose
 * secret matches. The account's status is not considered.
 */
export async function apiKeyIsValid(db: Queryable, apiKey: unknown, accountId: string, now: Date): Promise<boolean> {
  const parsed = typeof apiKey === 'string' ? parseApiKey(apiKey) : null;
  if (!parsed) return false;
  const key = await findApiKey(db, parsed.keyId);
  return (
    key !== null &&
    key.accountId === accountId &&
    key.revokedAt === null &&
    (key.expiresAt === null || key.expiresAt.getTime() > now.getTime()) &&
    secretMatches(parsed.secret, key.secretHash)
  );
}

async function readJsonFile(path: string): Promise<unknown> {
  try {
    return JSON.parse(await readFile(path, 'utf8'));
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === 'ENOENT' || e instanceof SyntaxError) return undefined;
    throw e;
  }
}

/** The demo fee recipient's key pair, kept in `$DATA_DIR/demo-fee-recipient.json` (solana-keygen format, 0600). */
async function demoFeeRecipient(dataDir: string): Promise<KeyPairSigner> {
  const path = join(dataDir, DEMO_FEE_RECIPIENT_FILE);
  for (let attempt = 0; attempt < 2; attempt++) {
    let raw: string | undefined;
    try {
      raw = await readFile(path, 'utf8');
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'ENOENT') throw e;
    }
    if (raw !== undefined) {
      let bytes: unknown;
      try {
        bytes = JSON.parse(raw);
      } catch {
        bytes = undefined;
      }
      if (!Array.isArray(bytes) || bytes.length !== 64 || !bytes.every((b) => Number.isInteger(b) && b >= 0 && b <= 255)) {
        // Never overwrite a key file we cannot read: it might hold funds.
        throw new Error(`${path} is not a 64-byte key pair file; move it away to let Hush generate a new demo fee recipient`);
      }
      return createKeyPairSignerFromBytes(Uint8Array.from(bytes as number[]));
    }
    const signer = await generateKeyPairSigner(true);
    try {
      await writeKeyPairSigner(signer, path); // mode 0600, refuses to overwrite
      return signer;
    } catch (e) {
      if ((e as NodeJS.ErrnoException).code !== 'EEXIST') throw e;
      // Another starter wrote it first: read theirs.
    }
  }
  throw new Error(`could not create ${path}`);
}

/** Writes `data` as JSON to `path` with mode 0600, atomically (temp file + rename). */
async function writeSecretJson(path: string, data: unknown, random: Random): Promise<void> {
  const tmp = `${path}.${random.bytes(6).toString('hex')}.tmp`;
  try {
    await writeFile(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600, flag: 'wx' });
    await chmod(tmp, 0o600);
    await rename(tmp, path);
  } catch (e) {
    await rm(tmp, { force: true });
    throw e;
  }
}

/**
 * Embedded mode's ready demo partner: an account named `demo` with an active key and a registered fee
 * recipient, written to `$DATA_DIR/demo-account.json` (mode 0600). Only key hashes are stored, so the
 * key in an existing file is reused when it still authenticates for the demo account; otherwise a new
 * key is issued and the file rewritten. An operator's suspension of the demo account is left alone.
 */
export async function ensureDemoAccount(db: Db, dataDir: string, clock: Clock, random: Random): Promise<DemoAccount> {
  await mkdir(dataDir, { recursive: true, mode: 0o700 });
  const admin = new AdminService(db, { clock, random });
  const filePath = join(dataDir, DEMO_ACCOUNT_FILE);
  const feeRecipient = await demoFeeRecipient(dataDir);

  let apiKey: string | undefined;
  let account = await getAccountByName(db, DEMO_ACCOUNT_NAME);
  if (!account) {
    try {
      const created = await admin.createAccount(DEMO_ACCOUNT_NAME);
      apiKey = created.apiKey;
    } catch (e) {
      // Created concurrently by another starter: use theirs (with our own key below).
      if (!isHushError(e, 'INVALID_REQUEST')) throw e;
    }
    account = await getAccountByName(db, DEMO_ACCOUNT_NAME);
    if (!account) throw new Error('demo account vanished while being created');
  }

  if (apiKey === undefined) {
    const previous = (await readJsonFile(filePath)) as Partial<DemoAccount> | undefined;
    if (previous && previous.accountId === account.id && (await apiKeyIsValid(db, previous.apiKey, account.id, clock.date()))) {
      apiKey = previous.apiKey as string;
    } else {
      apiKey = (await admin.createKey(account.id)).apiKey;
    }
  }

  if (!account.feeRecipients.includes(feeRecipient.address)) await admin.registerFeeRecipient(account.id, feeRecipient.address);

  const demo: DemoAccount = { accountId: account.id, apiKey, feeRecipientAddress: feeRecipient.address };
  await writeSecretJson(filePath, demo, random);
  return demo;
}
