import type { AccountBalance } from '../../chain/chain-view.ts';
import { associatedTokenAddress } from '../../domain/associated-token-address.ts';
import { watchedOrders, type WatchedRow } from '../../store/settlement/watched-orders.ts';
import { ORDER_CHANGED_CHANNEL } from '../../store/order-transitions.ts';
import type { SettlementContext } from '../context.ts';
import { confirmFundedOrders, originQuery, type WorkerConfirmDeps } from '../confirm-funded-orders.ts';
import { claimFundedOrders } from '../../store/settlement/claim-funded-orders.ts';
import type { DepositOrigin } from '../../chain/deposit-origin.ts';
import type { PayableOrder } from '../confirm-funded-orders.ts';
import type { WatchedBalances } from './watched-balances.ts';

/** The list of orders awaiting a deposit is read again at least this often, notified of a change or not. */
const WATCHED_LIST_REFRESH_MS = 1000;

function watchedOrder(r: WatchedRow): PayableOrder {
  return {
    id: String(r.id),
    trackingId: r.tracking_id,
    accountId: r.account_id,
    depositAccount: r.deposit_account,
    sender: r.sender,
    recipient: r.recipient,
    feeRecipient: r.fee_recipient,
    amountIn: BigInt(r.amount_in),
    amountOut: BigInt(r.amount_out),
    sourceAssetId: r.source_asset_id,
    destinationAssetId: r.destination_asset_id,
    mode: r.mode,
    txBlockhash: r.tx_blockhash,
    quote: r.quote,
  };
}

/** What the watch touches: its reads and the one confirmation path it hands funded orders to. */
export type DepositWatchDeps = WorkerConfirmDeps & Pick<SettlementContext, 'slots' | 'depositBalances' | 'sent' | 'view' | 'running'>;

/**
 * Deposit watch: whenever the `confirmed` slot advances, one read of every watched deposit account; the
 * orders whose deposit became visible are handed to confirmFundedOrders under the watch's own lease holder
 * (the runner gives it `<worker>:watch`), whose statement claims those nobody holds (SKIP LOCKED, as the
 * order loop's claim). An order another holds, the order loop's included, is left to it: the holder
 * confirms it, or gives it back and the next slot's read finds it again. The watch owns its caches and
 * writes nothing itself.
 */
export class DepositWatch {
  private lastSlot = -1n;
  /** Orders awaiting a deposit, as of the last `confirmed` slot advance. */
  private watched: WatchedRow[] = [];
  /**
   * The list as last read from the store. Orders enter and leave it only by a creation or a transition,
   * both notified (ORDER_CHANGED_CHANNEL): the store is read again after one, not on every slot (20 reads
   * a second of an idle store at 50 ms slots). A lost notification costs at most WATCHED_LIST_REFRESH_MS;
   * without notifications (listen failed) the list is read every slot, as before.
   */
  private readonly list = { rows: [] as WatchedRow[], changed: true, readAt: 0, listening: null as Promise<(() => Promise<void>) | null> | null };
  /**
   * Orders handed to a batch of this watch (from the read that found them funded, before their lease): left
   * alone by its reads until the batch gives back those it did not lease or did not confirm, and those it
   * confirmed until they leave the watched list (a list read before their confirmation's notification still
   * holds them). Saves a batch's signature lookups, nothing more: the confirmation's claim decides.
   */
  private readonly handed = new Set<string>();
  /** When the watch last had deposits to confirm: sweeps stay out of the way of a burst. */
  lastBurstAt = 0;
  private readonly warmup: RecipientWarmup;
  /** The watched accounts' balances: notifications while the socket is up, reads otherwise. */
  private readonly balances: WatchedBalances;

  constructor(private readonly ctx: DepositWatchDeps) {
    this.warmup = new RecipientWarmup(ctx);
    this.balances = ctx.depositBalances;
  }

  /** Drops the account subscriptions and the store notifications (the worker stops). */
  stop(): void {
    this.balances.clear();
    void this.list.listening?.then((unlisten) => unlisten?.()).catch(() => {});
  }

  /** The orders awaiting a deposit: read from the store when they may have changed, else as last read. */
  private async watchedList(): Promise<WatchedRow[]> {
    const list = this.list;
    list.listening ??= this.ctx.db
      .listen(ORDER_CHANGED_CHANNEL, () => (list.changed = true), () => (list.changed = true))
      .catch(() => null);
    const live = (await list.listening) !== null;
    if (live && !list.changed && this.ctx.clock.now() - list.readAt < WATCHED_LIST_REFRESH_MS) return list.rows;
    // Cleared before the read: a change notified while it runs is read on the next slot.
    list.changed = false;
    list.readAt = this.ctx.clock.now();
    list.rows = await watchedOrders(this.ctx.db).catch((e: unknown) => {
      list.changed = true;
      throw e;
    });
    return list.rows;
  }

  async tick(): Promise<void> {
    const confirmedSlot = await this.ctx.slots.current();
    const notifiedFunded = this.balances.takeFunded();
    if (confirmedSlot !== this.lastSlot || notifiedFunded) {
      this.lastSlot = confirmedSlot;
      // Pending transactions reach `confirmed` exactly when this slot advances: settle them now, not next tick
      // (with none in flight the loop's own idle pass finds any another process sent).
      if (this.ctx.sent.mayHaveLanded) this.ctx.wake('transactions');
      await this.readAndConfirm();
    }
  }

