/**
 * Helpers for the settlement tests (test/settlement/*): funded wallets on a real chain, orders placed
 * through the real HTTP API, deposits signed by the sender's own key with @solana/kit, reads of what
 * landed on chain, and checks shared by every scenario (the status history, the shape of every Hush
 * transaction, "paid exactly once" in the store and on chain).
 *
 * Nothing here talks to Hush's internals: the API is reached over HTTP, the chain over JSON-RPC, and the
 * store only through SQL on its tables (chain_txs, orders), read after the fact.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import {
  createSolanaRpc,
  decompileTransactionMessage,
  generateKeyPairSigner,
  getBase58Encoder,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getTransactionDecoder,
  lamports,
  type Address,
  type Base64EncodedWireTransaction,
  type KeyPairSigner,
  type Signature,
} from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  findAssociatedTokenPda,
  getCreateAssociatedTokenInstruction,
  getSyncNativeInstruction,
  getTransferCheckedInstruction,
} from '@solana-program/token';
import type { Queryable } from '../../src/store/db.ts';
import { expectOk, HushClient, signDeposit } from './hush-server.ts';
import { buildSignedTransaction, latestBlockhash, pollUntil, requestTokenAirdrop, type LocalRpc } from './localnet.ts';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address;
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const MEMO_PROGRAMS = ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo'];
export const TOKEN_ACCOUNT_SIZE = 165n;
export const SOL = 1_000_000_000n;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export type AssetId = 'sol' | 'usdc' | 'bonk';

export interface AssetInfo {
  assetId: AssetId;
  mint: Address;
  decimals: number;
  native: boolean;
}

/** Transcribed from config/assets.json (the local chain seeds these mints). */
export const ASSETS: Readonly<Record<AssetId, AssetInfo>> = {
  sol: { assetId: 'sol', mint: 'So11111111111111111111111111111111111111112' as Address, decimals: 9, native: true },
  usdc: { assetId: 'usdc', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' as Address, decimals: 6, native: false },
  bonk: { assetId: 'bonk', mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263' as Address, decimals: 5, native: false },
};

/** A chain endpoint as the tests use it: kit RPC plus the URL (for the local faucet's custom method). */
export interface Chain {
  url: string;
  rpc: LocalRpc;
}

export function chainAt(url: string): Chain {
  return { url, rpc: createSolanaRpc(url) };
}

// ------------------------------------------------------------------------------------------ chain reads

export async function ataOf(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM });
  return ata;
}

export async function lamportsOf(chain: Chain, address: Address): Promise<bigint> {
  return BigInt((await chain.rpc.getBalance(address, { commitment: 'confirmed' }).send()).value);
}

export async function accountExists(chain: Chain, address: Address): Promise<boolean> {
  const { value } = await chain.rpc.getAccountInfo(address, { commitment: 'confirmed', encoding: 'base64' }).send();
  return value !== null;
}

/** The owner's balance of an asset at `confirmed`: lamports for SOL, its associated token account's amount (null when it has none) otherwise. */
export async function balanceOf(chain: Chain, owner: Address, asset: AssetInfo): Promise<bigint | null> {
  if (asset.native) return lamportsOf(chain, owner);
  const ata = await ataOf(owner, asset.mint);
  const { value } = await chain.rpc.getAccountInfo(ata, { commitment: 'confirmed', encoding: 'base64' }).send();
  if (!value) return null;
  const data = Buffer.from(value.data[0], 'base64');
  return data.readBigUInt64LE(64);
}

export async function rentExempt(chain: Chain, size: bigint): Promise<bigint> {
  return BigInt(await chain.rpc.getMinimumBalanceForRentExemption(size).send());
}

// ------------------------------------------------------------------------------------------ wallets

/** A new wallet holding `sol` lamports and the given token amounts (through the local faucet), all confirmed. */
export async function newWallet(chain: Chain, opts: { sol?: bigint; tokens?: Partial<Record<AssetId, bigint>> } = {}): Promise<KeyPairSigner> {
  const w = await generateKeyPairSigner();
  const sigs: Signature[] = [];
  if (opts.sol) sigs.push(await chain.rpc.requestAirdrop(w.address, lamports(opts.sol)).send());
  for (const [id, amount] of Object.entries(opts.tokens ?? {})) {
    if (amount) sigs.push(await requestTokenAirdrop(chain.url, w.address, ASSETS[id as AssetId].mint, amount));
  }
  await waitForConfirmed(chain, sigs);
  return w;
}

