import { randomBytes, randomInt } from 'node:crypto';
import type { Address } from '@solana/kit';
import type { Asset } from '../config/assets.ts';
import type { HushConfig } from '../config/config.ts';
import { buildPayout, buildSweep, type SweepItem, type TxShape } from '../chain/hush-transactions.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { Db, Queryable } from '../store/db.ts';
import { purgeIdempotencyKeys } from '../store/idempotency-store.ts';
import { getOrderById, transitionOrder, type OrderRecord } from '../store/orders-store.ts';
import {
  assetsWithUnsweptDeposits,
  attachSweep,
  chainTxsOfOrder,
  claimDueOrders,
  claimOrder,
  finishSweep,
  getChainTx,
  insertChainTx,
  lockUnsweptDeposits,
  pendingChainTxs,
  pendingOutflows,
  recordMovement,
  releaseOrder,
  setPayoutDue,
  settleChainTx,
  type ChainTx,
} from '../store/settlement-store.ts';
import type { PoolWallet, Treasury } from '../treasury/treasury.ts';
import { ChainView, type AccountBalance } from './chain-view.ts';
import type { SwapPricing } from '../prices/swap-pricing.ts';
import { runRebalance, type Rebalancer } from '../rebalance/rebalancer.ts';
import type { FreshPrices } from '../prices/price-source.ts';
import { convertForSwap } from '../domain/swap-conversion.ts';
import { faultPoint } from './fault-points.ts';

export interface WorkerOptions {
  workerId?: string;
  /** How often the loops wake; defaults to half a slot. */
  tickMs?: number;
  sweepIntervalMs?: number;
  leaseSeconds?: number;
  /** A non-final order older than this (past its expiration) is failed by the watchdog. */
  stuckAfterMs?: number;
  log?: (obj: Record<string, unknown>, msg: string) => void;
  /** Live prices, for the drift check of swaps; without it swaps wait. */
  swaps?: SwapPricing;
  /** Aggregate inventory rebalancing (absent: off); needs `prices`. */
  rebalancer?: Rebalancer;
  prices?: FreshPrices;
  /** Inventory each asset's pools should hold in total (base units); the rebalancer aims for it. */
  inventoryTargets?: Map<string, bigint>;
  rebalanceIntervalMs?: number;
}

/** Lamports a SOL pool keeps so it stays rent-exempt. */
const SOL_POOL_RESERVE = 10_000_000n;
const RESEND_EVERY_MS = 2000;
const SWEEP_BATCH = 4;
/** Orders claimed per batch, and batches stepped at once. */
const ORDER_BATCH = 64;
const ORDER_BATCHES_IN_FLIGHT = 4;
/**
 * Polls are fallbacks where a faster signal exists: the deposit watch wakes an order whose deposit became
 * visible, and settling a payout or refund wakes its order. Each poll costs a claim and a release.
 */
const AWAITING_POLL_SLOTS = 4;
const SETTLE_FALLBACK_SLOTS = 4;
/** Payouts planned and recorded together (one read of pending outflows and pool balances). */
const PAYOUT_BATCH = 64;

/** What a batch of pool choices shares: one read of pending outflows and balances, and what it took. */
interface PlanReads {
  pending: Map<string, bigint>;
  balances: Map<string, AccountBalance>;
  taken: Map<string, bigint>;
}

type PlannedTransfer = NonNullable<Awaited<ReturnType<SettlementWorker['planTransfers']>>>[number];
/** Advisory lock naming the partner-payout job among all workers. */
const PARTNER_PAYOUT_LOCK = 87870002;

/**
 * Settlement: detects deposits, pays out from pool wallets after the privacy delay, refunds what cannot
 * be delivered, expires orders without a deposit, sweeps deposits into pools in batches, and settles
 * the fate of every transaction it signed. Exactly once: a payout is recorded (signed bytes, signature,
 * last valid block height) before it is sent, and a new one is built only after the recorded one can
 * provably never land.
 */
export class SettlementWorker {
  private readonly view: ChainView;
  private readonly swaps?: SwapPricing;
  private readonly rebalancer?: Rebalancer;
  private readonly prices?: FreshPrices;
  private readonly inventoryTargets?: Map<string, bigint>;
  private readonly rebalanceIntervalMs: number;
  private readonly workerId: string;
  private readonly tickMs: number;
  private readonly sweepIntervalMs: number;
  private readonly leaseSeconds: number;
  private readonly stuckAfterMs: number;
  private readonly log: NonNullable<WorkerOptions['log']>;
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly lastSent = new Map<string, number>();
  private sleepers = new Set<() => void>();
  /** Cuts a loop's sleep short (by loop name), when work for it is known to be due now. */
  private readonly wakers = new Map<string, () => void>();
  private lastWatchedSlot = -1n;
  /** Serializes choosing pools and recording the transfers: see `exclusive`. */
  private planLock: Promise<unknown> = Promise.resolve();
  private readonly payoutQueue: {
    o: OrderRecord;
    from: 'deposit_confirmed' | 'swapping';
    resolve: (r: { planned: PlannedTransfer[] | null; ok: boolean }) => void;
    reject: (e: unknown) => void;
  }[] = [];
  private payoutBatches: Promise<void> | null = null;

  constructor(
    private readonly config: HushConfig,
    private readonly db: Db,
    chain: SolanaChain,
    private readonly treasury: Treasury,
    opts: WorkerOptions = {},
  ) {
    this.view = new ChainView(chain);
    this.swaps = opts.swaps;
    this.rebalancer = opts.rebalancer;
    this.prices = opts.prices;
    this.inventoryTargets = opts.inventoryTargets;
    this.rebalanceIntervalMs = opts.rebalanceIntervalMs ?? config.rebalanceIntervalS * 1000;
    this.workerId = opts.workerId ?? `w_${randomBytes(4).toString('hex')}`;
    this.tickMs = opts.tickMs ?? Math.max(20, Math.floor(config.localnetSlotMs / 2));
    this.sweepIntervalMs = opts.sweepIntervalMs ?? config.sweepIntervalS * 1000;
    this.leaseSeconds = opts.leaseSeconds ?? 30;
    this.stuckAfterMs = opts.stuckAfterMs ?? 60 * 60 * 1000;
    this.log = opts.log ?? (() => {});
  }

