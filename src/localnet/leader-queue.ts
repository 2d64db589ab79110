import { seeded } from '../support/seeded-random.ts';
import { ACCOUNT_COMPUTE_UNITS, BLOCK_COMPUTE_UNITS, backgroundTraffic, type CongestionOptions } from './congestion-profile.ts';
import { computeBudgetOf } from './fee-schedule.ts';
import type { WireTransaction } from './wire-transaction.ts';

interface Queued {
  signature: string;
  bytes: Uint8Array;
  price: bigint;
  units: number;
  writable: readonly string[];
  /** The last slot whose block it may still go into. */
  dropAfter: bigint;
}

interface Candidate {
  price: bigint;
  units: number;
  writes: readonly string[];
  sent: Queued | null;
}

export interface BuiltBlock {
  /** Sent transactions the leader puts into the block, highest price first. */
  include: { signature: string; bytes: Uint8Array }[];
  /** What the background traffic that got in paid, with the hot account each wrote. */
  background: { price: bigint; writes: readonly string[] }[];
}

/**
 * A slot's clearing price: the highest price the block turned away for want of room (0 when it turned nobody
 * away). Anything paying more got in; at or below it, only what fitted the room left (smaller transactions
 * fill a block's end, as agave's scheduler packs it).
 */
interface Clearing {
  price: bigint;
  /** Accounts whose write limit turned somebody away: the highest price turned away for each. */
  byAccount: Map<string, bigint>;
}

const CLEARING_SLOTS = 150;

/**
 * The leader's side of a congested chain: sent transactions wait here, and each slot's block is filled from
 * them and the slot's background traffic by price, within the block's compute limit and each account's
 * write limit. A transaction that does not clear its slot waits up to `queueSlots` slots, then is gone
 * without a trace, as on mainnet: its sender saw a signature and will never see a status.
 */
export class LeaderQueue {
  private readonly queue = new Map<string, Queued>();
  private readonly clearing = new Map<bigint, Clearing>();
  /** Drops follow the order of sends, not the clock: the same sends under the same seed lose the same ones. */
  private readonly lose: () => number;

  constructor(private congestion: CongestionOptions) {
    this.lose = seeded((congestion.seed ^ 0x68e31da4) >>> 0);
  }

  get options(): CongestionOptions {
    return this.congestion;
  }

  /**
   * The market turns (tests and benches: a calm hour gives way to a busy one and back); the seed, drops and
   * queue stay. Slots already built keep their prices, as a chain's history does.
   */
  setProfile(profile: CongestionOptions['profile']): void {
    this.congestion = { ...this.congestion, profile };
  }

  /**
   * A send reaches the RPC during `slot`. Lost on the way at the drop rate; else it waits for a block. A
   * rebroadcast of one still waiting renews its wait, as a new leader that receives it would.
   */
  accept(tx: WireTransaction, bytes: Uint8Array, writable: readonly string[], slot: bigint): void {
    if (this.options.dropRate > 0 && this.lose() < this.options.dropRate) return;
    const dropAfter = slot + BigInt(this.options.queueSlots) - 1n;
    const had = this.queue.get(tx.signature);
    if (had) {
      if (had.dropAfter < dropAfter) had.dropAfter = dropAfter;
      return;
    }
    const budget = computeBudgetOf(tx);
    this.queue.set(tx.signature, { signature: tx.signature, bytes, price: budget.microLamportsPerUnit, units: Number(budget.units), writable, dropAfter });
  }

  /** Transactions waiting for a block. */
  get waiting(): number {
    return this.queue.size;
  }

  /** Fills `slot`'s block; what waited past its last slot is dropped. */
  build(slot: bigint): BuiltBlock {
    const traffic = backgroundTraffic(this.options, slot);
    const accountUsed = new Map<string, number>();
    let blockUsed = 0;
    const room = (units: number, writes: readonly string[]) => {
      if (blockUsed + units > BLOCK_COMPUTE_UNITS) return 'block';
      for (const a of writes) if ((accountUsed.get(a) ?? 0) + units > ACCOUNT_COMPUTE_UNITS) return a;
      return null;
    };
    const take = (units: number, writes: readonly string[]) => {
      blockUsed += units;
      for (const a of writes) accountUsed.set(a, (accountUsed.get(a) ?? 0) + units);
    };
    const block: BuiltBlock = { include: [], background: [] };
    const candidates: Candidate[] = [];
    for (const t of traffic) {
      const writes = t.hot === null ? [] : [t.hot];
      if (t.leak && room(t.units, writes) === null) {
        take(t.units, writes);
        block.background.push({ price: t.price, writes });
      } else if (!t.leak) candidates.push({ price: t.price, units: t.units, writes, sent: null });
    }
    // Sent transactions first among equals: stable sort keeps them ahead of background at the same price.
    const sent = [...this.queue.values()].map((q): Candidate => ({ price: q.price, units: q.units, writes: q.writable, sent: q }));
    const ordered = [...sent, ...candidates].sort((x, y) => (x.price > y.price ? -1 : x.price < y.price ? 1 : 0));
    const clearing: Clearing = { price: 0n, byAccount: new Map() };
    let turnedAway = false;
    for (const c of ordered) {
      const full = room(c.units, c.writes);
      // Prices only fall along the list: the first turned away is the highest.
      if (full === 'block' && !turnedAway) {
        turnedAway = true;
        clearing.price = c.price;
      } else if (full !== null && full !== 'block' && !clearing.byAccount.has(full)) clearing.byAccount.set(full, c.price);
      if (full !== null) continue;
      take(c.units, c.writes);
      if (c.sent) {
        this.queue.delete(c.sent.signature);
        block.include.push({ signature: c.sent.signature, bytes: c.sent.bytes });
      } else block.background.push({ price: c.price, writes: c.writes });
    }
    for (const q of this.queue.values()) if (q.dropAfter <= slot) this.queue.delete(q.signature);
    this.clearing.set(slot, clearing);
    this.clearing.delete(slot - BigInt(CLEARING_SLOTS));
    return block;
  }

  /**
   * The price a transaction writing `writable` had to pay to get into `slot`'s block by price (what
   * bench:landing compares fees with); null for a slot not built or forgotten (older than 150 slots).
   */
  clearingPrice(slot: bigint, writable: readonly string[] = []): bigint | null {
    const c = this.clearing.get(slot);
    if (!c) return null;
    let price = c.price;
    for (const a of writable) {
      const p = c.byAccount.get(a);
      if (p !== undefined && p > price) price = p;
    }
    return price;
  }

  /** The slots whose clearing prices are kept, ascending. */
  clearedSlots(): bigint[] {
    return [...this.clearing.keys()].sort((x, y) => (x < y ? -1 : x > y ? 1 : 0));
  }
}
