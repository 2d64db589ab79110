/**
 * bench:settlement's side of the Hush process (bench/support/settlement-bench-server.ts): its addresses,
 * the partner API as a partner calls it (quote, order, the sender's signed deposit), and the side
 * endpoint's readings.
 */
import {
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  signTransaction,
  type KeyPairSigner,
} from '@solana/kit';
import { rpcBatch } from './chain-calls.ts';

export interface BenchInfo {
  hushUrl: string;
  sideUrl: string;
  apiKey: string;
  engine: string;
  /** Side URLs of further workers on the same store (BENCH_WORKERS): their CPU counts with the first's. */
  workerSideUrls?: string[];
}

export interface StatusRecord {
  trackingId: string;
  status: string;
  payouts: { signature: string; amount: string; confirmedAt: string | null }[];
  history: { status: string; at: string }[];
  privacy: { standard: boolean; releasedWith: number | null; heldSeconds: number | null };
}

/** A deposit the sender has signed, not yet sent. */
export interface SignedDeposit {
  trackingId: string;
  wire: string;
  signature: string;
}

/**
 * Orders over HTTP, as a partner makes them (quote, then order with an idempotency key), each deposit signed
 * by its sender's wallet: everything a partner and its users do before the deposits are sent.
 */
export async function placeOrders(
  info: BenchInfo,
  wallets: { senders: KeyPairSigner[]; recipients: KeyPairSigner[] },
  terms: { amount: bigint; assetId: string; privacy?: Record<string, number> },
): Promise<SignedDeposit[]> {
  const { senders, recipients } = wallets;
  const orders = await pool(senders.length, 16, async (i) => {
    const who = { senderAddress: senders[i]!.address, recipientAddress: recipients[i]!.address };
    const what = { amount: terms.amount.toString(), sourceAssetId: terms.assetId, destinationAssetId: terms.assetId, ...(terms.privacy ? { privacy: terms.privacy } : {}) };
    const { quote } = await api<{ quote: Record<string, unknown> }>(info, 'POST', '/quote', { ...what, ...who });
    const idempotency = { 'x-idempotency-key': `bench-${terms.amount}-${i}-${Date.now()}` };
    const { order } = await api<{ order: { trackingId: string; transaction: string } }>(info, 'POST', '/order', { quote, ...who }, idempotency);
    return order;
  });
  return Promise.all(
    orders.map(async (o, i) => {
      const tx = getTransactionDecoder().decode(getBase64Encoder().encode(o.transaction));
      const signed = await signTransaction([senders[i]!.keyPair], tx);
      return { trackingId: o.trackingId, wire: getBase64EncodedWireTransaction(signed), signature: getSignatureFromTransaction(signed) as string };
    }),
  );
}

/** Every deposit at once: JSON-RPC batches straight to the chain; throws if the chain refuses one. */
export async function submitDeposits(chainUrl: string, deposits: SignedDeposit[]): Promise<void> {
  const sent = await rpcBatch<string>(
    chainUrl,
    deposits.map((d) => ({ method: 'sendTransaction', params: [d.wire, { encoding: 'base64', preflightCommitment: 'processed' }] })),
  );
  sent.forEach((r, i) => {
    if (r.result !== deposits[i]!.signature) throw new Error(`deposit ${i} rejected: ${r.error?.message}`);
  });
}

/** What the store recorded of each payout transaction (record-before-send), from the side endpoint. */
export interface PayoutRow {
  trackingId: string;
  signature: string;
  status: string;
  createdAt: string;
  settledAt: string;
  part: number;
  /** The order's payout due time (ISO), null if none was drawn. */
  dueAt: string | null;
}

export async function payoutRows(info: BenchInfo): Promise<PayoutRow[]> {
  return (await (await fetch(`${info.sideUrl}/payouts`)).json()) as PayoutRow[];
}

/** Orders by status in the store; throws once any left the happy path. */
export async function progress(info: BenchInfo): Promise<Record<string, number>> {
  const counts = (await (await fetch(`${info.sideUrl}/progress`)).json()) as Record<string, number>;
  const bad = ['failed', 'refunding', 'refunded', 'expired'].filter((s) => counts[s]);
  if (bad.length > 0) throw new Error(`orders left the happy path: ${JSON.stringify(counts)}`);
  return counts;
}

export async function api<T>(info: BenchInfo, method: string, path: string, body?: unknown, headers: Record<string, string> = {}): Promise<T> {
  const res = await fetch(`${info.hushUrl}/transfer/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${info.apiKey}`, ...(body ? { 'content-type': 'application/json' } : {}), ...headers },
    body: body ? JSON.stringify(body) : undefined,
  });
  const json = (await res.json()) as T & { success: boolean; error?: unknown };
  if (!json.success) throw new Error(`${method} ${path}: ${res.status} ${JSON.stringify(json.error)}`);
  return json;
}

export async function hushCpuMicros(info: BenchInfo): Promise<number> {
  const urls = [info.sideUrl, ...(info.workerSideUrls ?? [])];
  const each = await Promise.all(urls.map(async (u) => ((await (await fetch(`${u}/cpu`)).json()) as { micros: number }).micros));
  return each.reduce((a, b) => a + b, 0);
}

/** `fn` for 0 … n-1, at most `concurrency` at a time; results in order. */
export async function pool<T>(n: number, concurrency: number, fn: (i: number) => Promise<T>): Promise<T[]> {
  const out: T[] = new Array(n);
  let next = 0;
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (next < n) {
        const i = next++;
        out[i] = await fn(i);
      }
    }),
  );
  return out;
}