  private chain(): SolanaChain {
    return this.view.chain;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.loops = [
      this.loop('orders', this.tickMs, () => this.orderTick()),
      this.loop('transactions', this.tickMs, () => this.txTick()),
      this.loop('deposit-watch', Math.max(10, Math.floor(this.tickMs / 4)), () => this.depositWatchTick()),
      this.loop('sweeps', this.sweepIntervalMs, () => this.sweepTick()),
      this.loop('partner-payouts', this.config.partnerPayoutIntervalS * 1000, () => this.partnerTick()),
      this.loop('late-deposits', Math.max(this.sweepIntervalMs, 5000), () => this.lateDepositTick()),
      this.loop('maintenance', 30_000, () => this.maintenanceTick()),
      this.loop('rebalance', this.rebalanceIntervalMs, () => this.rebalanceTick()),
    ];
  }

  /** Finishes the iteration in progress in each loop, then returns. */
  async stop(): Promise<void> {
    this.running = false;
    for (const wake of this.sleepers) wake();
    await Promise.all(this.loops);
  }

  private async loop(name: string, everyMs: number, body: () => Promise<unknown>): Promise<void> {
    while (this.running) {
      try {
        await body();
      } catch (e) {
        this.log({ err: e, loop: name }, 'settlement loop error');
      }
      if (!this.running) break;
      await new Promise<void>((resolve) => {
        const t = setTimeout(done, everyMs);
        const wakers = this.wakers;
        function done() {
          clearTimeout(t);
          if (wakers.get(name) === done) wakers.delete(name);
          resolve();
        }
        this.sleepers.add(done);
        this.wakers.set(name, done);
        setTimeout(() => this.sleepers.delete(done), everyMs + 1).unref();
      });
    }
  }

  private shape(blockhash: { blockhash: string; lastValidBlockHeight: bigint }): TxShape {
    return {
      feePayer: this.treasury.feePayer,
      computeUnitLimit: this.config.computeUnitLimit,
      computeUnitPriceMicroLamports: this.config.computeUnitPriceMicroLamports,
      blockhash,
    };
  }

  private asset(id: string): Asset {
    const a = this.config.assets.get(id);
    if (!a) throw new Error(`unknown asset ${id}`);
    return a;
  }

  // ---- orders ----

  /**
   * Claims and steps due orders. While batches come back full (a burst), the next one is claimed without
   * waiting for the previous one to finish, up to ORDER_BATCHES_IN_FLIGHT at once.
   */
  async orderTick(): Promise<number> {
    let total = 0;
    const inflight = new Set<Promise<void>>();
    for (;;) {
      const orders = await claimDueOrders(this.db, this.workerId, ORDER_BATCH, this.leaseSeconds);
      total += orders.length;
      if (orders.length > 0) {
        const p: Promise<void> = this.stepBatch(orders).then(() => void inflight.delete(p));
        inflight.add(p);
      }
      if (orders.length < ORDER_BATCH || !this.running) break;
      if (inflight.size >= ORDER_BATCHES_IN_FLIGHT) await Promise.race(inflight);
    }
    await Promise.all(inflight);
    return total;
  }

  /** Steps claimed orders; never throws (a failed step releases its order with back-off). */
  private async stepBatch(orders: OrderRecord[]): Promise<void> {
    const watching = orders.filter((o) => o.status === 'awaiting_deposit' || o.status === 'deposit_detected');
    let deposits: Awaited<ReturnType<SettlementWorker['depositStates']>>;
    try {
      deposits = await this.depositStates(watching);
    } catch (e) {
      this.log({ err: e }, 'deposit reads failed');
      await Promise.all(orders.map((o) => releaseOrder(this.db, o.id, this.workerId, { afterError: true }).catch(() => {})));
      return;
    }
    await Promise.all(
      orders.map(async (o) => {
        try {
          const next = await this.step(o, deposits);
          await releaseOrder(this.db, o.id, this.workerId, next);
        } catch (e) {
          this.log({ err: e, trackingId: o.trackingId, status: o.status }, 'order step failed');
          await releaseOrder(this.db, o.id, this.workerId, { afterError: true }).catch(() => {});
        }
      }),
    );
  }

  private async depositStates(orders: OrderRecord[]) {
    const addresses = orders.map((o) => o.depositAccount);
    if (addresses.length === 0) return { confirmed: new Map(), processed: new Map(), height: 0n };
    const [confirmed, processed, height] = await Promise.all([
      this.view.balances(addresses, 'confirmed'),
      this.view.balances(addresses, 'processed'),
      this.view.blockHeight('finalized'),
    ]);
    return { confirmed, processed, height };
  }

  /** One step of the state machine; returns when to look at the order again. */
  private async step(o: OrderRecord, deposits: Awaited<ReturnType<SettlementWorker['depositStates']>>): Promise<{ delayMs?: number; at?: Date }> {
    const slot = this.config.localnetSlotMs;
    switch (o.status) {
      case 'awaiting_deposit':
      case 'deposit_detected': {
        const c = deposits.confirmed.get(o.depositAccount);
        const p = deposits.processed.get(o.depositAccount);
        if (c?.exists && (c.tokenAmount ?? 0n) > 0n) return this.confirmDeposit(o, c.tokenAmount!);
        if (p?.exists && (p.tokenAmount ?? 0n) > 0n) {
          if (o.status === 'awaiting_deposit') {
            await transitionOrder(this.db, o.id, 'awaiting_deposit', 'deposit_detected', { deposit: { signature: '', amount: p.tokenAmount!.toString(), confirmedAt: null } });
          }
          return { delayMs: slot / 2 };
        }
        if (o.status === 'deposit_detected') {
          await transitionOrder(this.db, o.id, 'deposit_detected', 'awaiting_deposit', { deposit: null });
          return { delayMs: slot };
        }
        // No deposit can land once every issued blockhash is dead (checked at `finalized`).
        if (Date.now() > o.expiration.getTime() && deposits.height > o.txLastValidBlockHeight) {
          await transitionOrder(this.db, o.id, 'awaiting_deposit', 'expired');
          return {};
        }
        return { delayMs: AWAITING_POLL_SLOTS * slot };
      }
      case 'deposit_confirmed':
        return this.payOrRefund(o);
      case 'sending':
      case 'refunding':
        return this.advancePayout(o);
      case 'swapping':
        return this.payOrRefund(o);
      default:
        return {};
    }
  }

