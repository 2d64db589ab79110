import { parseJsonWithBigInts } from '@solana/rpc-spec-types';
import { FINALIZATION_LAG, type Commitment, type StoredTransaction, type TransactionMetaJson, type TransactionRecord } from './local-chain-types.ts';
import type { TransactionErrorJson } from './transaction-errors.ts';
import { decodeWireTransaction } from './wire-transaction.ts';

export interface SignatureStatus {
  slot: bigint;
  confirmations: bigint | null;
  err: TransactionErrorJson | null;
  confirmationStatus: Commitment;
}

/**
 * Every landed transaction by signature and by address. Per signature only what statuses need, plus the
 * transaction's ledger line from which the full record is rebuilt on demand — a few objects per
 * transaction instead of a graph (GC cost).
 */
export class SignatureHistory {
  private readonly txs = new Map<string, StoredTransaction>();
  private readonly byAddress = new Map<string, string[]>();
  private count = 0n;

  add(signature: string, stored: StoredTransaction, accountKeys: readonly string[]): void {
    this.txs.set(signature, stored);
    this.count += 1n;
    for (const k of new Set(accountKeys)) {
      let list = this.byAddress.get(k);
      if (!list) this.byAddress.set(k, (list = []));
      list.push(signature);
    }
  }

  has(signature: string): boolean {
    return this.txs.has(signature);
  }

  get size(): number {
    return this.txs.size;
  }

  get total(): bigint {
    return this.count;
  }

  /** The status cache view at `tip`: null when unknown, otherwise its slot and how confirmed it is. */
  status(signature: string, tip: bigint): SignatureStatus | null {
    const r = this.txs.get(signature);
    // A node behind the cluster (lagging-view.ts) has not seen what landed after its tip.
    if (!r || r.slot > tip) return null;
    const depth = tip - r.slot;
    const confirmationStatus: Commitment = depth >= FINALIZATION_LAG ? 'finalized' : depth >= 1n ? 'confirmed' : 'processed';
    return { slot: r.slot, confirmations: confirmationStatus === 'finalized' ? null : depth, err: r.err, confirmationStatus };
  }

  /** The full record, rebuilt from its ledger line; null when unknown or newer than `maxSlot`. */
  transaction(signature: string, maxSlot: bigint): TransactionRecord | null {
    const r = this.txs.get(signature);
    if (!r || r.slot > maxSlot) return null;
    const rec = parseJsonWithBigInts(r.line) as { tx: string; m: TransactionMetaJson };
    const bytes = new Uint8Array(Buffer.from(rec.tx, 'base64'));
    const tx = decodeWireTransaction(bytes);
    const meta = rec.m;
    return {
      signature,
      slot: r.slot,
      blockTime: r.blockTime,
      bytes,
      version: tx.version,
      meta,
      accountKeys: [...tx.staticKeys, ...meta.loadedAddresses.writable, ...meta.loadedAddresses.readonly],
    };
  }

  /** Newest first, as the RPC returns them; none newer than `maxSlot`. */
  forAddress(address: string, opts: { limit: number; before?: string; until?: string }, maxSlot: bigint): (StoredTransaction & { signature: string })[] {
    const list = this.byAddress.get(address) ?? [];
    const out: (StoredTransaction & { signature: string })[] = [];
    let started = opts.before === undefined;
    for (let i = list.length - 1; i >= 0 && out.length < opts.limit; i--) {
      const sig = list[i]!;
      if (!started) {
        if (sig === opts.before) started = true;
        continue;
      }
      if (sig === opts.until) break;
      const r = this.txs.get(sig)!;
      if (r.slot <= maxSlot) out.push({ ...r, signature: sig });
    }
    return out;
  }
}
