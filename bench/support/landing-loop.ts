/**
 * bench:landing's sender, the bench's own rather than Hush's worker (which needs orders, deposits and a store to
 * pay): payout-shaped SOL transfers (fee payer and pool signing, Hush's compute budget) sent with
 * skipPreflight and maxRetries 0, rebroadcast every REBROADCAST_SLOTS while their blockhash lives, and
 * re-signed, at the strategy's price for a re-sign, only once that blockhash has expired at `finalized` (so
 * the expired attempt can no longer land: a payout is paid at most once).
 */
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { buildPayout, txShape } from '../../src/chain/hush-transactions.ts';
import type { Asset } from '../../src/config/assets.ts';
import { rawSignatureStatuses, rpcBatch } from './chain-calls.ts';
import { sleep } from './processes.ts';

/** About 2 s at mainnet's 400 ms slots: Solana's retry guide's rebroadcast period. */
export const REBROADCAST_SLOTS = 5n;
export const COMPUTE_UNITS = 100_000;
/** A payout's base fee: the fee payer's and the pool's signatures. */
export const BASE_FEE_LAMPORTS = 10_000n;

export interface Strategy {
  name: string;
  feePayer: KeyPairSigner;
  pool: KeyPairSigner;
  /** The price for a payout's next signing (`previous`: the expired attempt's, for a re-sign), at `slot`. */
  price(slot: bigint, previous: bigint | undefined): Promise<bigint>;
  /** A payout of this strategy landed (`resent`: its attempt was rebroadcast before it landed). */
  landed?(l: { slot: bigint; price: bigint; waitedSlots: number; resent: boolean }): void;
  /** A payout to `recipient` was signed (first or again). */
  signed?(recipient: Address): void;
}

interface Attempt {
  signature: string;
  wire: string;
  price: bigint;
  lastValidBlockHeight: bigint;
  firstSent: bigint;
  lastSent: bigint;
}

export interface PayoutRecord {
  strategy: string;
  recipient: Address;
  attempts: Attempt[];
  firstSent: bigint | null;
  landed: { slot: bigint; price: bigint; signature: string } | null;
  /** How many of its attempts landed (more than one: paid twice). */
  landedAttempts: number;
}

export interface LoopSettings {
  url: string;
  asset: Asset;
  payouts: number;
  perSlot: number;
  slotMs: number;
  /** Slots after the last first send to wait for the rest. */
  tailSlots: number;
  amount: bigint;
}

async function call<T>(url: string, method: string, params: unknown[]): Promise<T> {
  const [r] = await rpcBatch<T>(url, [{ method, params }]);
  if (!r || r.result === undefined) throw new Error(`${method}: ${r?.error?.message}`);
  return r.result;
}