  private async confirmDeposit(o: OrderRecord, amount: bigint): Promise<{ delayMs?: number; at?: Date }> {
    const signature = (await this.view.firstSignature(o.depositAccount)) ?? '';
    const now = new Date();
    const deposit = { signature, amount: amount.toString(), confirmedAt: now.toISOString() };
    if (o.status === 'awaiting_deposit') await transitionOrder(this.db, o.id, 'awaiting_deposit', 'deposit_detected', { deposit: { ...deposit, confirmedAt: null } });
    const moved = await transitionOrder(this.db, o.id, 'deposit_detected', 'deposit_confirmed', { deposit });
    if (!moved) return { delayMs: 0 };
    await this.recordDeposit(o, amount);
    const due = await this.drawPayoutDue(o.id, now);
    faultPoint('deposit-confirmed');
    // Already due (privacy delay window 0-0): pay now, under the lease this worker holds, instead of a
    // release and a claim a tick later. Same payout path, same compare-and-set transitions.
    // A swap steps on now as well: its drift check and `swapping` belong to deposit confirmation, not to
    // the payout after the privacy delay (payOrRefund then waits for `due` in `swapping`).
    if (due.getTime() <= Date.now() || o.sourceAssetId !== o.destinationAssetId) return this.payOrRefund({ ...o, status: 'deposit_confirmed', deposit }, { dueAt: due });
    return { at: due };
  }

  /** The deposit on the ledger (idempotent: one movement per order). */
  private async recordDeposit(o: OrderRecord, amount: bigint): Promise<void> {
    await recordMovement(
      this.db,
      `deposit:${o.trackingId}`,
      'deposit',
      [
        { account: 'external:senders', assetId: o.sourceAssetId, amount: -amount },
        { account: `deposit:${o.depositAccount}`, assetId: o.sourceAssetId, amount },
      ],
      o.id,
    );
  }

  /** Draws the privacy delay once per order (the first draw wins) and returns the payout due time. */
  private async drawPayoutDue(orderId: string, from: Date): Promise<Date> {
    const { min, max } = this.config.payoutDelayS;
    const delayMs = (min + (max > min ? randomInt(max - min + 1) : 0)) * 1000 + (max > 0 ? randomInt(1000) : 0);
    return (await setPayoutDue(this.db, orderId, new Date(from.getTime() + delayMs)))!;
  }

  /** `confirmed`: passed by confirmDeposit, which has just recorded the deposit and drawn the due time. */
  private async payOrRefund(o: OrderRecord, confirmed?: { dueAt: Date }): Promise<{ delayMs?: number; at?: Date }> {
    const deposited = BigInt(o.deposit?.amount ?? '0');
    // A deposit confirmed through the deposit hint (the API) never went through confirmDeposit: put it on
    // the ledger and draw its privacy delay here (both idempotent), before anything moves.
    if (!confirmed) await this.recordDeposit(o, deposited);
    if (deposited !== o.amountIn) {
      await transitionOrder(this.db, o.id, 'deposit_confirmed', 'refunding', { failureReason: deposited < o.amountIn ? 'deposit_short' : 'deposit_over' });
      return { delayMs: 0 };
    }
    let from: 'deposit_confirmed' | 'swapping' = o.status === 'swapping' ? 'swapping' : 'deposit_confirmed';
    if (from === 'deposit_confirmed' && o.sourceAssetId !== o.destinationAssetId) {
      const swap = await this.startSwap(o);
      if (swap === 'refund') return { delayMs: 0 };
      if (swap === 'wait') return { delayMs: 2000 };
      from = 'swapping';
    }
    const dueAt = confirmed?.dueAt ?? (await this.payoutDueAt(o.id));
    if (dueAt === null) return { at: await this.drawPayoutDue(o.id, new Date(o.deposit?.confirmedAt ?? Date.now())) };
    if (dueAt.getTime() > Date.now()) return { at: dueAt };
    const { planned, ok } = await this.recordPayout(o, from);
    if (!planned) return { delayMs: 5000 };
    if (!ok) return { delayMs: 0 };
    faultPoint('payout-recorded');
    await this.sendAll(planned.map((p) => p.wire));
    faultPoint('payout-sent');
    return { delayMs: SETTLE_FALLBACK_SLOTS * this.config.localnetSlotMs };
  }

  /**
   * `deposit_confirmed → swapping` for a cross-asset order: the quote's rate is honoured unless the market
   * has since moved against Hush by more than HUSH_SWAP_MAX_DRIFT_BPS, in which case the deposit is
   * refunded (`price_moved`). The status change and the inventory legs (source in, destination owed) are
   * one database transaction. Without a fresh price the order waits.
   */
  private async startSwap(o: OrderRecord): Promise<'swapped' | 'refund' | 'wait'> {
    if (!this.swaps) return 'wait';
    const net = o.amountIn - o.serviceFee - o.partnerFee - o.networkFee;
    let liveOut: bigint;
    try {
      const p = this.swaps.pair(o.sourceAssetId, o.destinationAssetId);
      liveOut = convertForSwap(net, p.from, p.to, p.spreadBps);
    } catch {
      return 'wait';
    }
    if (liveOut * 10_000n < o.amountOut * (10_000n - BigInt(this.config.swapMaxDriftBps))) {
      await transitionOrder(this.db, o.id, 'deposit_confirmed', 'refunding', { failureReason: 'price_moved' });
      this.log({ trackingId: o.trackingId, quoted: o.amountOut.toString(), live: liveOut.toString() }, 'swap refunded: price moved');
      return 'refund';
    }
    const moved = await this.db.transaction(async (tx) => {
      if (!(await transitionOrder(tx, o.id, 'deposit_confirmed', 'swapping'))) return false;
      await recordMovement(
        tx,
        `swap:${o.trackingId}`,
        'swap',
        [
          { account: 'swaps:received', assetId: o.sourceAssetId, amount: net },
          { account: 'swaps:book', assetId: o.sourceAssetId, amount: -net },
          { account: 'swaps:owed', assetId: o.destinationAssetId, amount: -o.amountOut },
          { account: 'swaps:book', assetId: o.destinationAssetId, amount: o.amountOut },
        ],
        o.id,
      );
      return true;
    });
    return moved ? 'swapped' : 'wait';
  }