/** Waits until every signature is confirmed (one getSignatureStatuses per 100 ms, not a tight loop). */
export async function waitForConfirmed(chain: Chain, signatures: string[], timeoutMs = 60_000): Promise<void> {
  await pollUntil(
    async () => {
      const { value } = await chain.rpc.getSignatureStatuses(signatures as Signature[]).send();
      return value.every((st) => st !== null && st.confirmationStatus !== 'processed' && st.err === null);
    },
    { timeoutMs, intervalMs: 100, what: `${signatures.length} transaction(s) confirmed` },
  );
}

// ------------------------------------------------------------------------------------------ orders

export interface QuoteReq {
  amount: string;
  sourceAssetId: AssetId;
  destinationAssetId: AssetId;
  senderAddress: Address;
  recipientAddress: Address;
  mode?: 'exact_in' | 'exact_out';
}

export interface PlacedOrder {
  req: QuoteReq;
  quote: any;
  order: any;
  trackingId: string;
  amountIn: bigint;
  amountOut: bigint;
  networkFee: bigint;
  depositAccount: Address;
  depositOwner: Address;
}

/** The deposit account and its owner, read from the order's own transaction (its create-ATA instruction). */
export function depositOf(base64: string): { depositAccount: Address; depositOwner: Address; blockhash: string } {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(base64));
  const compiled = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  const msg = decompileTransactionMessage(compiled as Parameters<typeof decompileTransactionMessage>[0]);
  const create = msg.instructions.find((ix) => ix.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS);
  assert.ok(create?.accounts, 'the order transaction creates the deposit token account');
  // CreateAssociatedToken accounts: payer, ata, owner, mint, system program, token program.
  return { depositAccount: create.accounts[1]!.address, depositOwner: create.accounts[2]!.address, blockhash: compiled.lifetimeToken };
}

/** POST /quote then POST /order with the quote unchanged. */
export async function placeOrder(client: HushClient, req: QuoteReq): Promise<PlacedOrder> {
  const quote = expectOk(await client.quote(req)).quote;
  const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, mode: _m, ...terms } = req;
  const order = expectOk(await client.order({ quote, ...terms })).order;
  assert.equal(order.amountIn, quote.amountIn, 'the order keeps the quote amountIn');
  assert.equal(order.amountOut, quote.amountOut, 'the order keeps the quote amountOut');
  const d = depositOf(order.transaction);
  return {
    req,
    quote,
    order,
    trackingId: order.trackingId,
    amountIn: BigInt(quote.amountIn),
    amountOut: BigInt(quote.amountOut),
    networkFee: BigInt(quote.networkFee),
    depositAccount: d.depositAccount,
    depositOwner: d.depositOwner,
  };
}

/** Signs an order's transaction with the sender's key and submits it. */
export async function signAndSend(chain: Chain, base64: string, sender: KeyPairSigner, opts: { skipPreflight?: boolean } = {}): Promise<Signature> {
  const { wire, signature } = await signDeposit(base64, sender);
  const sent = await chain.rpc
    .sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', skipPreflight: opts.skipPreflight ?? false, preflightCommitment: 'processed' })
    .send()
    .catch(explainSendError);
  assert.equal(sent, signature);
  return signature;
}

/** Rethrows a sendTransaction failure with the RPC's error details (kit keeps them in `context`). */
export function explainSendError(e: unknown): never {
  const err = e as { message?: string; context?: unknown; cause?: { message?: string; context?: unknown } };
  throw new Error(`sendTransaction failed: ${err.message} ${jsonish(err.context ?? {})}; cause: ${err.cause?.message ?? '-'} ${jsonish(err.cause?.context ?? {})}`, { cause: e });
}

/**
 * Signs and submits the order's transaction the way a careful wallet does: if its blockhash died before
 * it was sent (a loaded machine), ask Hush for a refreshed transaction (POST /order/{id}/refresh) and
 * send that instead. Returns the signature that was accepted.
 */
