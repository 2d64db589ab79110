/**
 * A real, listening Hush for end-to-end HTTP tests: `startHush(loadConfig(env))` on 127.0.0.1 port 0 with
 * its embedded localnet on port 0, a fresh temp DATA_DIR, a short slot time, and either PGlite (in the
 * temp dir) or PostgreSQL in a fresh private schema (dropped on close). Settlement runs as an operator's
 * does (docs/spec.md §9: privacy on, the real menu, class release): an amount off the menu is paid two
 * slots after its deposit confirms, a menu amount with its class.
 *
 * Tests talk to it with `fetch` through `HushClient`, which checks on EVERY response what docs/spec.md §2 and §6
 * promise for all of them: an `X-Request-Id` header, the error body shape on failures, and that no body
 * leaks a key secret, the treasury seed, the admin token, a stack frame or SQL text.
 */
import type { RecordSink } from '../../src/support/alerts.ts';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import bs58 from 'bs58';
import {
  createSolanaRpc, decompileTransactionMessage, generateKeyPairSigner, getCompiledTransactionMessageDecoder,
  getBase64EncodedWireTransaction, getBase64Encoder, getSignatureFromTransaction, getTransactionDecoder,
  lamports, signTransaction, type Address, type Base64EncodedWireTransaction, type Instruction,
  type KeyPairSigner, type ReadonlyUint8Array, type Signature,
} from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { loadConfig } from '../../src/config/config.ts';
import { startHush, type RunningHush } from '../../src/runtime/start-hush.ts';
import { generateApiKey } from '../../src/services/api-keys.ts';
import {
  addFeeRecipient, insertAccount, insertApiKey, updateAccount, type AccountRecord,
} from '../../src/store/accounts-store.ts';
import type { Db } from '../../src/store/db.ts';
import { systemClock, type Clock } from '../../src/support/clock.ts';
import { systemRandom, type Random } from '../../src/support/random.ts';
import { dropSchema, newSchemaName, openTestDb, POSTGRES_URL, postgresSkipReason, type Engine, type TestDatabase } from './databases.ts';
import { workerCustodyStandIn } from './custody-stand-in.ts';
import { makeTempDir, removeDir, requestTokenAirdrop, waitForStatus, type LocalRpc } from './localnet.ts';
import { base58, expectOk, registerSecret, secretOf } from './api-responses.ts';
import { HushClient } from './hush-client.ts';

export { postgresSkipReason, type Engine };

export * from './api-responses.ts';
export * from './hush-client.ts';

export const USDC_MINT = 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' as Address;
export const SOL = 1_000_000_000n;
/** An RPC address nothing answers (startTestHush's `chain: false`). */
export const NO_CHAIN_URL = 'http://127.0.0.1:9';

export interface TestAccount {
  id: string;
  apiKey: string;
  keyId: string;
  /** The secret part of the key (must never appear in a response). */
  secret: string;
  /** Registered fee recipients (on-curve wallets). */
  feeRecipients: Address[];
  client: HushClient;
}

export interface AccountOptions {
  feeCapBps?: number;
  status?: 'active' | 'suspended';
  /** Per-account rate limits; default: very high, so only tests about limits ever see 429. `null`: server defaults. */
  rateLimits?: AccountRecord['rateLimits'];
  /** How many fee recipients to register (default 1). */
  feeRecipients?: number;
  keyExpiresAt?: Date | null;
}


/**
 * Issues a key for the account directly in the store. `register: false` for keys the admin API hands out
 * (its one legitimate response containing the secret); register them once received.
 */
export async function issueKey(db: Db, accountId: string, expiresAt: Date | null = null, register = true): Promise<{ apiKey: string; keyId: string; secret: string }> {
  const k = generateApiKey(systemRandom);
  await insertApiKey(db, { keyId: k.keyId, accountId, secretHash: k.secretHash, expiresAt });
  const secret = secretOf(k.apiKey);
  if (register) registerSecret(secret);
  return { apiKey: k.apiKey, keyId: k.keyId, secret };
}

// ------------------------------------------------------------------------------------------ server

