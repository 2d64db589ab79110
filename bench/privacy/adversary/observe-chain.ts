/**
 * Reads Hush's deposits and payouts off the chain exactly as an outsider can: standard JSON-RPC only
 * (`getSignaturesForAddress`, `getTransaction`, batched), starting from Hush's public fee payer and pools.
 *
 * Hush's own transactions are the ones its fee payer pays for. In them, a token account of someone else
 * emptied into a pool is a sweep of a deposit account; value leaving a pool for anyone else is a payout.
 * Each swept deposit account's history then yields the deposit transaction itself (paid by the sender).
 */
import { parseJsonWithBigInts } from '@solana/rpc-spec-types';
import type { AssetInfo, Observation, ObservedDeposit, ObservedPayout } from './observation.ts';

interface TokenBalance {
  accountIndex: bigint;
  mint: string;
  owner: string;
  uiTokenAmount: { amount: string };
}

interface TxJson {
  slot: bigint;
  meta: { err: unknown; fee: bigint; preBalances: bigint[]; postBalances: bigint[]; preTokenBalances: TokenBalance[]; postTokenBalances: TokenBalance[]; loadedAddresses?: { writable: string[]; readonly: string[] } };
  transaction: { signatures: string[]; message: { accountKeys: string[]; recentBlockhash: string } };
}

export interface HushPublicAccounts {
  feePayer: string;
  /** Pool wallets (owners of the pools' token accounts, holders of their SOL). */
  pools: string[];
}

/** One Hush-paid transaction as the adversary classifies it; `fee` and `feePayerDelta` serve the cost metric. */
export interface HushTransaction {
  signature: string;
  slot: number;
  kind: 'payout' | 'sweep' | 'other';
  /** Lamports the fee payer lost (positive) or got back (negative, rent of closed accounts). */
  feePayerCost: bigint;
  /** The transaction fee alone. */
  fee: bigint;
  depositAccounts: string[];
}

export interface ChainView extends Observation {
  hushTransactions: HushTransaction[];
  /** RPC requests this observation made (HTTP requests; a batch counts once). */
  requests: number;
}

export class JsonRpc {
  requests = 0;
  constructor(private readonly url: string) {}

  async batch<T>(calls: { method: string; params: unknown[] }[]): Promise<T[]> {
    if (calls.length === 0) return [];
    this.requests++;
    // u64 parameters go out as exact JSON integers.
    const body = JSON.stringify(
      calls.map((c, id) => ({ jsonrpc: '2.0', id, method: c.method, params: c.params })),
      (_, v) => (typeof v === 'bigint' ? `__u64__${v}` : v),
    ).replace(/"__u64__(\d+)"/g, '$1');
    let res: Response | undefined;
    for (let attempt = 0; !res; attempt++) {
      // Every call here is a read or an idempotent send: a refused or reset connection is retried.
      res = await fetch(this.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body }).catch((e: unknown) => {
        if (attempt >= 8) throw e;
        return new Promise<undefined>((r) => setTimeout(r, 250 * 2 ** Math.min(attempt, 4), undefined));
      });
    }
    if (!res.ok) throw new Error(`RPC HTTP ${res.status}`);
    const answers = parseJsonWithBigInts(await res.text()) as { id: bigint; result?: T; error?: { message: string } }[];
    const out: T[] = new Array(calls.length);
    for (const a of answers) {
      if (a.error) throw new Error(`RPC ${calls[Number(a.id)]!.method}: ${a.error.message}`);
      out[Number(a.id)] = a.result as T;
    }
    return out;
  }

  async call<T>(method: string, params: unknown[]): Promise<T> {
    return (await this.batch<T>([{ method, params }]))[0]!;
  }
}

const BATCH = 100;

/** Every signature naming `address` from newest down to `fromSlot`, oldest first. */
async function signaturesSince(rpc: JsonRpc, address: string, fromSlot: number): Promise<{ signature: string; slot: number; err: unknown }[]> {
  const out: { signature: string; slot: number; err: unknown }[] = [];
  let before: string | undefined;
  for (;;) {
    const page = await rpc.call<{ signature: string; slot: bigint; err: unknown }[]>('getSignaturesForAddress', [address, { limit: 1000, commitment: 'confirmed', ...(before ? { before } : {}) }]);
    for (const s of page) if (Number(s.slot) >= fromSlot) out.push({ signature: s.signature, slot: Number(s.slot), err: s.err });
    if (page.length < 1000 || Number(page[page.length - 1]!.slot) < fromSlot) break;
    before = page[page.length - 1]!.signature;
  }
  return out.reverse();
}

async function transactions(rpc: JsonRpc, signatures: string[]): Promise<TxJson[]> {
  const out: TxJson[] = [];
  for (let i = 0; i < signatures.length; i += BATCH) {
    const calls = signatures.slice(i, i + BATCH).map((s) => ({ method: 'getTransaction', params: [s, { encoding: 'json', commitment: 'confirmed', maxSupportedTransactionVersion: 0 }] }));
    out.push(...(await rpc.batch<TxJson | null>(calls)).filter((t): t is TxJson => t !== null));
  }
  return out;
}

const keysOf = (tx: TxJson) => [...tx.transaction.message.accountKeys, ...(tx.meta.loadedAddresses?.writable ?? []), ...(tx.meta.loadedAddresses?.readonly ?? [])];