export async function depositWithRefresh(client: HushClient, chain: Chain, placed: PlacedOrder, sender: KeyPairSigner, attempts = 3): Promise<Signature> {
  let tx = placed.order.transaction as string;
  for (let i = 1; ; i++) {
    try {
      return await signAndSend(chain, tx, sender);
    } catch (e) {
      if (i >= attempts || !/Blockhash not found/i.test((e as Error).message)) throw e;
      const previous = tx;
      tx = await pollUntil(
        async () => {
          const r = await client.refresh(placed.trackingId);
          assert.equal(r.status, 200, `refresh: ${r.text}`);
          return r.body.order.transaction !== previous ? (r.body.order.transaction as string) : null;
        },
        { timeoutMs: 20_000, intervalMs: 250, what: 'a refreshed transaction' },
      );
    }
  }
}

/**
 * The sender's own transaction into the order's deposit account, carrying `amount` (less than amountIn):
 * the deposit account created with the NON-idempotent associated-token-account instruction exactly like
 * Hush's transaction, then a transfer of `amount` (SOL: system transfer + SyncNative unless told not to;
 * SPL: TransferChecked).
 */
export async function sendOwnDeposit(chain: Chain, placed: PlacedOrder, sender: KeyPairSigner, asset: AssetInfo, amount: bigint, opts: { syncNative?: boolean } = {}): Promise<Signature> {
  const create = getCreateAssociatedTokenInstruction({ payer: sender, ata: placed.depositAccount, owner: placed.depositOwner, mint: asset.mint, tokenProgram: TOKEN_PROGRAM });
  const sync = opts.syncNative === false ? [] : [getSyncNativeInstruction({ account: placed.depositAccount })];
  const transfer = asset.native
    ? [getTransferSolInstruction({ source: sender, destination: placed.depositAccount, amount }), ...sync]
    : [
        getTransferCheckedInstruction({
          source: await ataOf(sender.address, asset.mint),
          mint: asset.mint,
          destination: placed.depositAccount,
          authority: sender,
          amount,
          decimals: asset.decimals,
        }),
      ];
  const { wire, signature } = await buildSignedTransaction(sender, [create, ...transfer], await latestBlockhash(chain.rpc));
  await chain.rpc.sendTransaction(wire, { encoding: 'base64', preflightCommitment: 'processed' }).send().catch(explainSendError);
  return signature;
}

/**
 * Polls GET /status until the order reaches one of `statuses`. Fails at once if it ends in another final
 * status, and at the deadline with the last record seen.
 */
export async function waitForOrder(client: HushClient, trackingId: string, statuses: string[], timeoutMs: number): Promise<any> {
  const deadline = Date.now() + timeoutMs;
  let last: any = null;
  let lastError: unknown = null;
  for (;;) {
    try {
      const res = await client.status(trackingId);
      if (res.status === 200) last = res.body.order;
    } catch (e) {
      lastError = e; // the server may be restarting
    }
    if (last && statuses.includes(last.status)) return last;
    if (last?.final) throw new Error(`order ${trackingId} ended ${last.status} (${last.failureReason ?? 'no reason'}), expected ${statuses.join('|')}: ${JSON.stringify(last)}`);
    if (Date.now() > deadline) {
      throw new Error(`timed out waiting for ${trackingId} to reach ${statuses.join('|')}; last record ${JSON.stringify(last)}${lastError ? `; last error ${String(lastError)}` : ''}`);
    }
    await new Promise((r) => setTimeout(r, 100));
  }
}

/** docs/spec.md §5: history lists every transition in order, each with an ISO-8601 millisecond timestamp. */
export function assertHistory(rec: any, expected: string[]): void {
  assert.deepEqual(
    rec.history.map((h: any) => h.status),
    expected,
    `history of ${rec.trackingId}: ${JSON.stringify(rec.history)}`,
  );
  let prev = 0;
  for (const h of rec.history) {
    assert.match(h.at, ISO_MS, 'history timestamps are ISO 8601 UTC with milliseconds');
    const t = Date.parse(h.at);
    assert.ok(t >= prev, `history is in time order: ${JSON.stringify(rec.history)}`);
    prev = t;
  }
  assert.equal(rec.history[0].at, rec.createdAt, 'the first entry is the creation');
  assert.equal(rec.history.at(-1).at, rec.updatedAt, 'the last entry is the latest update');
  assert.equal(rec.status, expected.at(-1));
}