export interface TestHush {
  engine: Engine;
  hush: RunningHush;
  /** http://127.0.0.1:<port> */
  url: string;
  chainUrl: string;
  rpc: LocalRpc;
  db: Db;
  /** Client without a key on the partner port (auth failures, unknown routes). */
  anon: HushClient;
  /** The ops listener (docs/spec.md §4): http://127.0.0.1:<ops port>. */
  opsUrl: string;
  /** Client without a key on the ops listener (/healthz, /readyz, /metrics; /admin/v1 with `withKey(adminToken)`). */
  ops: HushClient;
  adminToken?: string;
  /** The PostgreSQL schema of its store (undefined on PGlite) and its treasury seed, for `sharing`. */
  schema?: string;
  treasurySeed: string;
  /** HUSH_QUOTE_KEY of the deployment (hex), shared with `sharing` peers. */
  quoteKey: string;
  createAccount(opts?: AccountOptions): Promise<TestAccount>;
  close(): Promise<void>;
}

export interface TestHushOptions {
  engine?: Engine;
  /** Extra environment for loadConfig (HUSH_QUOTE_TTL_S, HUSH_RATE_LIMITS, …). */
  env?: Record<string, string>;
  /** Serve /admin/v1 (HUSH_ADMIN_TOKEN set to a random token). */
  admin?: boolean;
  /**
   * A second API process (HUSH_ROLE=api) of the same deployment: this Hush's PostgreSQL schema, chain and
   * treasury seed. Its close() leaves the shared store to its owner.
   */
  sharing?: TestHush;
  /**
   * false: no chain at all, for API tests that never reach one (keys, accounts, static pages). An API
   * process (HUSH_ROLE=api) whose RPC address nothing answers: no local chain started, no funding, no worker;
   * the test plays the worker's key-holding part. Quotes and orders answer 503 there.
   */
  chain?: false;
  /** Receives Hush's own log lines (ALERTs, treasury reports). */
  log?: (line: string) => void;
  /** Receives the structured records instead (as `npm start`'s pino does). */
  records?: RecordSink;
  /** Receives the API's pino records (one JSON line each); the API logs nothing when unset. */
  apiLog?: (line: string) => void;
  /** Hush's clock and randomness (default: the system's). */
  clock?: Clock;
  random?: Random;
}