  private async payoutDueAt(orderId: string): Promise<Date | null> {
    const { rows } = await this.db.query<{ payout_due_at: Date | null }>('SELECT payout_due_at FROM orders WHERE id = $1', [orderId]);
    return rows[0]?.payout_due_at ?? null;
  }

  /** Drives `sending`/`refunding`: replaces dead transactions, completes when every part has landed. */
  private async advancePayout(o: OrderRecord): Promise<{ delayMs?: number; at?: Date }> {
    const kind = o.status === 'sending' ? 'payout' : 'refund';
    const txs = await chainTxsOfOrder(this.db, o.id, kind);
    if (kind === 'refund' && txs.length === 0) return this.startRefund(o);
    const parts = new Map<number, ChainTx[]>();
    for (const t of txs) {
      const part = Number(t.meta.part ?? 0);
      parts.set(part, [...(parts.get(part) ?? []), t]);
    }
    const landed: ChainTx[] = [];
    for (const [part, list] of parts) {
      const live = list.find((t) => t.status === 'pending' || t.status === 'confirmed');
      if (live?.status === 'confirmed') landed.push(live);
      else if (!live) await this.replacePart(o, list[list.length - 1]!, part);
    }
    if (landed.length < parts.size) return { delayMs: SETTLE_FALLBACK_SLOTS * this.config.localnetSlotMs };
    const now = new Date().toISOString();
    const transfers = landed.map((t) => ({ signature: t.signature, amount: t.amount.toString(), confirmedAt: (t.meta.confirmedAt as string | undefined) ?? now }));
    faultPoint('payout-confirmed');
    if (kind === 'payout') {
      if (await transitionOrder(this.db, o.id, 'sending', 'completed', { payouts: transfers })) {
        await recordMovement(
          this.db,
          `fees:${o.trackingId}`,
          'fee_income',
          [
            { account: 'income:service', assetId: o.sourceAssetId, amount: -o.serviceFee },
            { account: `payable:partner:${o.accountId}:${o.feeRecipient ?? '-'}`, assetId: o.sourceAssetId, amount: -o.partnerFee },
            { account: 'income:network_fee', assetId: o.sourceAssetId, amount: -o.networkFee },
            { account: 'custody:retained', assetId: o.sourceAssetId, amount: o.serviceFee + o.partnerFee + o.networkFee },
          ],
          o.id,
        );
      }
    } else {
      const total = landed.reduce((s, t) => s + t.amount, 0n);
      const reason = o.failureReason ?? 'undeliverable';
      if (await transitionOrder(this.db, o.id, 'refunding', 'refunded', { refund: { signature: landed[0]!.signature, amount: total.toString(), reason } })) {
        const deposited = BigInt(o.deposit?.amount ?? '0');
        await recordMovement(
          this.db,
          `fees:${o.trackingId}`,
          'fee_income',
          [
            { account: 'income:network_fee', assetId: o.sourceAssetId, amount: -(deposited - total) },
            { account: 'custody:retained', assetId: o.sourceAssetId, amount: deposited - total },
          ],
          o.id,
        );
      }
    }
    return {};
  }

  /** A refund returns the deposit less the network fee, in the source asset, from a pool. */
  private async startRefund(o: OrderRecord): Promise<{ delayMs?: number }> {
    const deposited = BigInt(o.deposit?.amount ?? '0');
    const amount = deposited - o.networkFee;
    if (amount <= 0n) {
      await transitionOrder(this.db, o.id, 'refunding', 'failed', { failureReason: 'deposit_below_refund_cost' });
      this.log({ trackingId: o.trackingId, deposited: deposited.toString() }, 'ALERT: deposit too small to refund; held in custody');
      return {};
    }
    const { planned, ok } = await this.exclusive(async () => {
      const planned = await this.planTransfers(o, 'refund', o.sourceAssetId, o.sender as Address, amount);
      if (!planned) return { planned, ok: false };
      const ok = await this.db.transaction(async (tx) => {
        for (const p of planned) if ((await insertChainTx(tx, p)) === null) return false;
        return true;
      });
      return { planned, ok };
    });
    if (!planned) return { delayMs: 5000 };
    if (!ok) return { delayMs: 0 };
    faultPoint('refund-recorded');
    await this.sendAll(planned.map((p) => p.wire));
    return { delayMs: SETTLE_FALLBACK_SLOTS * this.config.localnetSlotMs };
  }

  /**
   * Rebuilds a part whose transaction provably cannot land (expired) or landed and failed: from a pool
   * that can cover it now (not blindly the same pool, which may be what made it fail), under the same
   * planning lock as new payouts. When no single pool can, it waits for the next tick.
   */
  private async replacePart(o: OrderRecord, dead: ChainTx, part: number | string): Promise<void> {
    const kind = dead.kind as 'payout' | 'refund';
    const sent = await this.exclusive(async () => {
      const planned = await this.planTransfers(o, kind, dead.assetId, dead.destination as Address, dead.amount, { ...dead.meta });
      if (!planned || planned.length !== 1) return null;
      const row = { ...planned[0]!, meta: { ...planned[0]!.meta, part } };
      return (await insertChainTx(this.db, row)) !== null ? row.wire : null;
    });
    if (sent) await this.sendAll([sent]);
    else this.log({ trackingId: o.trackingId, part: String(part) }, 'replacement payout waits: no pool can cover it now');
  }