// ------------------------------------------------------------------------------------------ landed transactions

export interface LandedTx {
  signature: string;
  slot: bigint;
  err: unknown;
  fee: bigint;
  accountKeys: string[];
  /** Number of required signatures (header). */
  signers: string[];
  instructions: { program: string; accounts: string[]; data: Uint8Array }[];
  preBalances: bigint[];
  postBalances: bigint[];
  preTokenBalances: { accountIndex: number; mint: string; owner?: string; uiTokenAmount: { amount: string } }[];
  postTokenBalances: { accountIndex: number; mint: string; owner?: string; uiTokenAmount: { amount: string } }[];
}

const base58 = getBase58Encoder();

/** getTransaction (json) at `confirmed`, waited for. */
export async function fetchLanded(chain: Chain, signature: string, timeoutMs = 20_000): Promise<LandedTx> {
  const tx = await pollUntil(
    () => chain.rpc.getTransaction(signature as Signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send(),
    { timeoutMs, intervalMs: 50, what: `transaction ${signature}` },
  );
  const msg = tx.transaction.message as unknown as {
    accountKeys: string[];
    header: { numRequiredSignatures: number };
    instructions: { programIdIndex: number; accounts: number[]; data: string }[];
  };
  const meta = tx.meta!;
  return {
    signature,
    slot: BigInt(tx.slot),
    err: meta.err,
    fee: BigInt(meta.fee),
    accountKeys: [...msg.accountKeys],
    signers: msg.accountKeys.slice(0, msg.header.numRequiredSignatures),
    instructions: msg.instructions.map((ix) => ({
      program: msg.accountKeys[ix.programIdIndex]!,
      accounts: ix.accounts.map((i) => msg.accountKeys[i]!),
      data: new Uint8Array(base58.encode(ix.data)),
    })),
    preBalances: meta.preBalances.map((b) => BigInt(b)),
    postBalances: meta.postBalances.map((b) => BigInt(b)),
    preTokenBalances: (meta.preTokenBalances ?? []) as unknown as LandedTx['preTokenBalances'],
    postTokenBalances: (meta.postTokenBalances ?? []) as unknown as LandedTx['postTokenBalances'],
  };
}

export function lamportDelta(tx: LandedTx, address: string): bigint {
  const i = tx.accountKeys.indexOf(address);
  return i < 0 ? 0n : tx.postBalances[i]! - tx.preBalances[i]!;
}

/** Compute-unit limit and price of a transaction's compute-budget instructions. */
export function computeBudgetOf(tx: LandedTx): { limit: number; price: bigint } {
  const cb = tx.instructions.filter((ix) => ix.program === COMPUTE_BUDGET_PROGRAM);
  const limit = cb.find((ix) => ix.data[0] === 2);
  const price = cb.find((ix) => ix.data[0] === 3);
  assert.ok(limit && price, `${tx.signature}: sets both the compute-unit limit and price`);
  const dv = (d: Uint8Array) => new DataView(d.buffer, d.byteOffset, d.byteLength);
  return { limit: dv(limit.data).getUint32(1, true), price: dv(price.data).getBigUint64(1, true) };
}

/**
 * docs/spec.md §9: every Hush transaction has the same shape — the treasury's fee payer pays, the compute-budget
 * instructions come first with the same settings, and no memo program appears anywhere.
 */
export function assertHushShape(tx: LandedTx, feePayer: string, budget: { limit: number; price: bigint }): void {
  assert.equal(tx.accountKeys[0], feePayer, `${tx.signature}: the fee payer is the treasury fee payer`);
  assert.equal(tx.instructions[0]?.program, COMPUTE_BUDGET_PROGRAM, `${tx.signature}: compute budget first`);
  assert.equal(tx.instructions[1]?.program, COMPUTE_BUDGET_PROGRAM, `${tx.signature}: compute budget second`);
  assert.ok(tx.instructions.slice(2).every((ix) => ix.program !== COMPUTE_BUDGET_PROGRAM), `${tx.signature}: compute budget only at the start`);
  assert.deepEqual(computeBudgetOf(tx), budget, `${tx.signature}: the same compute budget as every Hush transaction`);
  for (const m of MEMO_PROGRAMS) assert.ok(!tx.accountKeys.includes(m), `${tx.signature}: no memo program`);
}

/** A payout must leave from a Hush pool: none of the sender's or the deposit's accounts may appear in it. */
export async function assertPayoutUnlinked(tx: LandedTx, placed: PlacedOrder, sender: Address): Promise<void> {
  const forbidden = [sender, placed.depositAccount, placed.depositOwner];
  for (const a of Object.values(ASSETS)) forbidden.push(await ataOf(sender, a.mint));
  for (const f of forbidden) assert.ok(!tx.accountKeys.includes(f), `${tx.signature}: payout names ${f} (sender/deposit account)`);
}

// ------------------------------------------------------------------------------------------ store checks

export interface ChainTxRow {
  id: string;
  kind: string;
  part: string | null;
  status: string;
  amount: bigint;
  signature: string;
  source: string;
  destination: string;
}

export async function chainTxRows(db: Queryable, trackingId: string, kind: 'payout' | 'refund'): Promise<ChainTxRow[]> {
  const { rows } = await db.query<{ id: string | number; kind: string; part: string | null; status: string; amount: string; signature: string; source: string; destination: string }>(
    `SELECT c.id, c.kind, c.meta ->> 'part' AS part, c.status, c.amount::text AS amount, c.signature, c.source, c.destination
       FROM chain_txs c JOIN orders o ON o.id = c.order_id WHERE o.tracking_id = $1 AND c.kind = $2 ORDER BY c.id`,
    [trackingId, kind],
  );
  return rows.map((r) => ({ ...r, id: String(r.id), amount: BigInt(r.amount) }));
}

/**
 * Exactly once, in the store: every part of the order's payout (or refund) has exactly one confirmed
 * row, the confirmed rows add up to `total`, and nothing is still pending. Returns the confirmed rows.
 */
export async function assertPaidOnce(db: Queryable, trackingId: string, kind: 'payout' | 'refund', total: bigint): Promise<ChainTxRow[]> {
  const rows = await chainTxRows(db, trackingId, kind);
  assert.ok(rows.length > 0, `${trackingId}: has ${kind} rows`);
  const parts = new Set(rows.map((r) => r.part));
  const confirmed = rows.filter((r) => r.status === 'confirmed');
  for (const p of parts) {
    assert.equal(confirmed.filter((r) => r.part === p).length, 1, `${trackingId}: exactly one confirmed ${kind} for part ${p}: ${JSON.stringify(rows, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
  }
  assert.ok(rows.every((r) => r.status !== 'pending'), `${trackingId}: no ${kind} still pending`);
  assert.equal(confirmed.reduce((s, r) => s + r.amount, 0n), total, `${trackingId}: confirmed ${kind} rows add up to ${total}`);
  return confirmed;
}

/** On chain: the successful transactions that touched an account (newest first, up to 1000). */
export async function successfulSignatures(chain: Chain, address: Address): Promise<string[]> {
  const list = await chain.rpc.getSignaturesForAddress(address, { commitment: 'confirmed', limit: 1000 }).send();
  return list.filter((s) => s.err === null).map((s) => s.signature);
}

// ------------------------------------------------------------------------------------------ admin

/** GET /admin/v1/reconcile until it is clean (ok) with nothing pending; fails at the deadline with the last report. */
export async function waitForCleanReconcile(baseUrl: string, adminToken: string, timeoutMs: number): Promise<any> {
  let last: any = null;
  try {
    return await pollUntil(
      async () => {
        const res = await fetch(`${baseUrl}/admin/v1/reconcile`, { headers: { authorization: `Bearer ${adminToken}` } });
        last = await res.json();
        return res.status === 200 && last.ok === true && last.pendingTransactions === 0 ? last : null;
      },
      { timeoutMs, intervalMs: 250, what: 'a clean reconcile' },
    );
  } catch (e) {
    throw new Error(`${(e as Error).message}; last report: ${JSON.stringify(last)}`);
  }
}

export function readDemoAccount(dataDir: string): { accountId: string; apiKey: string; feeRecipientAddress: string } {
  return JSON.parse(readFileSync(join(dataDir, 'demo-account.json'), 'utf8'));
}

export function jsonish(v: unknown): string {
  return JSON.stringify(v, (_k, x) => (typeof x === 'bigint' ? x.toString() : x));
}