/** Starts a real Hush (API + embedded chain unless SOLANA_RPC_URL) on free ports; `close()` stops it and removes its data. */
export async function startTestHush(opts: TestHushOptions = {}): Promise<TestHush> {
  const peer = opts.sharing;
  if (peer && peer.engine !== 'postgres') throw new Error('only a PostgreSQL store can be shared by two processes');
  const engine = peer?.engine ?? opts.engine ?? 'pglite';
  if (engine === 'postgres' && postgresSkipReason) throw new Error(postgresSkipReason);
  const dataDir = makeTempDir('hush-api-test-');
  const schema = engine === 'postgres' ? (peer?.schema ?? newSchemaName()) : undefined;
  const ownsSchema = !peer;
  const treasurySeed = peer?.treasurySeed ?? randomBytes(32).toString('hex');
  // One quote key per deployment: every API of a shared store verifies the others' quotes.
  const quoteKey = peer?.quoteKey ?? randomBytes(32).toString('hex');
  registerSecret(quoteKey);
  // 32 random bytes, as HUSH_ADMIN_TOKEN requires (docs/spec.md §3).
  const adminToken = opts.admin ? randomBytes(32).toString('base64url') : undefined;
  registerSecret(treasurySeed);
  if (adminToken) registerSecret(adminToken);
  const env: NodeJS.ProcessEnv = {
    PORT: '0',
    HOST: '127.0.0.1',
    LOCALNET_PORT: '0',
    LOCALNET_SLOT_MS: '50',
    DATA_DIR: dataDir,
    TREASURY_SEED: treasurySeed,
    HUSH_QUOTE_KEY: quoteKey,
    HUSH_DRAIN_GRACE_MS: '0',
    // Suites that fire many refused or unroutable requests from 127.0.0.1 (anonymous-limits.test.ts lowers it).
    HUSH_ANONYMOUS_RATE_LIMIT: '100000',
    // A few hundred orders per asset at most in any test: a start that derives 4,096 per asset spends
    // seconds of CPU on every one of the suite's servers (npm test is CPU-bound on two cores).
    HUSH_DEPOSIT_IDENTITY_TARGET: '256',
    ...(engine === 'postgres' ? { DATABASE_URL: POSTGRES_URL, DATABASE_SCHEMA: schema } : {}),
    ...(adminToken ? { HUSH_ADMIN_TOKEN: adminToken } : {}),
    ...(peer ? { HUSH_ROLE: 'api', SOLANA_RPC_URL: peer.chainUrl } : {}),
    // Port 9 (discard) on the loopback: refused at once, so no call waits for an answer.
    ...(opts.chain === false && !peer ? { HUSH_ROLE: 'api', SOLANA_RPC_URL: NO_CHAIN_URL } : {}),
    ...opts.env,
  };
  // Every test chain is a local one, embedded or behind SOLANA_RPC_URL: Hush assumes its slot time.
  env.HUSH_SLOT_MS ||= env.LOCALNET_SLOT_MS;
  // docs/spec.md §10: role api never holds the seed; with a store of its own, the test plays the worker's part.
  if (env.HUSH_ROLE === 'api') delete env.TREASURY_SEED;
  const config = loadConfig(env);
  const standIn = config.role === 'api' && !peer ? workerCustodyStandIn(treasurySeed, config.assets, config.depositIdentityTarget) : null;
  if (engine === 'postgres') assert.equal(config.databaseSchema, schema, 'loadConfig must pass DATABASE_SCHEMA through');
  let hush: RunningHush;
  // A PGlite Hush keeps its store in memory, the process's spare when it has one (test/support/store-spares.ts:
  // a store in a directory costs its template's copy and PostgreSQL's start, about 2 s of CPU, at every start).
  // The store in DATA_DIR is what the files that start Hush processes run (crash safety, the admin CLI, npm start).
  let memoryStore: TestDatabase | undefined;
  try {
    const clock = opts.clock ?? systemClock;
    if (engine === 'pglite') memoryStore = await openTestDb('pglite', { clock });
    const logger = opts.apiLog ? { level: 'info', stream: { write: opts.apiLog } } : false;
    hush = await startHush(config, { clock, random: opts.random ?? systemRandom, logger, store: memoryStore?.db, ...(opts.log ? { log: opts.log } : {}), ...(opts.records ? { records: opts.records } : {}), ...(standIn ? { onReady: standIn.onReady } : {}) });
  } catch (e) {
    await memoryStore?.close();
    await standIn?.stop();
    removeDir(dataDir);
    if (schema && ownsSchema) await dropSchema(schema).catch(() => {});
    throw e;
  }
  assert.ok(hush.url);
  // The embedded chain, or the one SOLANA_RPC_URL names.
  const chainUrl = hush.localnet?.url ?? hush.chain.url;
  if (hush.demo) registerSecret(secretOf(hush.demo.apiKey)); // the embedded demo partner's key
  const url = hush.url.replace('[::1]', '127.0.0.1');
  const db = hush.db;
  const anon = new HushClient(url, null);
  const opsUrl = hush.opsUrl.replace('[::1]', '127.0.0.1');
  return {
    engine,
    hush,
    url,
    chainUrl,
    rpc: createSolanaRpc(chainUrl),
    db,
    anon,
    opsUrl,
    ops: new HushClient(opsUrl, null),
    adminToken,
    schema,
    treasurySeed,
    quoteKey,
    async createAccount(a: AccountOptions = {}) {
      const id = `acc_${base58(16)}`;
      await insertAccount(db, { id, name: `api-test-${base58(10)}`, feeCapBps: a.feeCapBps ?? 100 });
      const rateLimits = a.rateLimits === undefined ? { quote: 100_000, order: 100_000, status: 100_000, tokens: 100_000, account: 100_000 } : a.rateLimits;
      await updateAccount(db, id, { status: a.status, rateLimits });
      const feeRecipients: Address[] = [];
      for (let i = 0; i < (a.feeRecipients ?? 1); i++) {
        const w = (await generateKeyPairSigner()).address;
        await addFeeRecipient(db, id, w);
        feeRecipients.push(w);
      }
      const k = await issueKey(db, id, a.keyExpiresAt ?? null);
      return { id, ...k, feeRecipients, client: new HushClient(url, k.apiKey) };
    },
    async close() {
      await standIn?.stop();
      await hush.close();
      await memoryStore?.close();
      removeDir(dataDir);
      if (schema && ownsSchema) await dropSchema(schema).catch(() => {});
    },
  };
}

/** Orders in the store (the fuzz and error tests assert it does not move). */
export async function orderCount(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: string | number }>('SELECT count(*) AS n FROM orders');
  return Number(rows[0]!.n);
}

// ------------------------------------------------------------------------------------------ chain

export async function wallet(): Promise<KeyPairSigner> {
  return generateKeyPairSigner();
}

export async function address(): Promise<Address> {
  return (await generateKeyPairSigner()).address;
}

