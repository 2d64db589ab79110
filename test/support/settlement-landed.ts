/**
 * What landed, read after the fact: a transaction as the chain reports it, the shape every Hush transaction
 * has, "paid exactly once" in the store and on chain. Re-exported by settlement.ts.
 */
import assert from 'node:assert/strict';
import { getBase58Encoder, type Address, type Signature } from '@solana/kit';
import type { Queryable } from '../../src/store/db.ts';
import { capPrice, LEVEL_RULES } from '../../src/domain/fee-estimate.ts';
import { MEMO_PROGRAM_ADDRESS } from '../../src/chain/hush-transactions.ts';
import { SEALED_RECORD_LENGTH } from '../../src/treasury/record-cipher.ts';
import { pollUntil } from './localnet.ts';
import {
  ASSETS, ataOf, COMPUTE_BUDGET_PROGRAM, MEMO_PROGRAMS, type Chain, type PlacedOrder,
} from './settlement-chain.ts';

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
 * A Hush compute budget: its limit, and its price — one figure under HUSH_FEE_PRICING=static, or under the
 * market's (`market`) a price between the cheapest level's floor and the cap's (src/domain/fee-estimate.ts).
 */
export type HushBudget = { limit: number; price: bigint } | { limit: number; price: 'market'; maxPrice: bigint };

/**
 * docs/spec.md §9: every Hush transaction has the same shape — the treasury's fee payer pays, the compute-budget
 * instructions come first with the same limit and a price of its purpose (or the one static price), and its sealed
 * record comes last, one memo of one length (docs/spec.md §10).
 */
export function assertHushShape(tx: LandedTx, feePayer: string, budget: HushBudget): void {
  assert.equal(tx.accountKeys[0], feePayer, `${tx.signature}: the fee payer is the treasury fee payer`);
  assert.equal(tx.instructions[0]?.program, COMPUTE_BUDGET_PROGRAM, `${tx.signature}: compute budget first`);
  assert.equal(tx.instructions[1]?.program, COMPUTE_BUDGET_PROGRAM, `${tx.signature}: compute budget second`);
  assert.ok(tx.instructions.slice(2).every((ix) => ix.program !== COMPUTE_BUDGET_PROGRAM), `${tx.signature}: compute budget only at the start`);
  const got = computeBudgetOf(tx);
  if (budget.price === 'market') {
    assert.equal(got.limit, budget.limit, `${tx.signature}: the same compute-unit limit as every Hush transaction`);
    assert.ok(got.price >= LEVEL_RULES.cheap.floor && got.price <= budget.maxPrice, `${tx.signature}: a market price (${got.price}) between the cheapest floor and the cap`);
  } else assert.deepEqual(got, budget, `${tx.signature}: the same compute budget as every Hush transaction`);
  // docs/spec.md §10 "The chain is the record": one memo, last, v2, one sealed record's length (never the old memo program).
  const memos = tx.instructions.filter((ix) => MEMO_PROGRAMS.includes(ix.program));
  assert.equal(memos.length, 1, `${tx.signature}: exactly one memo, the sealed record`);
  assert.equal(tx.instructions.at(-1)?.program, MEMO_PROGRAM_ADDRESS, `${tx.signature}: the record is the last instruction`);
  assert.equal(tx.instructions.at(-1)?.data.length, SEALED_RECORD_LENGTH, `${tx.signature}: every record is one length`);
}

/** What a Hush of `config` prices its transactions at: one static figure, or the market's range up to a payout's cap. */
export function hushBudget(config: { computeUnitLimit: number; computeUnitPriceMicroLamports: bigint; feePricing: 'market' | 'static'; feeCapLamports: { payout: bigint } }): HushBudget {
  if (config.feePricing === 'static') return { limit: config.computeUnitLimit, price: config.computeUnitPriceMicroLamports };
  return { limit: config.computeUnitLimit, price: 'market', maxPrice: capPrice(config.feeCapLamports.payout, 5_000n, config.computeUnitLimit) };
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