  /** The full read: the watched list refreshed, every watched account's balance, the funded ones confirmed. */
  private async readAndConfirm(): Promise<void> {
    const { ctx } = this;
    // The accounts watched so far are read while the list is refreshed; new ones are read after.
    const known = this.watched;
    const [rows, knownBalances] = await Promise.all([this.watchedList(), this.balances.read(known.map((r) => r.deposit_account))]);
    this.watched = rows;
    this.balances.retain(rows.map((r) => r.deposit_account));
    this.warmup.warm(rows);
    const unread = rows.filter((r) => !knownBalances.has(r.deposit_account)).map((r) => r.deposit_account);
    const balances = unread.length > 0 ? new Map([...knownBalances, ...(await this.balances.read(unread))]) : knownBalances;
    const watching = new Set(rows.map((r) => String(r.id)));
    for (const id of this.handed) if (!watching.has(id)) this.handed.delete(id);
    ctx.foreign.retain(watching);
    const fresh = (id: string) => !this.handed.has(id);
    // A balance found to be someone else's is looked at again only once it changes (or the verdict is old).
    const funded = rows.filter((r) => {
      const amount = balances.get(r.deposit_account)?.tokenAmount ?? 0n;
      return amount > 0n && fresh(String(r.id)) && !ctx.foreign.holds(String(r.id), amount);
    });
    if (funded.length === 0) return;
    this.lastBurstAt = ctx.clock.now();
    const fundedIds = new Set(funded.map((r) => String(r.id)));
    // Handed before the lease is asked for: the next notification's read, while this batch's lease statement runs,
    // found the same orders fresh, leased them again (same holder) and read their origins again (two workers on
    // PostgreSQL: 392 leases and 2.8 getTransaction per order for a burst of 200).
    for (const id of fundedIds) this.handed.add(id);
    this.watched = rows.filter((r) => !fundedIds.has(String(r.id)));
    // Not awaited: the watch keeps looking while this batch is claimed, confirmed, recorded and sent.
    ctx.detach(this.claimThenConfirm(funded, balances));
  }

  /**
   * Leases the funded orders nobody else holds, then looks up only their deposits' transactions (another
   * worker's watch, or the order loop, confirms the rest). A failed lease statement leaves the claim to the
   * confirmation's, as before: every origin read.
   */
  private async claimThenConfirm(rows: WatchedRow[], balances: Map<string, AccountBalance>): Promise<void> {
    const held = await claimFundedOrders(this.ctx.db, rows.map((r) => String(r.id)), this.ctx.workerId, this.ctx.leaseSeconds).catch((e: unknown) => {
      this.ctx.log({ err: e }, 'leasing funded orders failed');
      return null;
    });
    const mine = held ? rows.filter((r) => held.has(String(r.id))) : rows;
    if (held) for (const r of rows) if (!held.has(String(r.id))) this.handed.delete(String(r.id));
    if (mine.length > 0) await this.confirmBatch(mine.map(watchedOrder), balances, this.originsOf(mine));
  }

  /** Each order's own deposit (DepositOrigins: a batch of history reads, then of the transactions not yet judged), by account; never rejects. */
  private originsOf(rows: WatchedRow[]): Promise<Map<string, DepositOrigin | null | undefined>> {
    return this.ctx.foreign.origins.find(rows.map((r) => originQuery(this.ctx, watchedOrder(r)))).catch(() => new Map());
  }

  /** confirmFundedOrders for the watch: the orders it did not confirm (another held them) go back to the next slot's read. */
  private async confirmBatch(orders: PayableOrder[], balances: Map<string, AccountBalance>, origins: Promise<Map<string, DepositOrigin | null | undefined>>): Promise<void> {
    const confirmed = await confirmFundedOrders(this.ctx, orders, balances, origins);
    for (const o of orders) if (!confirmed.has(o.id)) this.handed.delete(o.id);
  }
}

type WarmupDeps = Pick<SettlementContext, 'asset' | 'running' | 'detach' | 'log'>;

/**
 * Derives the recipient token accounts of newly watched orders in the background (memoized by
 * associatedTokenAddress): the derivation is JS curve math, ~1 ms each, that a burst of payouts would
 * otherwise pay at once, after its deposits are confirmed.
 */
class RecipientWarmup {
  /** Watched orders whose recipient token account is derived already. */
  private readonly warmed = new Set<string>();
  private warming = false;

  constructor(private readonly ctx: WarmupDeps) {}

  warm(rows: WatchedRow[]): void {
    const fresh = rows.filter((r) => !this.warmed.has(String(r.id)));
    if (fresh.length === 0 || this.warming) return;
    const watching = new Set(rows.map((r) => String(r.id)));
    for (const id of this.warmed) if (!watching.has(id)) this.warmed.delete(id);
    this.warming = true;
    this.ctx.detach(
      (async () => {
        for (const r of fresh) {
          if (!this.ctx.running()) break;
          const asset = this.ctx.asset(r.destination_asset_id);
          if (!asset.native) associatedTokenAddress(r.recipient, asset.mint, asset.tokenProgram);
          this.warmed.add(String(r.id));
        }
      })()
        .catch((e: unknown) => this.ctx.log({ err: e }, 'recipient warm-up failed'))
        .finally(() => (this.warming = false)),
    );
  }
}