  /**
   * Chooses pool wallets for an outgoing amount: a random pool that can cover it, else a random split
   * across several. Balances are read at `confirmed` less what pending transactions will take.
   */
  private async planTransfers(
    o: { id: string | null; trackingId: string },
    kind: 'payout' | 'refund' | 'partner_payout',
    assetId: string,
    destination: Address,
    amount: bigint,
    meta: Record<string, unknown> = {},
    /** Inside a transaction, reads must use it: PGlite serializes everything behind an open transaction. */
    q: Queryable = this.db,
    /** Reads shared by a batch of plans (recordPayoutBatches); each plan adds what it chose to `taken`. */
    shared?: PlanReads,
  ) {
    const asset = this.asset(assetId);
    const pools = this.treasury.pools(assetId);
    // Pending first, balances second: a transaction that settles in between is then subtracted twice
    // (safe), never missed by both reads (which could overspend a pool).
    const pending = shared?.pending ?? (await pendingOutflows(q));
    const balances = shared?.balances ?? (await this.view.balances(pools.map((p) => p.holding), 'confirmed'));
    const available = (p: PoolWallet) => {
      const b = balances.get(p.holding);
      const held = asset.native ? (b?.lamports ?? 0n) - SOL_POOL_RESERVE : (b?.tokenAmount ?? 0n);
      return held - (pending.get(p.holding) ?? 0n) - (shared?.taken.get(p.holding) ?? 0n);
    };
    const shuffled = [...pools].sort(() => Math.random() - 0.5);
    const single = shuffled.find((p) => available(p) >= amount);
    const chosen: { pool: PoolWallet; amount: bigint }[] = [];
    if (single) chosen.push({ pool: single, amount });
    else {
      let left = amount;
      // No single pool covers it: largest pools first, so the split has as few parts as the quote's
      // networkFee paid for (Inventory.payoutParts computes the same count).
      for (const p of [...shuffled].sort((a, b) => (available(b) > available(a) ? 1 : available(b) < available(a) ? -1 : 0))) {
        const take = available(p) < left ? available(p) : left;
        if (take <= 0n) continue;
        chosen.push({ pool: p, amount: take });
        left -= take;
        if (left === 0n) break;
      }
      if (left > 0n) {
        this.log({ trackingId: o.trackingId, assetId, amount: amount.toString() }, 'ALERT: pools cannot cover a payout; will retry');
        return null;
      }
    }
    // With shared reads there was no await above: the choice and this update are one synchronous step.
    for (const c of chosen) shared?.taken.set(c.pool.holding, (shared.taken.get(c.pool.holding) ?? 0n) + c.amount);
    const blockhash = await this.chain().latestBlockhash();
    return Promise.all(
      chosen.map(async (c, part) => {
        const signed = await buildPayout(this.shape(blockhash), { asset, pool: c.pool.signer, poolHolding: c.pool.holding, recipient: destination, amount: c.amount });
        return { kind, orderId: o.id, assetId, amount: c.amount, source: c.pool.holding, destination, ...signed, meta: { ...meta, part } };
      }),
    );
  }

  private async sendAll(wires: string[]): Promise<void> {
    await Promise.all(
      wires.map(async (w) => {
        try {
          await this.view.send(w);
        } catch (e) {
          // The settle loop resends while the blockhash is valid.
          this.log({ err: e }, 'send failed; will retry');
        }
      }),
    );
  }

  // ---- transactions ----

  /** Settles the fate of every pending transaction Hush signed; resends those that may still land. */
  async txTick(): Promise<number> {
    const pending = await pendingChainTxs(this.db, 256);
    if (pending.length === 0) return 0;
    const [statuses, finalizedHeight] = await Promise.all([this.view.statuses(pending.map((t) => t.signature)), this.view.blockHeight('finalized')]);
    const resend: string[] = [];
    await Promise.all(
      pending.map(async (t, i) => {
        const st = statuses[i];
        if (st && st.confirmationStatus !== 'processed') {
          await this.landed(t, st.err === null);
        } else if (!st && finalizedHeight > t.lastValidBlockHeight) {
          // Its blockhash is dead at `finalized` and it is nowhere in history: it can never land.
          if (await settleChainTx(this.db, t.id, 'expired', null)) await this.afterSettled(t, false);
        } else if (!st && Date.now() - (this.lastSent.get(t.signature) ?? 0) > RESEND_EVERY_MS) {
          this.lastSent.set(t.signature, Date.now());
          resend.push(t.wire);
        }
      }),
    );
    if (resend.length > 0) await this.sendAll(resend);
    return pending.length;
  }

  private async landed(t: ChainTx, success: boolean): Promise<void> {
    const watch = t.kind === 'sweep' ? (this.treasury.poolByHolding(t.destination)?.address ?? t.destination) : undefined;
    const costs = await this.view.costs(t.signature, watch);
    if (!costs) return; // not visible at `confirmed` yet
    const done = await this.db.transaction(async (tx) => {
      if (!(await settleChainTx(tx, t.id, success ? 'confirmed' : 'failed', costs.fee, success ? new Date().toISOString() : undefined))) return false;
      const feePayer = `feepayer:${this.treasury.feePayer.address}`;
      const rent = -costs.feePayerDelta - costs.fee;
      await recordMovement(tx, `tx:${t.signature}:cost`, 'network_cost', [
        { account: feePayer, assetId: 'sol', amount: costs.feePayerDelta },
        { account: 'expense:network', assetId: 'sol', amount: costs.fee },
        { account: rent >= 0n ? 'expense:rent' : 'income:rent', assetId: 'sol', amount: rent },
      ]);
      if (success) await this.recordAssets(tx, t, costs.watchDelta);
      if (t.kind === 'sweep') await finishSweep(tx, t.id, success);
      return true;
    });
    if (done) await this.afterSettled(t, success);
  }

  private async recordAssets(tx: Parameters<Parameters<Db['transaction']>[0]>[0], t: ChainTx, poolLamportDelta: bigint): Promise<void> {
    const pool = `pool:${t.source}`;
    switch (t.kind) {
      case 'payout':
      case 'refund':
      case 'partner_payout':
        await recordMovement(
          tx,
          `tx:${t.signature}:assets`,
          t.kind,
          [
            { account: pool, assetId: t.assetId, amount: -t.amount },
            { account: t.kind === 'payout' ? 'external:recipients' : t.kind === 'refund' ? 'external:senders' : 'external:partners', assetId: t.assetId, amount: t.amount },
            ...(t.kind === 'partner_payout'
              ? [
                  { account: String(t.meta.payable), assetId: t.assetId, amount: t.amount },
                  { account: 'custody:retained', assetId: t.assetId, amount: -t.amount },
                ]
              : []),
          ],
          t.orderId,
        );
        return;
      case 'sweep': {
        const items = t.meta.items as { depositAccount: string; amount: string; late?: boolean }[];
        const total = items.reduce((s, i) => s + BigInt(i.amount), 0n);
        // A late deposit was never on the ledger: it comes straight from the sender into the pool.
        const legs = items.map((i) => ({ account: i.late ? 'external:senders' : `deposit:${i.depositAccount}`, assetId: t.assetId, amount: -BigInt(i.amount) }));
        if (this.asset(t.assetId).native) {
          // Closing wrapped-SOL deposits sends their rent to the pool as well.
          legs.push({ account: `pool:${t.destination}`, assetId: t.assetId, amount: poolLamportDelta });
          legs.push({ account: 'income:rent', assetId: t.assetId, amount: total - poolLamportDelta });
        } else {
          legs.push({ account: `pool:${t.destination}`, assetId: t.assetId, amount: total });
        }
        await recordMovement(tx, `tx:${t.signature}:assets`, 'sweep', legs);
        return;
      }
      default:
        return;
    }
  }

