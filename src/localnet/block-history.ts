/**
 * Blocks of the recent past: per slot its time and its transactions' signatures (in landing order), plus
 * the prioritization fees of the last 150 slots. Bounded: a ring of BLOCK_HISTORY_SLOTS slots (a day at
 * the default 400 ms slot) that also drops its oldest slots once it holds BLOCK_HISTORY_TRANSACTIONS
 * transactions; what fell out answers as a validator's cleaned-up ledger does. Signatures are the strings
 * SignatureHistory already holds, so a transaction costs this ring one array slot.
 */
export const BLOCK_HISTORY_SLOTS = 216_000;
export const BLOCK_HISTORY_TRANSACTIONS = 1_000_000;
/** The validator's prioritization fee cache keeps the last 150 blocks. */
export const FEE_WINDOW_SLOTS = 150;

interface SlotFees {
  /** The lowest compute-unit price (micro-lamports) of a successful transaction in the slot. */
  min: bigint | null;
  /** Per writable account, the lowest price of a successful transaction that wrote it. */
  byAccount: Map<string, bigint>;
  /** Every price paid in the slot, and per writable account, for the percentile form (sorted when first asked). */
  prices: bigint[];
  byAccountPrices: Map<string, bigint[]>;
  sorted: boolean;
}

export type BlockLookup =
  | { kind: 'block'; time: number; signatures: readonly string[] }
  /** Before the oldest slot kept. */
  | { kind: 'cleaned'; firstAvailable: number }
  /** A slot the chain never produced (a restart jumps over slots; slots before a restart with nothing in them). */
  | { kind: 'skipped' };

const NONE: readonly string[] = Object.freeze([]);

export class BlockHistory {
  private readonly times: Float64Array;
  /** Which slot each ring cell holds (cells are reused every `capacity` slots); -1: none. */
  private readonly owner: Float64Array;
  private readonly txs = new Map<number, string[]>();
  private readonly fees = new Map<number, SlotFees>();
  private first = 0;
  private last = -1;
  private held = 0;

  constructor(
    private readonly capacity = BLOCK_HISTORY_SLOTS,
    private readonly maxTransactions = BLOCK_HISTORY_TRANSACTIONS,
  ) {
    this.times = new Float64Array(capacity);
    this.owner = new Float64Array(capacity).fill(-1);
  }

  /** The lowest slot still kept (minimumLedgerSlot). */
  get firstSlot(): number {
    return this.first;
  }

  /** The lowest slot that has a block (getFirstAvailableBlock). */
  get firstBlock(): number {
    for (let s = this.first; s <= this.last; s++) if (this.has(s)) return s;
    return this.first;
  }

  /** Transactions the ring holds (for the memory figure of bench:localnet). */
  get transactionCount(): number {
    return this.held;
  }

  private has(slot: number): boolean {
    return this.owner[slot % this.capacity] === slot;
  }

  /** A block opens at `slot` (time in unix seconds); slots jumped over are skipped ones. */
  open(slot: number, time: number): void {
    if (slot <= this.last) return;
    if (this.last < 0) this.first = slot;
    // Slots jumped over (a restart) may still hold a cell from `capacity` slots ago: clear at most one ring's worth.
    for (let s = Math.max(this.last + 1, slot - this.capacity + 1); s < slot; s++) this.clear(s);
    this.last = slot;
    while (this.first <= slot - this.capacity) this.evictFirst();
    this.clear(slot);
    const cell = slot % this.capacity;
    this.owner[cell] = slot;
    this.times[cell] = time;
    for (const s of this.fees.keys()) if (s <= slot - FEE_WINDOW_SLOTS) this.fees.delete(s);
    this.fees.set(slot, { min: null, byAccount: new Map(), prices: [], byAccountPrices: new Map(), sorted: true });
  }

  private clear(slot: number): void {
    const cell = slot % this.capacity;
    const held = this.owner[cell]!;
    if (held >= 0) {
      this.held -= this.txs.get(held)?.length ?? 0;
      this.txs.delete(held);
    }
    this.owner[cell] = -1;
  }

  private evictFirst(): void {
    if (this.has(this.first)) this.clear(this.first);
    this.first++;
  }

  /**
   * A transaction landed in `slot` (an open block). `price` is its compute-unit price; only a successful
   * transaction counts for fees, and only the accounts it could write.
   */
  add(slot: number, signature: string, fee: { price: bigint; writable: readonly string[] } | null): void {
    if (!this.has(slot)) return;
    let list = this.txs.get(slot);
    if (!list) this.txs.set(slot, (list = []));
    list.push(signature);
    this.held++;
    while (this.held > this.maxTransactions && this.first < this.last) this.evictFirst();
    if (fee) this.addFee(slot, fee.price, fee.writable);
  }