/** Runs every strategy's payouts side by side on one chain; each strategy's record, and the clearing prices seen per account set. */
export async function landingLoop(s: LoopSettings, strategies: readonly Strategy[], log: (line: string) => void): Promise<{ records: PayoutRecord[]; clearing: Map<string, Map<bigint, bigint>> }> {
  const records: PayoutRecord[] = [];
  const queues = new Map<string, PayoutRecord[]>();
  for (const st of strategies) {
    const own = await Promise.all(Array.from({ length: s.payouts }, async () => ({ strategy: st.name, recipient: (await generateKeyPairSigner()).address, attempts: [], firstSent: null, landed: null, landedAttempts: 0 }) as PayoutRecord));
    queues.set(st.name, own);
    records.push(...own);
  }
  const clearing = new Map<string, Map<bigint, bigint>>(strategies.map((st) => [st.name, new Map()]));
  const byName = new Map(strategies.map((st) => [st.name, st]));
  let lastSlot = -1n;
  let blockhash = { blockhash: '', lastValidBlockHeight: 0n };
  let lastFirstSend = 0n;
  let lastClearingRead = 0n;
  const sign = async (st: Strategy, r: PayoutRecord, slot: bigint, previous?: bigint) => {
    const price = await st.price(slot, previous);
    st.signed?.(r.recipient);
    const shape = txShape(st.feePayer, { computeUnitLimit: COMPUTE_UNITS, computeUnitPriceMicroLamports: price }, blockhash);
    const signed = await buildPayout(shape, { asset: s.asset, sources: [{ pool: st.pool, poolHolding: st.pool.address, amount: s.amount }], recipient: r.recipient });
    const a: Attempt = { signature: signed.signature, wire: signed.wire, price, lastValidBlockHeight: signed.lastValidBlockHeight, firstSent: slot, lastSent: slot };
    r.attempts.push(a);
    return a;
  };
  for (;;) {
    const slot = BigInt(await call<number>(s.url, 'getSlot', [{ commitment: 'processed' }]));
    const finalized = BigInt(await call<number>(s.url, 'getBlockHeight', [{ commitment: 'finalized' }]));
    const newSlots = lastSlot < 0n ? 1n : slot - lastSlot;
    if (newSlots > 0n) {
      const latest = await call<{ value: { blockhash: string; lastValidBlockHeight: number } }>(s.url, 'getLatestBlockhash', [{ commitment: 'confirmed' }]);
      blockhash = { blockhash: latest.value.blockhash, lastValidBlockHeight: BigInt(latest.value.lastValidBlockHeight) };
      lastSlot = slot;
    }
    const pending = records.filter((r) => r.firstSent !== null && !r.landed);
    const sigs = pending.flatMap((r) => r.attempts.map((a) => ({ r, a })));
    for (let i = 0; i < sigs.length; i += 256) {
      const chunk = sigs.slice(i, i + 256);
      const statuses = await rawSignatureStatuses(s.url, chunk.map((x) => x.a.signature));
      statuses.forEach((st, j) => {
        if (!st || st.err) return;
        const { r, a } = chunk[j]!;
        r.landedAttempts++;
        if (r.landed) return;
        r.landed = { slot: BigInt(st.slot), price: a.price, signature: a.signature };
        byName.get(r.strategy)!.landed?.({ slot: BigInt(st.slot), price: a.price, waitedSlots: Number(BigInt(st.slot) - a.firstSent), resent: a.lastSent !== a.firstSent });
      });
    }
    const sends: string[] = [];
    for (const r of pending) {
      if (r.landed) continue;
      const a = r.attempts.at(-1)!;
      if (finalized > a.lastValidBlockHeight) sends.push((await sign(byName.get(r.strategy)!, r, slot, a.price)).wire);
      else if (slot <= a.lastValidBlockHeight && slot - a.lastSent >= REBROADCAST_SLOTS) {
        a.lastSent = slot;
        sends.push(a.wire);
      }
    }
    for (const st of strategies) {
      const unsent = queues.get(st.name)!.filter((r) => r.firstSent === null);
      for (const r of unsent.slice(0, Number(newSlots) * s.perSlot)) {
        r.firstSent = slot;
        lastFirstSend = slot;
        sends.push((await sign(st, r, slot)).wire);
      }
    }
    if (sends.length > 0) await rpcBatch(s.url, sends.map((w) => ({ method: 'sendTransaction', params: [w, { encoding: 'base64', skipPreflight: true, maxRetries: 0 }] })));
    const done = records.every((r) => r.landed) || (records.every((r) => r.firstSent !== null) && slot - lastFirstSend > BigInt(s.tailSlots));
    // The chain keeps 150 slots of clearing prices: read them well within that, and once more at the end.
    if (slot - lastClearingRead >= 100n || done) {
      lastClearingRead = slot;
      for (const st of strategies) {
        const prices = await call<{ slot: number; clearingPrice: number }[]>(s.url, 'localnet_getClearingPrices', [[st.feePayer.address, st.pool.address]]);
        for (const p of prices) clearing.get(st.name)!.set(BigInt(p.slot), BigInt(p.clearingPrice));
      }
      log(`  slot ${slot}: ${strategies.map((st) => `${st.name} ${records.filter((r) => r.strategy === st.name && r.landed).length}/${s.payouts}`).join(', ')} landed`);
    }
    if (done) break;
    await sleep(s.slotMs / 2);
  }
  // Any attempt that landed after its payout's was counted: one last look at every signature.
  for (const r of records) r.landedAttempts = 0;
  const all = records.flatMap((r) => r.attempts.map((a) => ({ r, a })));
  for (let i = 0; i < all.length; i += 256) {
    const chunk = all.slice(i, i + 256);
    (await rawSignatureStatuses(s.url, chunk.map((x) => x.a.signature))).forEach((st, j) => st && !st.err && chunk[j]!.r.landedAttempts++);
  }
  return { records, clearing };
}