  private async afterSettled(t: ChainTx, _landed: boolean): Promise<void> {
    if (t.kind === 'sweep') {
      if (!_landed) await this.db.transaction((tx) => finishSweep(tx, t.id, false));
      else await this.refundLate(t);
      return;
    }
    if (!t.orderId) return;
    // Step the order right here (complete it, or replace the dead transaction) if nobody holds it ...
    if (await this.stepPayingOrder(t.orderId)) return;
    // ... else make it due now and wake the order loop, without waiting a full tick.
    await this.db.query('UPDATE orders SET next_run_at = now() WHERE id = $1', [t.orderId]);
    this.wake('orders');
  }

  /**
   * Claims one order (the usual lease) and, when it is `sending` or `refunding`, runs its step at once,
   * so a landed payout completes its order without queueing behind the order loop's batches.
   * Returns false when another step holds the order.
   */
  private async stepPayingOrder(orderId: string): Promise<boolean> {
    const o = await claimOrder(this.db, orderId, this.workerId, this.leaseSeconds);
    if (!o) return false;
    try {
      const next = o.status === 'sending' || o.status === 'refunding' ? await this.advancePayout(o) : { delayMs: 0 };
      await releaseOrder(this.db, o.id, this.workerId, next);
    } catch (e) {
      this.log({ err: e, trackingId: o.trackingId, status: o.status }, 'order step failed');
      await releaseOrder(this.db, o.id, this.workerId, { afterError: true }).catch(() => {});
    }
    return true;
  }

  /**
   * Plans and records an order's payout (its transactions, then `sending`), batched: the orders that
   * queue up while a batch is being recorded go together in the next one, inside one `exclusive` section
   * with one read of pending outflows and pool balances; each order still gets its own transaction.
   */
  private recordPayout(o: OrderRecord, from: 'deposit_confirmed' | 'swapping'): Promise<{ planned: PlannedTransfer[] | null; ok: boolean }> {
    return new Promise((resolve, reject) => {
      this.payoutQueue.push({ o, from, resolve, reject });
      this.kickPayoutBatches();
    });
  }

  private kickPayoutBatches(): void {
    if (this.payoutBatches || this.payoutQueue.length === 0) return;
    this.payoutBatches = this.exclusive(() => this.recordPayoutBatches()).finally(() => {
      this.payoutBatches = null;
      this.kickPayoutBatches();
    });
  }

  private async recordPayoutBatches(): Promise<void> {
    while (this.payoutQueue.length > 0) {
      const batch = this.payoutQueue.splice(0, PAYOUT_BATCH);
      try {
        const pending = await pendingOutflows(this.db);
        const holdings = [...new Set(batch.map((j) => j.o.destinationAssetId))].flatMap((a) => this.treasury.pools(a).map((p) => p.holding));
        const shared: PlanReads = { pending, balances: await this.view.balances(holdings, 'confirmed'), taken: new Map() };
        const plans = await Promise.all(
          batch.map((j) => this.planTransfers(j.o, 'payout', j.o.destinationAssetId, j.o.recipient as Address, j.o.amountOut, {}, this.db, shared).catch((e: unknown) => ({ error: e }))),
        );
        // Every record of the batch is committed (or failed) before the section ends.
        await Promise.all(
          batch.map(async (j, i) => {
            const planned = plans[i]!;
            if (planned !== null && 'error' in planned) return j.reject(planned.error);
            if (planned === null) return j.resolve({ planned: null, ok: false });
            try {
              const ok = await this.db.transaction(async (tx) => {
                for (const p of planned) if ((await insertChainTx(tx, p)) === null) return false;
                return transitionOrder(tx, j.o.id, j.from, 'sending');
              });
              j.resolve({ planned, ok });
            } catch (e) {
              j.reject(e);
            }
          }),
        );
      } catch (e) {
        for (const j of batch) j.reject(e);
      }
    }
  }

  private wake(loop: string): void {
    this.wakers.get(loop)?.();
  }