/** Token amounts by account index before and after (a closed account has none after: 0). */
function tokenDeltas(tx: TxJson): { account: number; owner: string; mint: string; pre: bigint | null; post: bigint | null }[] {
  const byIndex = new Map<number, { account: number; owner: string; mint: string; pre: bigint | null; post: bigint | null }>();
  for (const b of tx.meta.preTokenBalances) byIndex.set(Number(b.accountIndex), { account: Number(b.accountIndex), owner: b.owner, mint: b.mint, pre: BigInt(b.uiTokenAmount.amount), post: null });
  for (const b of tx.meta.postTokenBalances) {
    const e = byIndex.get(Number(b.accountIndex)) ?? { account: Number(b.accountIndex), owner: b.owner, mint: b.mint, pre: null, post: null };
    e.post = BigInt(b.uiTokenAmount.amount);
    byIndex.set(e.account, e);
  }
  return [...byIndex.values()];
}

export async function observeChain(url: string, hush: HushPublicAccounts, assets: AssetInfo[], fromSlot: number): Promise<ChainView> {
  const rpc = new JsonRpc(url);
  const pools = new Set(hush.pools);
  const byMint = new Map(assets.map((a) => [a.mint, a]));
  const native = assets.find((a) => a.native)!;
  const sigs = (await signaturesSince(rpc, hush.feePayer, fromSlot)).filter((s) => s.err === null);
  const txs = (await transactions(rpc, sigs.map((s) => s.signature))).filter((t) => t.transaction.message.accountKeys[0] === hush.feePayer);

  const hushTransactions: HushTransaction[] = [];
  const parts = new Map<string, ObservedPayout>();
  const depositAccounts: { account: string; asset: AssetInfo }[] = [];
  for (const tx of txs) {
    const keys = keysOf(tx);
    const deltas = tokenDeltas(tx);
    const tokenAccounts = new Set(deltas.map((d) => keys[d.account]!));
    const lamportDelta = (i: number) => tx.meta.postBalances[i]! - tx.meta.preBalances[i]!;
    const poolPaid = keys.some((k, i) => pools.has(k) && lamportDelta(i) < 0n) || deltas.some((d) => pools.has(d.owner) && (d.post ?? 0n) < (d.pre ?? 0n));
    const received: { recipient: string; asset: AssetInfo; amount: bigint; created: boolean }[] = [];
    for (const d of deltas) {
      const asset = byMint.get(d.mint);
      if (!asset || pools.has(d.owner) || d.owner === hush.feePayer) continue;
      const gain = (d.post ?? 0n) - (d.pre ?? 0n);
      if (gain > 0n && poolPaid) received.push({ recipient: d.owner, asset, amount: gain, created: d.pre === null });
    }
    keys.forEach((k, i) => {
      if (pools.has(k) || k === hush.feePayer || tokenAccounts.has(k) || !poolPaid) return;
      const gain = lamportDelta(i);
      if (gain > 0n) received.push({ recipient: k, asset: native, amount: gain, created: false });
    });
    const swept = deltas.filter((d) => byMint.has(d.mint) && !pools.has(d.owner) && d.owner !== hush.feePayer && d.pre !== null && d.post === null);
    for (const d of swept) depositAccounts.push({ account: keys[d.account]!, asset: byMint.get(d.mint)! });
    const feePayerCost = -lamportDelta(0);
    const kind = received.length > 0 ? 'payout' : swept.length > 0 ? 'sweep' : 'other';
    hushTransactions.push({ signature: tx.transaction.signatures[0]!, slot: Number(tx.slot), kind, feePayerCost, fee: BigInt(tx.meta.fee), depositAccounts: swept.map((d) => keys[d.account]!) });
    for (const r of received) {
      const key = `${r.recipient}:${r.asset.assetId}`;
      const p = parts.get(key) ?? { signatures: [], recipient: r.recipient, assetId: r.asset.assetId, amount: 0n, slot: 0, createdTokenAccount: false, parts: 0, blockhashes: [], accounts: [] };
      p.signatures.push(tx.transaction.signatures[0]!);
      p.amount += r.amount;
      p.slot = Math.max(p.slot, Number(tx.slot));
      p.createdTokenAccount ||= r.created;
      p.parts++;
      p.blockhashes.push(tx.transaction.message.recentBlockhash);
      p.accounts.push(...keys);
      parts.set(key, p);
    }
  }

  // Each deposit account's own history holds the deposit: the one successful transaction Hush did not pay for.
  const deposits: ObservedDeposit[] = [];
  // A deposit account has a handful of transactions: one page each, a hundred accounts per request.
  const candidates: string[][] = [];
  for (let i = 0; i < depositAccounts.length; i += BATCH) {
    const calls = depositAccounts.slice(i, i + BATCH).map((d) => ({ method: 'getSignaturesForAddress', params: [d.account, { limit: 1000, commitment: 'confirmed' }] }));
    for (const page of await rpc.batch<{ signature: string; err: unknown }[]>(calls)) candidates.push(page.filter((s) => s.err === null).map((s) => s.signature));
  }
  const fetched = await transactions(rpc, [...new Set(candidates.flat())]);
  const bySignature = new Map(fetched.map((t) => [t.transaction.signatures[0]!, t]));
  depositAccounts.forEach((d, i) => {
    const tx = candidates[i]!.map((s) => bySignature.get(s)).find((t) => t && t.transaction.message.accountKeys[0] !== hush.feePayer);
    if (!tx) return;
    const keys = keysOf(tx);
    const entry = tokenDeltas(tx).find((t) => keys[t.account] === d.account);
    if (!entry) return;
    deposits.push({
      signature: tx.transaction.signatures[0]!,
      account: d.account,
      sender: keys[0]!,
      assetId: d.asset.assetId,
      amount: (entry.post ?? 0n) - (entry.pre ?? 0n),
      slot: Number(tx.slot),
      blockhash: tx.transaction.message.recentBlockhash,
      accounts: keys,
    });
  });
  deposits.sort((a, b) => a.slot - b.slot);
  const payouts = [...parts.values()].sort((a, b) => a.slot - b.slot);
  return { deposits, payouts, hushTransactions, requests: rpc.requests };
}