  /**
   * A price paid in `slot` by a transaction the ring keeps no signature of: the congested chain's background
   * traffic (leader-queue.ts), which fills blocks and sets their fees but is nobody's to read back.
   */
  addFee(slot: number, price: bigint, writable: readonly string[]): void {
    const slotFees = this.fees.get(slot);
    if (!slotFees) return;
    if (slotFees.min === null || price < slotFees.min) slotFees.min = price;
    slotFees.prices.push(price);
    slotFees.sorted = false;
    for (const k of writable) {
      const had = slotFees.byAccount.get(k);
      if (had === undefined || price < had) slotFees.byAccount.set(k, price);
      const list = slotFees.byAccountPrices.get(k);
      if (list) list.push(price);
      else slotFees.byAccountPrices.set(k, [price]);
    }
  }

  lookup(slot: number): BlockLookup {
    if (slot < this.first) return { kind: 'cleaned', firstAvailable: this.firstBlock };
    if (slot > this.last || !this.has(slot)) return { kind: 'skipped' };
    return { kind: 'block', time: this.times[slot % this.capacity]!, signatures: this.txs.get(slot) ?? NONE };
  }

  /** The nearest earlier slot with a block (a block's parent), or null when none is kept. */
  parentOf(slot: number): number | null {
    for (let s = slot - 1; s >= this.first; s--) if (this.has(s)) return s;
    return null;
  }

  /** Slots with a block in [from, to], ascending, at most `limit`. */
  blocksBetween(from: number, to: number, limit = Infinity): number[] {
    const out: number[] = [];
    for (let s = Math.max(from, this.first); s <= Math.min(to, this.last) && out.length < limit; s++) if (this.has(s)) out.push(s);
    return out;
  }

  /** Transactions landed in slots after `slot` (for a transaction count at a lagging commitment). */
  countAfter(slot: number): number {
    let n = 0;
    for (let s = Math.max(slot + 1, this.first); s <= this.last; s++) n += this.has(s) ? (this.txs.get(s)?.length ?? 0) : 0;
    return n;
  }

  /**
   * getRecentPrioritizationFees: per slot up to `tip` (of the last 150), the lowest price a successful
   * transaction paid; with accounts, the highest of those accounts' lowest prices when above that. With a
   * percentile (basis points, Triton's form), that percentile of the slot's prices instead of their lowest,
   * and of each account's, the highest again.
   */
  prioritizationFees(accounts: readonly string[], tip: number, percentileBps: number | null = null): { slot: number; prioritizationFee: bigint }[] {
    const out: { slot: number; prioritizationFee: bigint }[] = [];
    for (const [slot, f] of this.fees) {
      if (slot > tip) continue;
      if (percentileBps !== null && !f.sorted) sortFees(f);
      let fee = percentileBps === null ? (f.min ?? 0n) : percentileOf(f.prices, percentileBps);
      for (const a of accounts) {
        const p = percentileBps === null ? f.byAccount.get(a) : f.byAccountPrices.has(a) ? percentileOf(f.byAccountPrices.get(a)!, percentileBps) : undefined;
        if (p !== undefined && p > fee) fee = p;
      }
      out.push({ slot, prioritizationFee: fee });
    }
    return out.sort((x, y) => x.slot - y.slot);
  }

  /** Transactions per sample of `slotsPerSample` slots ending at `tip`, newest first; only whole samples kept in the ring. */
  samples(tip: number, slotsPerSample: number, limit: number): { slot: number; numTransactions: number; numSlots: number }[] {
    const out = [];
    for (let end = tip; end - slotsPerSample + 1 >= this.first && out.length < limit; end -= slotsPerSample) {
      let n = 0;
      for (let s = end - slotsPerSample + 1; s <= end; s++) n += this.has(s) ? (this.txs.get(s)?.length ?? 0) : 0;
      out.push({ slot: end, numTransactions: n, numSlots: slotsPerSample });
    }
    return out;
  }
}

function sortFees(f: SlotFees): void {
  const asc = (x: bigint, y: bigint) => (x < y ? -1 : x > y ? 1 : 0);
  f.prices.sort(asc);
  for (const list of f.byAccountPrices.values()) list.sort(asc);
  f.sorted = true;
}

/** Triton's index into ascending prices: floor(min(p, 9999) × n / 10000); 0 when the slot paid nothing. */
function percentileOf(sortedAsc: readonly bigint[], bps: number): bigint {
  if (sortedAsc.length === 0) return 0n;
  return sortedAsc[Math.floor((Math.min(bps, 9_999) * sortedAsc.length) / 10_000)]!;
}

/** The compute-unit price (micro-lamports) a transaction set with Compute Budget's SetComputeUnitPrice; 0 without. */
export function computeUnitPrice(tx: { staticKeys: readonly string[]; instructions: readonly { programAddressIndex: number; data: Uint8Array }[] }): bigint {
  let price = 0n;
  for (const ix of tx.instructions) {
    const d = ix.data;
    if (d.length >= 9 && d[0] === 3 && tx.staticKeys[ix.programAddressIndex] === 'ComputeBudget111111111111111111111111111111') {
      price = new DataView(d.buffer, d.byteOffset, d.byteLength).getBigUint64(1, true);
    }
  }
  return price;
}