/** An address that is NOT on the ed25519 curve: an associated token account (a PDA). */
export async function offCurveAddress(): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner: await address(), mint: USDC_MINT, tokenProgram: 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address });
  return ata;
}

/** A new wallet with SOL (and optionally USDC) on the local chain, confirmed. */
export async function fundedSender(t: TestHush, opts: { sol?: bigint; usdc?: bigint; wallet?: KeyPairSigner } = {}): Promise<KeyPairSigner> {
  const w = opts.wallet ?? (await generateKeyPairSigner());
  const sig = await t.rpc.requestAirdrop(w.address, lamports(opts.sol ?? 5n * SOL)).send();
  await waitForStatus(t.rpc, sig, 'confirmed');
  if (opts.usdc) await waitForStatus(t.rpc, await requestTokenAirdrop(t.chainUrl, w.address, USDC_MINT, opts.usdc), 'confirmed');
  return w;
}

/** Signs the order's unsigned transaction with the sender's key (the only signature it needs). */
export async function signDeposit(base64: string, sender: KeyPairSigner): Promise<{ wire: string; signature: Signature }> {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const signed = await signTransaction([sender.keyPair], tx);
  return { wire: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) };
}

/** A random, well-formed transaction signature (64 bytes, base58) that no chain has seen. */
export function randomSignature(): string {
  return bs58.encode(randomBytes(64));
}


import { orderRequest, quoteRequest } from './order-requests.ts';
export { orderRequest, quoteRequest };

// ------------------------------------------------------------------------------------------ deposit transaction

export interface DepositTxView {
  version: number | 'legacy';
  /** Addresses whose signature the transaction requires, fee payer first. */
  signers: Address[];
  /** Signature slots of the wire transaction (all null when unsigned). */
  signatureSlots: string[];
  staticAccounts: Address[];
  blockhash: string;
  instructions: readonly (Instruction & { accounts?: readonly { address: Address; role: number }[]; data?: ReadonlyUint8Array })[];
}

/** Decodes the order's base64 wire transaction into its message (no lookup tables are expected). */
export function inspectDepositTransaction(base64: string): DepositTxView {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const compiled = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  assert.equal((compiled as { addressTableLookups?: unknown[] }).addressTableLookups?.length ?? 0, 0, 'no address lookup tables');
  const msg = decompileTransactionMessage(compiled as Parameters<typeof decompileTransactionMessage>[0]);
  const signers = compiled.staticAccounts.slice(0, compiled.header.numSignerAccounts);
  assert.equal(msg.feePayer.address, signers[0]);
  return {
    version: compiled.version,
    signers,
    signatureSlots: Object.keys(tx.signatures),
    staticAccounts: [...compiled.staticAccounts],
    blockhash: compiled.lifetimeToken,
    instructions: msg.instructions as DepositTxView['instructions'],
  };
}

/** Quote, then order the quote: the order body the quote's own terms give. */
export async function quoteAndOrder(client: HushClient, sender: Address, recipient: Address, extra: Record<string, unknown> = {}) {
  const req = quoteRequest(sender, recipient, extra);
  const q = expectOk(await client.quote(req)).quote;
  const o = expectOk(await client.order(orderRequest(q, req as never))).order;
  return { req, q, o };
}

/** Simulates a base64 wire transaction on the test chain, signatures checked. */
export async function simulateWire(t: TestHush, wire: string) {
  return (await t.rpc.simulateTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', commitment: 'processed', sigVerify: true }).send()).value;
}

/** Submits a base64 wire transaction to the test chain, with preflight. */
export async function submitWire(t: TestHush, wire: string) {
  return t.rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'processed' }).send();
}

/** The error suites' server: admin on, one account with two fee recipients, a sender, a recipient, and quotes between them. */
export async function startErrorSuite() {
  const t = await startTestHush({ admin: true });
  const [acct, sender, recipient] = [await t.createAccount({ feeRecipients: 2 }), await address(), await address()];
  const quoteReq = (extra: Record<string, unknown> = {}) => quoteRequest(sender, recipient, extra);
  const freshQuote = (extra: Record<string, unknown> = {}, client = acct.client) => freshQuoteOf(client, quoteReq(extra));
  return { t, acct, sender, recipient, quoteReq, freshQuote };
}
export type ErrorSuite = Awaited<ReturnType<typeof startErrorSuite>>;

/** Quotes `req` with `client`: the request and the quote. */
export async function freshQuoteOf<R extends object>(client: HushClient, req: R) {
  return { req, quote: expectOk(await client.quote(req)).quote };
}
