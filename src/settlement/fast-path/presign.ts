import type { AccountBalance } from '../../chain/chain-view.ts';
import type { WatchedRow } from '../../store/settlement/watched-orders.ts';
import type { Queryable } from '../../store/db.ts';
import type { PlanReads, PlannedTransfer, Pools } from '../pools.ts';
import { PRESIGN_AHEAD_MS, PRESIGN_MAX_AGE_MS } from '../timing.ts';

/** At most this many payouts signed ahead at once (memory, and signing for orders never funded). */
const PRESIGN_AHEAD_MAX = 2_000;

/** What signing ahead touches: the pools (one read, then a plan per order), the store they read, a slot's length. */
export interface PresignPort {
  readonly pools: Pick<Pools, 'reads' | 'plan'>;
  readonly db: Queryable;
  readonly slotMs: number;
}

/** A payout signed ahead (or planned at confirmation and kept like one), and when it was signed. */
export interface SignedAhead {
  tx: PlannedTransfer;
  depositAccount: string;
  at: number;
}

/**
 * Payouts signed ahead, in memory only: nothing here is recorded or sent. A payout signed ahead is used
 * only after its deposit is confirmed and its pool is re-checked (plan-payouts), and is otherwise dropped.
 * Its map is its own: the payout path reads, keeps and drops entries through the methods below.
 */
export class Presigner {
  /** Payouts signed ahead, by order id. */
  private readonly signed = new Map<string, SignedAhead>();
  /** Orders whose payout could not be signed ahead as one transaction, and when that was tried. */
  private readonly failed = new Map<string, number>();
  /** The run in progress, if any: the confirmed path waits for it rather than signing twice. */
  private current: Promise<void> | null = null;

  constructor(private readonly ctx: PresignPort) {}

  get busy(): boolean {
    return this.current !== null;
  }

  /**
   * Starts a run of `work` (which calls run()) unless one is in progress: null then. The run is the
   * presigner's until it ends, whatever it ends with; the caller only detaches it.
   */
  begin(work: () => Promise<void>): Promise<void> | null {
    if (this.current) return null;
    const run: Promise<void> = work().finally(() => {
      if (this.current === run) this.current = null;
    });
    this.current = run;
    return run;
  }

  /** The payout signed ahead for an order, if any (its age is the caller's to check against maxAgeMs). */
  get(orderId: string): SignedAhead | undefined {
    return this.signed.get(orderId);
  }

  /** Keeps a payout planned at confirmation like one signed ahead: a retry of the batch then signs nothing again. */
  keep(orderId: string, entry: SignedAhead): void {
    this.signed.set(orderId, entry);
  }

  /** Drops payouts: used (their order moved to `sending`) or no longer usable. */
  drop(orderIds: Iterable<string>): void {
    for (const id of orderIds) this.signed.delete(id);
  }

  /** The run to wait for, when one is under way and some of these orders have nothing signed ahead yet. */
  runFor(orderIds: readonly string[]): Promise<void> | null {
    return this.current && orderIds.some((id) => !this.signed.has(id)) ? this.current : null;
  }

  /**
   * How long a payout signed ahead is used: PRESIGN_MAX_AGE_MS, or less with short slots so that its
   * blockhash (up to BLOCKHASH_MAX_AGE old when signed, ~150 slots of life) still has ~80 slots left.
   */
  maxAgeMs(): number {
    return Math.min(PRESIGN_MAX_AGE_MS, 40 * this.ctx.slotMs);
  }

  /**
   * Signs ahead the payouts of deposits visible at `processed` (one slot before `confirmed`), and of
   * orders placed in the last PRESIGN_AHEAD_MS whose deposit has not landed yet (partners deposit right
   * after ordering; a burst that lands just before the slot advances then has nothing left to sign), so
   * the confirmed path only records and sends them. Only without a privacy delay (with one, there is
   * time enough at confirmation). `seenProcessed`: the watch's, which this notes newly seen deposits in.
   */
  async run(rows: WatchedRow[], processed: Map<string, AccountBalance>, watched: WatchedRow[], seenProcessed: Set<string>): Promise<void> {
    const ctx = this.ctx;
    const now = Date.now();
    for (const [id, p] of this.signed) if (now - p.at > this.maxAgeMs()) this.signed.delete(id);
    for (const [id, at] of this.failed) if (now - at > this.maxAgeMs()) this.failed.delete(id);
    const watching = new Set(watched.map((r) => String(r.id)));
    for (const id of seenProcessed) if (!watching.has(id)) seenProcessed.delete(id);
    for (const r of rows) {
      if ((processed.get(r.deposit_account)?.tokenAmount ?? 0n) > 0n) seenProcessed.add(String(r.id));
    }
    // Ahead of a deposit at most PRESIGN_AHEAD_MAX at a time: bounded work for orders never funded.
    let room = PRESIGN_AHEAD_MAX - this.signed.size;
    const landed: WatchedRow[] = [];
    const ahead: WatchedRow[] = [];
    for (const r of rows) {
      // A plan that failed (pools short) or split is not tried again until it would have aged out.
      if (this.signed.has(String(r.id)) || this.failed.has(String(r.id)) || r.source_asset_id !== r.destination_asset_id) continue;
      const amount = processed.get(r.deposit_account)?.tokenAmount ?? 0n;
      if (amount === BigInt(r.amount_in)) landed.push(r);
      else if (amount === 0n && now - new Date(r.created_at).getTime() <= PRESIGN_AHEAD_MS && room-- > 0) ahead.push(r);
    }
    // Landed deposits first: they choose their pools before orders that may never be funded.
    const todo = [...landed, ...ahead];
    if (todo.length === 0) return;
    const shared: PlanReads = await ctx.pools.reads([...new Set(todo.map((r) => r.destination_asset_id))]);
    await Promise.all(
      todo.map(async (r) => {
        const plan = await ctx.pools
          .plan({ id: String(r.id), trackingId: r.tracking_id, txBlockhash: r.tx_blockhash }, 'payout', r.destination_asset_id, r.recipient, BigInt(r.amount_out), {}, ctx.db, shared, { quiet: true })
          .catch(() => null);
        if (plan && !plan.meta.sources) this.signed.set(String(r.id), { tx: plan, depositAccount: r.deposit_account, at: now });
        else this.failed.set(String(r.id), now);
      }),
    );
  }
}