  /**
   * Runs `fn` alone among this worker's plan-and-record sections. Pool choice counts pool balances less
   * the *recorded* pending outflows, so two plans running side by side (orders are stepped concurrently)
   * would both count on the same funds; one at a time, each sees the previous one's record. Must be
   * entered outside any database transaction (PGlite would block the holder's queries behind it).
   */
  private exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const run = this.planLock.then(fn, fn);
    this.planLock = run.catch(() => {});
    return run;
  }

  /**
   * Deposit watch: whenever the `confirmed` slot advances, one read of every watched deposit account; the
   * orders whose deposit became visible are made due now and the order loop is woken, instead of each
   * waiting for its next poll (up to a slot, plus a tick). It only moves `next_run_at`: every state
   * change still happens in the order step, with its compare-and-set transitions.
   */
  async depositWatchTick(): Promise<void> {
    const slot = BigInt(await this.chain().rpc.getSlot({ commitment: 'confirmed' }).send());
    if (slot === this.lastWatchedSlot) return;
    this.lastWatchedSlot = slot;
    // Pending transactions reach `confirmed` exactly when this slot advances: settle them now, not next tick.
    this.wake('transactions');
    const { rows } = await this.db.query<{ id: string | number; deposit_account: string }>(
      `SELECT id, deposit_account FROM orders WHERE status IN ('awaiting_deposit', 'deposit_detected') AND next_run_at > now() LIMIT 10000`,
    );
    if (rows.length === 0) return;
    const balances = await this.view.balances(rows.map((r) => r.deposit_account), 'confirmed');
    const funded = rows.filter((r) => (balances.get(r.deposit_account)?.tokenAmount ?? 0n) > 0n).map((r) => String(r.id));
    if (funded.length === 0) return;
    await this.db.query(`UPDATE orders SET next_run_at = now() WHERE id = ANY($1::bigint[]) AND status IN ('awaiting_deposit', 'deposit_detected')`, [funded]);
    this.wake('orders');
  }

  // ---- sweeps ----

  /** Moves confirmed deposits into a random pool of their asset, several per transaction. */
  async sweepTick(): Promise<number> {
    let swept = 0;
    for (const assetId of await assetsWithUnsweptDeposits(this.db)) {
      const asset = this.asset(assetId);
      const pool = this.treasury.pools(assetId)[randomInt(this.treasury.pools(assetId).length)]!;
      const blockhash = await this.chain().latestBlockhash();
      const result = await this.db.transaction(async (tx) => {
        const batch = await lockUnsweptDeposits(tx, assetId, SWEEP_BATCH);
        if (batch.length === 0) return null;
        const balances = await this.view.balances(batch.map((b) => b.depositAccount), 'confirmed');
        const items: (SweepItem & { orderId: string })[] = [];
        for (const b of batch) {
          const amount = balances.get(b.depositAccount)?.tokenAmount;
          if (amount === undefined || amount === null) continue;
          items.push({ owner: await this.treasury.depositSigner(b.trackingId), depositAccount: b.depositAccount as Address, amount, orderId: b.orderId });
        }
        if (items.length === 0) return null;
        const signed = await buildSweep(this.shape(blockhash), { asset, poolWallet: pool.address, poolHolding: pool.holding, items });
        const id = await insertChainTx(tx, {
          kind: 'sweep',
          orderId: null,
          assetId,
          amount: items.reduce((s, i) => s + i.amount, 0n),
          source: 'deposits',
          destination: pool.holding,
          ...signed,
          meta: { items: items.map((i) => ({ orderId: i.orderId, depositAccount: i.depositAccount, amount: i.amount.toString() })) },
        });
        if (id === null) return null;
        await attachSweep(tx, items.map((i) => i.orderId), id);
        return { id, wire: signed.wire, count: items.length };
      });
      if (!result) continue;
      faultPoint('sweep-recorded');
      await this.sendAll([result.wire]);
      faultPoint('sweep-sent');
      swept += result.count;
    }
    return swept;
  }

  // ---- partner fees ----

  /**
   * Pays accrued partner fees, one transfer per partner, fee recipient and asset per period: never one
   * per order, so a partner payout reveals nothing about any single order. Serialized across workers by
   * an advisory lock; what pending payouts already cover is not owed again.
   */
  async partnerTick(): Promise<number> {
    const planned = await this.exclusive(() => this.db.transaction(async (tx) => {
      const lock = await tx.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1) AS ok', [PARTNER_PAYOUT_LOCK]);
      if (!lock.rows[0]?.ok) return [];
      const owed = await tx.query<{ account: string; asset_id: string; owed: string }>(
        `SELECT l.account, l.asset_id, (-sum(l.amount) - coalesce((SELECT sum(c.amount) FROM chain_txs c
            WHERE c.kind = 'partner_payout' AND c.status = 'pending' AND c.meta ->> 'payable' = l.account AND c.asset_id = l.asset_id), 0))::text AS owed
         FROM ledger_entries l WHERE l.account LIKE 'payable:partner:%' GROUP BY l.account, l.asset_id`,
      );
      const out = [];
      for (const r of owed.rows) {
        const amount = BigInt(r.owed);
        const recipient = r.account.split(':')[3];
        if (amount <= 0n || !recipient || recipient === '-') continue;
        const parts = await this.planTransfers({ id: null, trackingId: r.account }, 'partner_payout', r.asset_id, recipient as Address, amount, { payable: r.account }, tx);
        if (!parts) continue;
        for (const p of parts) if ((await insertChainTx(tx, p)) !== null) out.push(p.wire);
      }
      return out;
    }));
    await this.sendAll(planned);
    return planned.length;
  }

  // ---- late deposits ----

  /**
   * Funds that reach a deposit account after its order is final (or after its deposit was swept) are
   * swept into a pool and refunded to the order's sender, less the order's network fee. Also replaces
   * late refunds whose transaction died.
   */
  async lateDepositTick(): Promise<number> {
    const { rows } = await this.db.query<{ id: string | number; tracking_id: string; deposit_account: string; source_asset_id: string }>(
      `SELECT id, tracking_id, deposit_account, source_asset_id FROM orders o
       WHERE o.status IN ('completed', 'refunded', 'expired', 'failed') AND o.updated_at > now() - interval '7 days'
         AND (o.swept OR o.deposit IS NULL)
         AND NOT EXISTS (SELECT 1 FROM chain_txs c WHERE c.kind = 'sweep' AND c.status = 'pending'
                         AND c.meta -> 'items' @> jsonb_build_array(jsonb_build_object('depositAccount', o.deposit_account)))
       ORDER BY o.updated_at DESC LIMIT 200`,
    );
    let found = 0;
    if (rows.length > 0) {
      const balances = await this.view.balances(rows.map((r) => r.deposit_account), 'confirmed');
      for (const r of rows) {
        const amount = balances.get(r.deposit_account)?.tokenAmount ?? 0n;
        if (amount <= 0n) continue;
        found++;
        await this.sweepLate(String(r.id), r.tracking_id, r.deposit_account, r.source_asset_id, amount);
      }
    }
    await this.replaceDeadLateRefunds();
    return found;
  }

  private async sweepLate(orderId: string, trackingId: string, depositAccount: string, assetId: string, amount: bigint): Promise<void> {
    const asset = this.asset(assetId);
    const pools = this.treasury.pools(assetId);
    const pool = pools[randomInt(pools.length)]!;
    const signed = await buildSweep(this.shape(await this.chain().latestBlockhash()), {
      asset,
      poolWallet: pool.address,
      poolHolding: pool.holding,
      items: [{ owner: await this.treasury.depositSigner(trackingId), depositAccount: depositAccount as Address, amount }],
    });
    const id = await insertChainTx(this.db, {
      kind: 'sweep',
      orderId: null,
      assetId,
      amount,
      source: 'deposits',
      destination: pool.holding,
      ...signed,
      meta: { items: [{ orderId, depositAccount, amount: amount.toString(), late: true }] },
    });
    if (id === null) return;
    this.log({ trackingId, amount: amount.toString() }, 'late deposit found; sweeping it for a refund');
    await this.sendAll([signed.wire]);
  }

  private async refundLate(sweep: ChainTx): Promise<void> {
    const items = (sweep.meta.items as { orderId: string; amount: string; late?: boolean }[]).filter((i) => i.late);
    for (const item of items) {
      const order = await getOrderById(this.db, item.orderId);
      if (!order) continue;
      const refund = BigInt(item.amount) - order.networkFee;
      if (refund <= 0n) {
        this.log({ trackingId: order.trackingId, amount: item.amount }, 'ALERT: late deposit too small to refund; held in custody');
        continue;
      }
      const wires = await this.exclusive(async () => {
        const planned = await this.planTransfers(order, 'refund', order.sourceAssetId, order.sender as Address, refund, { late: true });
        const out: string[] = [];
        for (const [n, p] of (planned ?? []).entries()) {
          if ((await insertChainTx(this.db, { ...p, meta: { ...p.meta, part: `late:${sweep.signature}:${n}` } })) !== null) out.push(p.wire);
        }
        return out;
      });
      await this.sendAll(wires);
    }
  }

  private async replaceDeadLateRefunds(): Promise<void> {
    const { rows } = await this.db.query<{ id: string | number }>(
      `SELECT DISTINCT ON (order_id, meta ->> 'part') id FROM chain_txs
       WHERE kind = 'refund' AND meta ->> 'part' LIKE 'late:%' ORDER BY order_id, meta ->> 'part', id DESC`,
    );
    for (const r of rows) {
      const t = await getChainTx(this.db, String(r.id));
      if (!t || (t.status !== 'expired' && t.status !== 'failed')) continue;
      const order = await getOrderById(this.db, t.orderId!);
      if (order) await this.replacePart(order, t, t.meta.part as never);
    }
  }

  // ---- inventory ----

  /** Pool inventory per asset at `confirmed` (SOL pools less their rent reserve). */
  async inventory(): Promise<Map<string, bigint>> {
    const pools = this.treasury.allPools();
    const balances = await this.view.balances(pools.map((p) => p.holding), 'confirmed');
    const out = new Map<string, bigint>();
    for (const p of pools) {
      const native = this.asset(p.assetId).native;
      const b = balances.get(p.holding);
      const held = native ? (b?.lamports ?? 0n) - SOL_POOL_RESERVE : (b?.tokenAmount ?? 0n);
      out.set(p.assetId, (out.get(p.assetId) ?? 0n) + (held > 0n ? held : 0n));
    }
    return out;
  }

  /**
   * Aggregate rebalancing on a schedule, in lots unrelated to any order: assets above their target band
   * fund assets below it. Each landed move is put on the ledger from the transaction's own balance
   * changes. Without a rebalancer, a skew outside the band is only reported (ALERT).
   */
  async rebalanceTick(): Promise<number> {
    if (!this.inventoryTargets || !this.prices) return 0;
    const inventory = await this.inventory();
    for (const [assetId, target] of this.inventoryTargets) {
      const held = inventory.get(assetId) ?? 0n;
      if (held * 2n < target) this.log({ assetId, held: held.toString(), target: target.toString() }, 'ALERT: inventory skew: pools below half their target');
    }
    if (!this.rebalancer) return 0;
    const done = await runRebalance(this.rebalancer, inventory, this.inventoryTargets, this.prices, this.config.assets);
    for (const { result } of done) if (result.signature) await this.recordExternal(result.signature, 'rebalance', 'external:rebalancing');
    return done.length;
  }

  /**
   * Records a transaction Hush did not build on the ledger from its balance changes: every pool and the
   * fee payer by their own deltas, the counterparty for the rest of each asset.
   */
  private async recordExternal(signature: string, kind: 'rebalance' | 'funding', counterparty: string): Promise<void> {
    for (let i = 0; i < 50; i++) {
      const tx = await this.chain().rpc.getTransaction(signature as never, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
      if (tx?.meta) {
        const meta = tx.meta;
        const keys = tx.transaction.message.accountKeys as readonly string[];
        const legs: { account: string; assetId: string; amount: bigint }[] = [];
        keys.forEach((k, idx) => {
          const pool = this.treasury.poolByHolding(k);
          const lamports = BigInt(meta.postBalances[idx]!) - BigInt(meta.preBalances[idx]!);
          if (k === this.treasury.feePayer.address && lamports !== 0n) legs.push({ account: `feepayer:${k}`, assetId: 'sol', amount: lamports });
          if (pool && this.asset(pool.assetId).native && lamports !== 0n) legs.push({ account: `pool:${k}`, assetId: pool.assetId, amount: lamports });
          if (pool && !this.asset(pool.assetId).native) {
            const bal = (list: typeof meta.preTokenBalances) => BigInt(list?.find((b) => b.accountIndex === idx)?.uiTokenAmount.amount ?? '0');
            const delta = bal(meta.postTokenBalances) - bal(meta.preTokenBalances);
            if (delta !== 0n) legs.push({ account: `pool:${k}`, assetId: pool.assetId, amount: delta });
          }
        });
        const sums = new Map<string, bigint>();
        for (const l of legs) sums.set(l.assetId, (sums.get(l.assetId) ?? 0n) + l.amount);
        for (const [assetId, sum] of sums) legs.push({ account: counterparty, assetId, amount: -sum });
        await recordMovement(this.db, `${kind}:${signature}`, kind, legs);
        return;
      }
      await new Promise((r) => setTimeout(r, 100));
    }
    this.log({ signature }, 'ALERT: rebalance transaction not visible; ledger not updated');
  }

  // ---- maintenance ----

  private async maintenanceTick(): Promise<void> {
    await purgeIdempotencyKeys(this.db);
    // Watchdog: nothing stays non-final forever; failing keeps funds where they are and alerts.
    const { rows } = await this.db.query<{ id: string | number; tracking_id: string; status: string }>(
      `SELECT id, tracking_id, status FROM orders WHERE status NOT IN ('completed', 'expired', 'refunded', 'failed', 'awaiting_deposit')
         AND updated_at < now() - make_interval(secs => $1::double precision / 1000)`,
      [this.stuckAfterMs],
    );
    for (const r of rows) {
      if (await transitionOrder(this.db, String(r.id), r.status as never, 'failed', { failureReason: `stuck_in_${r.status}` })) {
        this.log({ trackingId: r.tracking_id, status: r.status }, 'ALERT: order stuck; moved to failed, funds held');
      }
    }
  }

}
