import { randomBytes, randomInt } from 'node:crypto';
import type { Address } from '@solana/kit';
import type { Asset } from '../config/assets.ts';
import type { HushConfig } from '../config/config.ts';
import { associatedTokenAddress } from '../chain/associated-token-address.ts';
import { buildPayout, buildSweep, txShape, type SweepItem, type TxShape } from '../chain/hush-transactions.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import { allOrNothing, isUniqueViolation, type Db, type Queryable } from '../store/db.ts';
import { purgeIdempotencyKeys } from '../store/idempotency-store.ts';
import { getOrderById, purgeDepositHints, recordLateRefund, transitionOrder, type OrderRecord } from '../store/orders-store.ts';
import { abandonedLateRefunds } from '../store/settlement/abandoned-late-refunds.ts';
import { assetsWithUnsweptDeposits } from '../store/settlement/assets-with-unswept-deposits.ts';
import { attachSweep } from '../store/settlement/attach-sweep.ts';
import type { ChainTx } from '../store/settlement/chain-tx.ts';
import { chainTxsOfOrder, chainTxsOfOrders } from '../store/settlement/chain-txs-of-orders.ts';
import { claimDueOrders } from '../store/settlement/claim-due-orders.ts';
import { claimOrder } from '../store/settlement/claim-order.ts';
import { completePayouts, type PayoutCompletion } from '../store/settlement/complete-payouts.ts';
import { confirmDepositsAndStartPayouts } from '../store/settlement/confirm-deposits-and-start-payouts.ts';
import { confirmDeposits } from '../store/settlement/confirm-deposits.ts';
import { deadLateRefunds } from '../store/settlement/dead-late-refunds.ts';
import { finishSweep } from '../store/settlement/finish-sweep.ts';
import { getChainTx } from '../store/settlement/get-chain-tx.ts';
import { holdOrder } from '../store/settlement/hold-order.ts';
import { insertChainTx } from '../store/settlement/insert-chain-tx.ts';
import { lateDepositCandidates } from '../store/settlement/late-deposit-candidates.ts';
import { lockUnsweptDeposits } from '../store/settlement/lock-unswept-deposits.ts';
import type { Movement } from '../store/settlement/movements.ts';
import { ordersByIds } from '../store/settlement/orders-by-ids.ts';
import { partAttempts } from '../store/settlement/part-attempts.ts';
import { pendingChainTxs } from '../store/settlement/pending-chain-txs.ts';
import { pendingOutflows } from '../store/settlement/pending-outflows.ts';
import { recordMovement, recordMovements } from '../store/settlement/record-movements.ts';
import { releaseOrder, releaseOrders, type Release } from '../store/settlement/release-orders.ts';
import { relockUnsweptDeposits } from '../store/settlement/relock-unswept-deposits.ts';
import { setPayoutDue } from '../store/settlement/set-payout-due.ts';
import { settleChainTx, settleChainTxs } from '../store/settlement/settle-chain-txs.ts';
import { startPayouts } from '../store/settlement/start-payouts.ts';
import { stuckOrders } from '../store/settlement/stuck-orders.ts';
import { sweepOfAccount } from '../store/settlement/sweep-of-account.ts';
import type { Treasury } from '../treasury/treasury.ts';
import { ChainView, type AccountBalance } from '../chain/chain-view.ts';
import { StrayWatch } from './stray-watch.ts';
import type { SwapPricing } from '../prices/swap-pricing.ts';
import { runRebalance, type Rebalancer, type RebalancePolicy } from '../rebalance/rebalancer.ts';
import { DEFAULT_REBALANCE_POLICY } from '../domain/rebalance-plan.ts';
import { resolvePriceSettings } from '../prices/select-price-source.ts';
import type { FreshPrices } from '../prices/price-source.ts';
import { convertForSwap } from '../domain/swap-conversion.ts';
import { faultPoint } from '../support/fault-points.ts';
import { sweepLegs, withLateArrivals, type SweepItemRecord } from '../ledger/sweep-legs.ts';
import { networkCostMovement } from '../ledger/network-cost.ts';
import { DEFAULT_NETWORK_COST } from '../domain/network-cost.ts';
import { allocate, shufflePools } from '../domain/settlement/allocation.ts';
import { depositDecision } from '../domain/settlement/deposit-decision.ts';
import { cannotReceiveSol, needsRecipientLamports, refundPlan } from '../domain/settlement/refund-plan.ts';
import { payoutDue } from '../domain/settlement/payout-delay.ts';
import { txFate } from '../domain/settlement/tx-fate.ts';
import { replacementDelayMs } from '../domain/replacement-backoff.ts';
import { OncePerKey } from '../support/once-per-key.ts';

/** How long a starting worker leaves the watchdog off while it catches up on orders due during an outage. */
const WATCHDOG_START_GRACE_MS = 10 * 60_000;

/** A late refund that cannot be recorded whole right now: its transaction rolls back, a later pass retries. */
class LateRefundDeferred extends Error {}

async function lateRefundsExist(q: Queryable, sweepSignature: string): Promise<boolean> {
  // The first LIKE names the partial index (migration 008) the prefix lookup uses.
  const { rows } = await q.query(`SELECT 1 FROM chain_txs WHERE kind = 'refund' AND meta ->> 'part' LIKE 'late:%' AND meta ->> 'part' LIKE $1 LIMIT 1`, [`late:${sweepSignature}:%`]);
  return rows.length > 0;
}

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
/** Sweeps wait this many slots after the deposit watch last confirmed deposits. */
const SWEEP_QUIET_SLOTS = 4;
const SWEEP_MAX_DEFERRALS = 3;
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
/** A payout signed ahead is dropped after this (its blockhash stays valid far longer). */
const PRESIGN_MAX_AGE_MS = 20_000;
/** Orders placed this recently have their payout signed before their deposit lands (see presign). */
const PRESIGN_AHEAD_MS = 20_000;
/** At most this many payouts signed ahead at once (memory, and signing for orders never funded). */
const PRESIGN_AHEAD_MAX = 2_000;
/** How often, at most, watched deposit accounts are read at `processed` to sign payouts ahead. */
const PRESIGN_READ_EVERY_MS = 40;
/** How often the watch tries again to confirm funded orders another step held. */
const UNCLAIMED_RETRY_MS = 20;
/** Slots during which the order loop leaves a deposit seen at `processed` to the watch. */
const WATCH_OWNS_SLOTS = 4;

/** What the deposit → payout path needs of an order. */
type PayableOrder = Pick<OrderRecord, 'id' | 'trackingId' | 'depositAccount' | 'recipient' | 'amountIn' | 'amountOut' | 'sourceAssetId' | 'destinationAssetId'>;

function watchedOrder(r: WatchedRow): PayableOrder {
  return {
    id: String(r.id),
    trackingId: r.tracking_id,
    depositAccount: r.deposit_account,
    recipient: r.recipient,
    amountIn: BigInt(r.amount_in),
    amountOut: BigInt(r.amount_out),
    sourceAssetId: r.source_asset_id,
    destinationAssetId: r.destination_asset_id,
  };
}

/** An order whose deposit the watch reads, with what signing its payout ahead needs. */
interface WatchedRow {
  id: string | number;
  tracking_id: string;
  deposit_account: string;
  recipient: string;
  amount_in: string;
  amount_out: string;
  source_asset_id: string;
  destination_asset_id: string;
  created_at: Date;
}

/** What a batch of pool choices shares: one read of pending outflows and balances, and what it took. */
interface PlanReads {
  pending: Map<string, bigint>;
  balances: Map<string, AccountBalance>;
  taken: Map<string, bigint>;
}

type PlannedTransfer = NonNullable<Awaited<ReturnType<SettlementWorker['planTransfers']>>>[number];
/** Advisory lock naming the partner-payout job among all workers. */
const PARTNER_PAYOUT_LOCK = 87870002;
/** Finished orders a late-deposit pass reads: this many most recently finished, and this many more in rotation. */
const LATE_PER_PART = 100;
/** Advisory lock class of late sweeps, one lock per deposit account (with the hash of its address). */
const LATE_SWEEP_LOCK = 87870003;

/**
 * Settlement: detects deposits, pays out from pool wallets after the privacy delay, refunds what cannot
 * be delivered, expires orders without a deposit, sweeps deposits into pools in batches, and settles
 * the fate of every transaction it signed. Exactly once: a payout is recorded (signed bytes, signature,
 * last valid block height) before it is sent, and a new one is built only after the recorded one can
 * provably never land.
 */
export class SettlementWorker {
  private readonly view: ChainView;
  private readonly strays: StrayWatch;
  private latePassesDone = 0;
  /** Where the late-deposit pass's rotation through its window goes on (an order id). */
  private lateRotation: bigint | null = null;
  /** Stuck orders the watchdog left alone (a transaction of theirs is live), reported once each. */
  private readonly stuckInFlight = new Set<string>();
  /** Late refund attempts already reported as given up (alertAbandonedLateRefunds). */
  private readonly abandonedAlerted = new OncePerKey();
  private readonly swaps?: SwapPricing;
  private readonly rebalancer?: Rebalancer;
  /** HUSH_REBALANCE_LOT_USD and HUSH_REBALANCE_SLIPPAGE_BPS over the default tolerance band. */
  private readonly rebalancePolicy: RebalancePolicy;
  private readonly prices?: FreshPrices;
  private readonly inventoryTargets?: Map<string, bigint>;
  private readonly rebalanceIntervalMs: number;
  private readonly workerId: string;
  private readonly tickMs: number;
  private readonly sweepIntervalMs: number;
  private sweepDeferrals = 0;
  /** Per asset, the last order id a sweep batch took: the next batch starts after it (lockUnsweptDeposits). */
  private readonly sweptUpTo = new Map<string, string>();
  /** Failed transfers whose replacement waits (replacementDelayMs), alerted once each per process. */
  private readonly backoffAlerted = new OncePerKey();
  /** Confirmed deposits found without a token account to sweep, alerted once each per process. */
  private readonly unsweepableAlerted = new OncePerKey();
  private readonly leaseSeconds: number;
  private readonly stuckAfterMs: number;
  private startedAt = 0;
  private readonly log: NonNullable<WorkerOptions['log']>;
  private running = false;
  private loops: Promise<void>[] = [];
  private readonly detached = new Set<Promise<void>>();
  private readonly lastSent = new Map<string, number>();
  private sleepers = new Set<() => void>();
  /** Cuts a loop's sleep short (by loop name), when work for it is known to be due now. */
  private readonly wakers = new Map<string, () => void>();
  private lastWatchedSlot = -1n;
  /** Orders awaiting a deposit, as of the last `confirmed` slot advance. */
  private watched: WatchedRow[] = [];
  private lastPresignReadAt = 0;
  /** Watched orders whose recipient token account is derived already (see warmRecipients). */
  private readonly warmed = new Set<string>();
  private warming = false;
  /** The presign run in progress, if any: the confirmed path waits for it rather than signing twice. */
  private presigning: Promise<void> | null = null;
  /** Deposit accounts seen funded at `processed`, by order id (their signatures are looked up early). */
  private readonly seenProcessed = new Map<string, { account: string; at: number }>();
  /** Orders the watch confirmed since the last list refresh (the list read may predate the confirmation). */
  private readonly recentlyConfirmed = new Set<string>();
  /** Funded orders the watch could not claim (another step held them), with their confirmed balance. */
  private readonly unclaimed = new Map<string, { order: PayableOrder; balance: AccountBalance }>();
  private lastUnclaimedTry = 0;
  /** Orders in a deposit-watch batch right now: the watch does not start another one for them. */
  private readonly confirming = new Set<string>();
  /** Payouts signed ahead, by order id: see presign. */
  private readonly presigned = new Map<string, { tx: PlannedTransfer; depositAccount: string; at: number }>();
  /** Orders whose payout could not be signed ahead as one transaction, and when that was tried. */
  private readonly presignFailed = new Map<string, number>();
  /** When the deposit watch last had deposits to confirm: sweeps stay out of the way of a burst. */
  private lastDepositBurstAt = 0;
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
    const priceSettings = resolvePriceSettings(config);
    this.rebalancePolicy = { ...DEFAULT_REBALANCE_POLICY, lotUsd: priceSettings.rebalanceLotUsd, slippageBps: priceSettings.rebalanceSlippageBps };
    this.prices = opts.prices;
    this.inventoryTargets = opts.inventoryTargets;
    this.rebalanceIntervalMs = opts.rebalanceIntervalMs ?? config.rebalanceIntervalS * 1000;
    this.workerId = opts.workerId ?? `w_${randomBytes(4).toString('hex')}`;
    this.tickMs = opts.tickMs ?? Math.max(20, Math.floor(config.localnetSlotMs / 2));
    this.sweepIntervalMs = opts.sweepIntervalMs ?? config.sweepIntervalS * 1000;
    this.leaseSeconds = opts.leaseSeconds ?? 30;
    this.stuckAfterMs = opts.stuckAfterMs ?? 60 * 60 * 1000;
    this.log = opts.log ?? (() => {});
    this.strays = new StrayWatch(db, this.view, this.log);
  }

  private chain(): SolanaChain {
    return this.view.chain;
  }

  start(): void {
    if (this.running) return;
    this.running = true;
    this.startedAt = Date.now();
    this.loops = [
      this.loop('orders', this.tickMs, () => this.orderTick()),
      this.loop('transactions', this.tickMs, () => this.txTick()),
      this.loop('deposit-watch', Math.max(10, Math.floor(this.tickMs / 20)), () => this.depositWatchTick()),
      this.loop('sweeps', this.sweepIntervalMs, () => this.sweepTick()),
      this.loop('partner-payouts', this.config.partnerPayoutIntervalS * 1000, () => this.partnerTick()),
      this.loop('late-deposits', Math.max(this.sweepIntervalMs, 5000), () => this.lateDepositTick()),
      this.loop('maintenance', 30_000, () => this.maintenanceTick()),
      this.loop('rebalance', this.rebalanceIntervalMs, () => this.rebalanceTick()),
    ];
  }

  /** Finishes the iteration in progress in each loop (and work they started), then returns. */
  async stop(): Promise<void> {
    this.running = false;
    for (const wake of this.sleepers) wake();
    await Promise.all(this.loops);
    await Promise.all(this.detached);
  }

  /** Runs work that never throws beside the loop that started it; stop() waits for it. */
  private detach(p: Promise<void>): void {
    this.detached.add(p);
    void p.finally(() => this.detached.delete(p));
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
    return txShape(this.treasury.feePayer, this.config, blockhash);
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
      const orders = await claimDueOrders(this.db, this.workerId, ORDER_BATCH, this.leaseSeconds, this.watchOwns());
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

  /**
   * Steps claimed orders; never throws (a failed step releases its order with back-off). Orders whose
   * deposit is confirmed go through confirmAndPay together; the rest step one by one, and every release
   * is one statement.
   */
  private async stepBatch(orders: OrderRecord[]): Promise<void> {
    const watching = orders.filter((o) => o.status === 'awaiting_deposit' || o.status === 'deposit_detected');
    let deposits: Awaited<ReturnType<SettlementWorker['depositStates']>>;
    try {
      deposits = await this.depositStates(watching);
    } catch (e) {
      this.log({ err: e }, 'deposit reads failed');
      await releaseOrders(this.db, this.workerId, orders.map((o) => ({ id: o.id, afterError: true }))).catch(() => {});
      return;
    }
    const confirmed = watching.filter((o) => (deposits.confirmed.get(o.depositAccount)?.tokenAmount ?? 0n) > 0n);
    const confirming = new Set(confirmed.map((o) => o.id));
    const releases: Release[] = [];
    await Promise.all([
      this.confirmAndPay(confirmed, deposits.confirmed, { held: true }),
      ...orders
        .filter((o) => !confirming.has(o.id))
        .map(async (o) => {
          try {
            releases.push({ id: o.id, ...(await this.step(o, deposits)) });
          } catch (e) {
            this.log({ err: e, trackingId: o.trackingId, status: o.status }, 'order step failed');
            releases.push({ id: o.id, afterError: true });
          }
        }),
    ]);
    await releaseOrders(this.db, this.workerId, releases).catch((e: unknown) => this.log({ err: e }, 'order release failed'));
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
        // No deposit can land once every issued blockhash is dead (checked at `finalized`, against the
        // order row as it is when it moves: a refresh since it was read hands out a later one).
        const dead = Date.now() > o.expiration.getTime() && deposits.height > o.txLastValidBlockHeight;
        const next = depositDecision(o.status, deposits.confirmed.get(o.depositAccount), deposits.processed.get(o.depositAccount), dead);
        switch (next.kind) {
          case 'confirm':
            return this.confirmDeposit(o, next.amount);
          case 'detect':
            await transitionOrder(this.db, o.id, 'awaiting_deposit', 'deposit_detected', { deposit: { signature: '', amount: next.amount.toString(), confirmedAt: null } });
            return { delayMs: slot / 2 };
          case 'seen':
            return { delayMs: slot / 2 };
          case 'undetect':
            await transitionOrder(this.db, o.id, 'deposit_detected', 'awaiting_deposit', { deposit: null });
            return { delayMs: slot };
          case 'expire':
            if (await transitionOrder(this.db, o.id, 'awaiting_deposit', 'expired', {}, { deadAtHeight: deposits.height })) return {};
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

  /**
   * The deposit → payout path for a batch of claimed orders whose deposit is visible at `confirmed`, in a
   * few statements whatever the batch size: confirm every deposit (one statement: compare-and-set, history,
   * ledger, due time), then record the payouts of those due now (one statement, signed bytes first), then
   * send them (one RPC batch). Anything off that path (a swap, a deposit that does not match, a privacy
   * delay, a pool shortfall, a lost race) is released to the per-order step. Never throws; releases every
   * order it was given.
   */
  private async confirmAndPay(
    orders: PayableOrder[],
    confirmed: Map<string, AccountBalance>,
    /**
     * held: the caller claimed the orders; else they are claimed by the confirmation, if nobody holds them.
     * signatures: looked up ahead, by deposit account (undefined: the lookup failed for that one).
     */
    opts: { held: boolean; signatures?: Promise<Map<string, string | null | undefined>> },
  ): Promise<Set<string>> {
    if (!opts.held) orders = orders.filter((o) => !this.confirming.has(o.id));
    if (orders.length === 0) return new Set();
    // Marked for the watch either way: a watch batch then leaves these alone instead of taking their
    // signed-ahead payouts and signing them again for orders it cannot claim.
    const marked = orders.filter((o) => !this.confirming.has(o.id));
    for (const o of marked) this.confirming.add(o.id);
    // Only what this call holds is released: orders it was handed held, or those its confirmation claimed.
    const releases = new Map<string, Release>(opts.held ? orders.map((o) => [o.id, { id: o.id, delayMs: 0 }]) : []);
    let due = new Map<string, Date>();
    try {
      const recorded = await this.exclusive(async () => {
        // The plan's reads (pending outflows, then pool balances) start now, beside the deposits' signature
        // lookups; the two-step path below confirms the deposits meanwhile too.
        const reads = this.planReads([...new Set(orders.map((o) => o.destinationAssetId))]);
        reads.catch(() => {});
        // By account, not position: `orders` may have lost some (confirming elsewhere) since the lookup began.
        const ahead = opts.signatures ? await opts.signatures : null;
        const all = ahead ? orders.map((o) => ahead.get(o.depositAccount)) : await this.view.firstSignatures(orders.map((o) => o.depositAccount));
        // A failed signature lookup leaves its order out of this batch (retried later) rather than
        // recording its deposit without a signature.
        const sigs = all.filter((sig) => sig !== undefined);
        orders = orders.filter((_o, i) => all[i] !== undefined);
        const now = new Date();
        const deposits = new Map(
          orders.map((o, i) => [o.id, { signature: sigs[i] ?? '', amount: confirmed.get(o.depositAccount)!.tokenAmount!.toString(), confirmedAt: now.toISOString() }]),
        );
        const items = orders.map((o) => ({
          id: o.id,
          deposit: deposits.get(o.id)!,
          dueAt: this.drawDue(now),
          movement: this.depositMovement(o, BigInt(deposits.get(o.id)!.amount)),
        }));
        const sendable = (o: PayableOrder) => BigInt(deposits.get(o.id)!.amount) === o.amountIn && o.sourceAssetId === o.destinationAssetId;
        if (this.config.payoutDelayS.max === 0) {
          // No privacy delay: every matching deposit is paid at once, so its confirmation and its payout
          // are one statement (the payouts planned first, mostly signed ahead at `processed`).
          const eligible = orders.filter(sendable);
          const txs = eligible.length > 0 ? await this.payoutTxs(eligible, await reads) : [];
          const nextRunMs = SETTLE_FALLBACK_SLOTS * this.config.localnetSlotMs;
          const r = await confirmDepositsAndStartPayouts(this.db, this.workerId, this.leaseSeconds, opts.held, items, txs, nextRunMs).catch(async (e: unknown) => {
            // A payout already recorded with the same bytes (same recipient, amount, pool and blockhash as
            // another order's): confirm alone; the per-order step plans these payouts one by one.
            if (!isUniqueViolation(e)) throw e;
            return { due: await confirmDeposits(this.db, this.workerId, this.leaseSeconds, opts.held, items), moved: new Set<string>() };
          });
          for (const id of r.moved) this.presigned.delete(id);
          due = r.due;
          for (const o of orders) {
            const at = due.get(o.id);
            if (!at || r.moved.has(o.id)) continue;
            releases.set(o.id, sendable(o) && at.getTime() > Date.now() ? { id: o.id, at } : { id: o.id, delayMs: 0 });
          }
          // Some stopped at deposit_confirmed (a swap, a short deposit, a pool shortfall): the per-order step pays them.
          if (due.size > r.moved.size) faultPoint('deposit-confirmed');
          return { moved: r.moved, txs: txs.filter((t) => r.moved.has(t.orderId!)) };
        }
        due = await confirmDeposits(this.db, this.workerId, this.leaseSeconds, opts.held, items);
        if (due.size > 0) faultPoint('deposit-confirmed');
        const payable: PayableOrder[] = [];
        for (const o of orders) {
          const at = due.get(o.id);
          if (!at) continue;
          releases.set(o.id, { id: o.id, delayMs: 0 });
          if (sendable(o) && at.getTime() <= Date.now()) payable.push(o);
          else if (sendable(o)) releases.set(o.id, { id: o.id, at });
        }
        return payable.length > 0 ? this.recordPayouts(payable, await reads) : { moved: new Set<string>(), txs: [] };
      });
      for (const id of recorded.moved) releases.delete(id);
      if (recorded.moved.size > 0) {
        faultPoint('payout-recorded');
        // Not awaited: the orders are recorded and released already; the chain's reply can come later.
        this.detach(this.sendBatch(recorded.txs).then(() => faultPoint('payout-sent')));
      }
    } catch (e) {
      this.log({ err: e, orders: orders.length }, 'deposit batch failed');
      for (const r of releases.values()) if (r.delayMs === 0) (r.afterError = true), delete r.delayMs;
    } finally {
      for (const o of marked) this.confirming.delete(o.id);
      // Confirmed here: the watch's retries of orders it could not claim skip them.
      for (const id of due.keys()) this.recentlyConfirmed.add(id);
      await releaseOrders(this.db, this.workerId, [...releases.values()]).catch((e: unknown) => this.log({ err: e }, 'order release failed'));
      if ([...releases.values()].some((r) => r.delayMs === 0 || r.afterError)) this.wake('orders');
    }
    return new Set(due.keys());
  }

  /**
   * Derives the recipient token accounts of newly watched orders in the background (memoized by
   * associatedTokenAddress): the derivation is JS curve math, ~1 ms each, that a burst of payouts would
   * otherwise pay at once, after its deposits are confirmed.
   */
  private warmRecipients(rows: WatchedRow[]): void {
    const fresh = rows.filter((r) => !this.warmed.has(String(r.id)));
    if (fresh.length === 0 || this.warming) return;
    const watching = new Set(rows.map((r) => String(r.id)));
    for (const id of this.warmed) if (!watching.has(id)) this.warmed.delete(id);
    this.warming = true;
    this.detach(
      (async () => {
        for (const r of fresh) {
          if (!this.running) break;
          const asset = this.asset(r.destination_asset_id);
          if (!asset.native) associatedTokenAddress(r.recipient as Address, asset.mint as Address, asset.tokenProgram as Address);
          this.warmed.add(String(r.id));
        }
      })()
        .catch((e: unknown) => this.log({ err: e }, 'recipient warm-up failed'))
        .finally(() => (this.warming = false)),
    );
  }

  /** One read of pending outflows, then (second: see planTransfers) of the pools of some assets. */
  private async planReads(assetIds: string[]): Promise<PlanReads> {
    const pending = await pendingOutflows(this.db);
    const holdings = assetIds.flatMap((a) => this.treasury.pools(a).map((p) => p.holding));
    return { pending, balances: await this.view.balances(holdings, 'confirmed'), taken: new Map() };
  }

  /**
   * Plans and records (one statement, which also moves the orders to `sending` and releases them) the
   * payouts of claimed `deposit_confirmed` orders, inside `exclusive`. Returns the orders that moved and
   * their transactions, to send.
   */
  private async recordPayouts(orders: PayableOrder[], shared: PlanReads): Promise<{ moved: Set<string>; txs: PlannedTransfer[] }> {
    const txs = await this.payoutTxs(orders, shared);
    const moved = await startPayouts(this.db, this.workerId, txs, SETTLE_FALLBACK_SLOTS * this.config.localnetSlotMs);
    for (const id of moved) this.presigned.delete(id);
    return { moved, txs: txs.filter((t) => moved.has(t.orderId!)) };
  }

  /**
   * The signed payouts of orders about to be paid, inside `exclusive`: the one signed ahead (presign) when
   * its pool still covers it, else a fresh plan, kept like one signed ahead (a batch that cannot claim the
   * order, because another step holds it, then signs nothing again when it retries). Either is dropped
   * once its order moves to `sending` (the caller's part) or when it ages out. An order its pools cannot
   * cover has none; so has an order whose payout has the very bytes of another's in the batch (same
   * recipient, amount, pool and blockhash: one signature, so only one could land), for the per-order step.
   */
  private async payoutTxs(orders: PayableOrder[], shared: PlanReads): Promise<PlannedTransfer[]> {
    const byOrder = new Map<string, PlannedTransfer[]>();
    const toPlan: PayableOrder[] = [];
    // Signing them ahead is under way: finishing it is sooner than starting over.
    if (this.presigning && orders.some((o) => !this.presigned.has(o.id))) await this.presigning;
    for (const o of orders) {
      const pre = this.presigned.get(o.id);
      const usable =
        pre &&
        Date.now() - pre.at < this.presignMaxAgeMs() &&
        pre.tx.destination === o.recipient &&
        pre.tx.amount === o.amountOut &&
        pre.tx.assetId === o.destinationAssetId &&
        this.available(this.asset(o.destinationAssetId), pre.tx.source, shared) >= pre.tx.amount;
      if (usable) {
        shared.taken.set(pre.tx.source, (shared.taken.get(pre.tx.source) ?? 0n) + pre.tx.amount);
        byOrder.set(o.id, [pre.tx]);
      } else {
        this.presigned.delete(o.id);
        toPlan.push(o);
      }
    }
    const now = Date.now();
    const plans = await Promise.all(
      toPlan.map((o) => this.planTransfers(o, 'payout', o.destinationAssetId, o.recipient as Address, o.amountOut, {}, this.db, shared).catch(() => null)),
    );
    toPlan.forEach((o, i) => {
      const plan = plans[i];
      if (!plan) return;
      byOrder.set(o.id, plan);
      // Kept only where presign's sweep ages them out (no privacy delay).
      if (plan.length === 1 && this.config.payoutDelayS.max === 0) this.presigned.set(o.id, { tx: plan[0]!, depositAccount: o.depositAccount, at: now });
    });
    const signatures = new Set<string>();
    const txs: PlannedTransfer[] = [];
    for (const plan of byOrder.values()) {
      if (plan.some((t) => signatures.has(t.signature))) continue;
      for (const t of plan) signatures.add(t.signature);
      txs.push(...plan);
    }
    return txs;
  }

  /**
   * How long a payout signed ahead is used: PRESIGN_MAX_AGE_MS, or less with short slots so that its
   * blockhash (up to BLOCKHASH_MAX_AGE old when signed, ~150 slots of life) still has ~80 slots left.
   */
  private presignMaxAgeMs(): number {
    return Math.min(PRESIGN_MAX_AGE_MS, 40 * this.config.localnetSlotMs);
  }

  /**
   * Signs ahead the payouts of deposits visible at `processed` (one slot before `confirmed`), and of
   * orders placed in the last PRESIGN_AHEAD_MS whose deposit has not landed yet (partners deposit right
   * after ordering; a burst that lands just before the slot advances then has nothing left to sign), so
   * the confirmed path only records and sends them. Nothing is recorded or sent here: a payout signed
   * ahead stays in memory, is used only after its deposit is confirmed and its pool is re-checked, and is
   * otherwise dropped. Only without a privacy delay (with one, there is time enough at confirmation).
   */
  private async presign(rows: WatchedRow[], processed: Map<string, AccountBalance>): Promise<void> {
    const now = Date.now();
    for (const [id, p] of this.presigned) if (now - p.at > this.presignMaxAgeMs()) this.presigned.delete(id);
    for (const [id, at] of this.presignFailed) if (now - at > this.presignMaxAgeMs()) this.presignFailed.delete(id);
    const watching = new Set(this.watched.map((r) => String(r.id)));
    for (const id of this.seenProcessed.keys()) if (!watching.has(id)) this.seenProcessed.delete(id);
    for (const r of rows) {
      if ((processed.get(r.deposit_account)?.tokenAmount ?? 0n) > 0n && !this.seenProcessed.has(String(r.id))) this.seenProcessed.set(String(r.id), { account: r.deposit_account, at: now });
    }
    // Ahead of a deposit at most PRESIGN_AHEAD_MAX at a time: bounded work for orders never funded.
    let room = PRESIGN_AHEAD_MAX - this.presigned.size;
    const landed: WatchedRow[] = [];
    const ahead: WatchedRow[] = [];
    for (const r of rows) {
      // A plan that failed (pools short) or split is not tried again until it would have aged out.
      if (this.presigned.has(String(r.id)) || this.presignFailed.has(String(r.id)) || r.source_asset_id !== r.destination_asset_id) continue;
      const amount = processed.get(r.deposit_account)?.tokenAmount ?? 0n;
      if (amount === BigInt(r.amount_in)) landed.push(r);
      else if (amount === 0n && now - new Date(r.created_at).getTime() <= PRESIGN_AHEAD_MS && room-- > 0) ahead.push(r);
    }
    // Landed deposits first: they choose their pools before orders that may never be funded.
    const todo = [...landed, ...ahead];
    if (todo.length === 0) return;
    const pending = await pendingOutflows(this.db);
    const holdings = [...new Set(todo.map((r) => r.destination_asset_id))].flatMap((a) => this.treasury.pools(a).map((p) => p.holding));
    const shared: PlanReads = { pending, balances: await this.view.balances(holdings, 'confirmed'), taken: new Map() };
    await Promise.all(
      todo.map(async (r) => {
        const plan = await this.planTransfers({ id: String(r.id), trackingId: r.tracking_id }, 'payout', r.destination_asset_id, r.recipient as Address, BigInt(r.amount_out), {}, this.db, shared, {
          quiet: true,
        }).catch(() => null);
        if (plan?.length === 1) this.presigned.set(String(r.id), { tx: plan[0]!, depositAccount: r.deposit_account, at: now });
        else this.presignFailed.set(String(r.id), now);
      }),
    );
  }

  private drawDue(from: Date): Date {
    return payoutDue(from, this.config.payoutDelayS, randomInt);
  }

  private depositMovement(o: Pick<OrderRecord, 'id' | 'trackingId' | 'sourceAssetId' | 'depositAccount'>, amount: bigint): Movement {
    return {
      movement: `deposit:${o.trackingId}`,
      kind: 'deposit',
      legs: [
        { account: 'external:senders', assetId: o.sourceAssetId, amount: -amount },
        { account: `deposit:${o.depositAccount}`, assetId: o.sourceAssetId, amount },
      ],
      orderId: o.id,
    };
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
    await recordMovements(this.db, [this.depositMovement(o, amount)]);
  }

  /** Draws the privacy delay once per order (the first draw wins) and returns the payout due time. */
  private async drawPayoutDue(orderId: string, from: Date): Promise<Date> {
    return (await setPayoutDue(this.db, orderId, this.drawDue(from)))!;
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
   * `deposit_confirmed → swapping` for a cross-asset order at the quoted rate: the quote is firm (SPEC §4).
   * Only when an operator set HUSH_SWAP_MAX_DRIFT_BPS is the live rate read, and a market moved against
   * Hush by more than that refunds the deposit (`price_moved`); without a fresh price such an order waits.
   * The status change and the inventory legs (source in, destination owed) are one database transaction.
   */
  private async startSwap(o: OrderRecord): Promise<'swapped' | 'refund' | 'wait'> {
    if (!this.swaps) return 'wait';
    const net = o.amountIn - o.serviceFee - o.partnerFee - o.networkFee;
    const drift = this.config.swapMaxDriftBps;
    if (drift !== null) {
      let liveOut: bigint;
      try {
        const p = this.swaps.pair(o.sourceAssetId, o.destinationAssetId);
        liveOut = convertForSwap(net, p.from, p.to, p.spreadBps);
      } catch {
        return 'wait';
      }
      if (liveOut * 10_000n < o.amountOut * (10_000n - BigInt(drift))) {
        await transitionOrder(this.db, o.id, 'deposit_confirmed', 'refunding', { failureReason: 'price_moved' });
        this.log({ trackingId: o.trackingId, quoted: o.amountOut.toString(), live: liveOut.toString() }, 'swap refunded: price moved');
        return 'refund';
      }
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
    // Refunds of funds sent after the deposit (meta.late) are their own business, not this order's refund.
    const txs = (await chainTxsOfOrder(this.db, o.id, kind)).filter((t) => !t.meta.late);
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
    // The final move and its fee booking commit together: a crash between them would lose the fee.
    if (kind === 'payout') {
      await allOrNothing(this.db, async (tx) => {
        if (!(await transitionOrder(tx, o.id, 'sending', 'completed', { payouts: transfers }))) return false;
        await recordMovements(tx, [this.feeMovement(o)]);
        return true;
      });
    } else {
      const total = landed.reduce((s, t) => s + t.amount, 0n);
      const reason = o.failureReason ?? 'undeliverable';
      await allOrNothing(this.db, async (tx) => {
        if (!(await transitionOrder(tx, o.id, 'refunding', 'refunded', { refund: { signature: landed[0]!.signature, amount: total.toString(), reason } }))) return false;
        const deposited = BigInt(o.deposit?.amount ?? '0');
        await recordMovement(
          tx,
          `fees:${o.trackingId}`,
          'fee_income',
          [
            { account: 'income:network_fee', assetId: o.sourceAssetId, amount: -(deposited - total) },
            { account: 'custody:retained', assetId: o.sourceAssetId, amount: deposited - total },
          ],
          o.id,
        );
        return true;
      });
    }
    return {};
  }

  /** A refund returns the deposit less the network fee, in the source asset, from a pool. */
  private async startRefund(o: OrderRecord): Promise<{ delayMs?: number }> {
    const deposited = BigInt(o.deposit?.amount ?? '0');
    const native = this.asset(o.sourceAssetId).native;
    const amountLeft = deposited - o.networkFee;
    // Read only when it decides something (as before: no RPC for a refund that is below cost anyway).
    const lamports = amountLeft > 0n && needsRecipientLamports(native, amountLeft) ? await this.lamportsOf(o.sender) : 0n;
    const plan = refundPlan(deposited, o.networkFee, native, lamports);
    if (plan.kind === 'below_cost') {
      await transitionOrder(this.db, o.id, 'refunding', 'failed', { failureReason: 'deposit_below_refund_cost' });
      this.log({ trackingId: o.trackingId, deposited: deposited.toString() }, 'ALERT: deposit too small to refund; held in custody');
      return {};
    }
    if (plan.kind === 'below_rent') {
      await transitionOrder(this.db, o.id, 'refunding', 'failed', { failureReason: 'refund_below_rent' });
      this.log({ trackingId: o.trackingId, amount: plan.amount.toString() }, "ALERT: refund below a wallet's rent to a sender holding no SOL cannot land; held in custody");
      return {};
    }
    const amount = plan.amount;
    const { planned, ok } = await this.exclusive(async () => {
      const planned = await this.planTransfers(o, 'refund', o.sourceAssetId, o.sender as Address, amount);
      if (!planned) return { planned, ok: false };
      const ok = await allOrNothing(this.db, async (tx) => {
        if (!(await holdOrder(tx, o.id, 'refunding', this.workerId, this.leaseSeconds))) return false;
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
   * SOL below a wallet's rent sent to an address holding none fails on chain, every time (the account it
   * would open is not rent-exempt): sending it would only spend a fee per attempt.
   */
  private async cannotReceiveSol(assetId: string, amount: bigint, to: string): Promise<boolean> {
    const native = this.asset(assetId).native;
    return needsRecipientLamports(native, amount) && cannotReceiveSol(native, amount, await this.lamportsOf(to));
  }

  private async lamportsOf(address: string): Promise<bigint> {
    return (await this.view.balances([address], 'confirmed')).get(address)?.lamports ?? 0n;
  }

  /**
   * Rebuilds a part whose transaction provably cannot land (expired) or landed and failed: from a pool
   * that can cover it now (not blindly the same pool, which may be what made it fail), under the same
   * planning lock as new payouts. When no single pool can, it waits for the next tick.
   */
  private async replacePart(o: OrderRecord, dead: ChainTx, part: number | string): Promise<void> {
    const kind = dead.kind as 'payout' | 'refund';
    const attempts = await partAttempts(this.db, o.id, kind, String(part));
    const waitMs = (attempts.lastAt?.getTime() ?? 0) + replacementDelayMs(attempts.failed) - Date.now();
    if (waitMs > 0) {
      if (this.backoffAlerted.first(dead.id)) {
        this.log({ trackingId: o.trackingId, part: String(part), failed: attempts.failed, retryInS: Math.ceil(waitMs / 1000) }, `ALERT: a ${kind} keeps failing on chain; the next attempt waits`);
      }
      return;
    }
    const sent = await this.exclusive(async () => {
      const planned = await this.planTransfers(o, kind, dead.assetId, dead.destination as Address, dead.amount, { ...dead.meta });
      if (!planned || planned.length !== 1) return null;
      const row = { ...planned[0]!, meta: { ...planned[0]!.meta, part } };
      // A late refund is its late funds' business, not the order's: no hold (the order may be final or another worker's).
      const late = dead.meta.late === true;
      const recorded = await allOrNothing(this.db, async (tx) => (late || (await holdOrder(tx, o.id, o.status, this.workerId, this.leaseSeconds))) && (await insertChainTx(tx, row)) !== null);
      return recorded ? row.wire : null;
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
    /** quiet: a shortfall is not alerted (signing ahead; the real attempt alerts). */
    opts: { quiet?: boolean } = {},
  ) {
    const asset = this.asset(assetId);
    const pools = this.treasury.pools(assetId);
    // Pending first, balances second: a transaction that settles in between is then subtracted twice
    // (safe), never missed by both reads (which could overspend a pool).
    const pending = shared?.pending ?? (await pendingOutflows(q));
    const balances = shared?.balances ?? (await this.view.balances(pools.map((p) => p.holding), 'confirmed'));
    const reads = { pending, balances, taken: shared?.taken ?? new Map<string, bigint>() };
    const shuffled = shufflePools(pools, Math.random).map((pool) => ({ pool, available: this.available(asset, pool.holding, reads) }));
    const chosen = allocate(amount, shuffled);
    if (!chosen) {
      if (!opts.quiet) this.log({ trackingId: o.trackingId, assetId, amount: amount.toString() }, 'ALERT: pools cannot cover a payout; will retry');
      return null;
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

  /** What a pool can still pay: its `confirmed` balance less recorded pending outflows and what a batch took. */
  private available(asset: Asset, holding: string, reads: PlanReads): bigint {
    const b = reads.balances.get(holding);
    const held = asset.native ? (b?.lamports ?? 0n) - SOL_POOL_RESERVE : (b?.tokenAmount ?? 0n);
    return held - (reads.pending.get(holding) ?? 0n) - (reads.taken.get(holding) ?? 0n);
  }

  /** Sends recorded transactions in one RPC batch; never throws (the settle loop resends what did not go). */
  private async sendBatch(txs: { signature: string; wire: string }[]): Promise<void> {
    if (txs.length === 0) return;
    const now = Date.now();
    for (const t of txs) this.lastSent.set(t.signature, now);
    try {
      const errors = await this.view.sendMany(txs.map((t) => t.wire));
      const failed = errors.filter((e) => e !== null);
      if (failed.length > 0) this.log({ failed: failed.length, first: failed[0] }, 'send failed; will retry');
    } catch (e) {
      this.log({ err: e }, 'send failed; will retry');
    }
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

  /**
   * Settles the fate of every pending transaction Hush signed; resends those that may still land. Landed
   * ones are settled together: one RPC batch for their costs, one database transaction for their fates
   * and ledger movements, then one statement completing the orders all of whose payouts have landed.
   */
  async txTick(): Promise<number> {
    const pending = await pendingChainTxs(this.db, 256);
    if (pending.length === 0) return 0;
    const [statuses, finalizedHeight] = await Promise.all([this.view.statuses(pending.map((t) => t.signature)), this.view.blockHeight('finalized')]);
    const resend: string[] = [];
    const landed: { t: ChainTx; success: boolean }[] = [];
    await Promise.all(
      pending.map(async (t, i) => {
        const fate = txFate({ status: statuses[i], finalizedHeight, lastValidBlockHeight: t.lastValidBlockHeight, msSinceSent: Date.now() - (this.lastSent.get(t.signature) ?? 0), resendEveryMs: RESEND_EVERY_MS });
        if (fate === 'landed' || fate === 'failed') {
          landed.push({ t, success: fate === 'landed' });
        } else if (fate === 'expired') {
          // Its blockhash is dead at `finalized` and it is nowhere in history: it can never land.
          if (await settleChainTx(this.db, t.id, 'expired', null)) (this.lastSent.delete(t.signature), await this.afterSettled(t, false));
        } else if (fate === 'resend') {
          this.lastSent.set(t.signature, Date.now());
          resend.push(t.wire);
        }
      }),
    );
    await Promise.all([this.settleLanded(landed), resend.length > 0 ? this.sendAll(resend) : null]);
    return pending.length;
  }

  private async settleLanded(landed: { t: ChainTx; success: boolean }[]): Promise<void> {
    if (landed.length === 0) return;
    const costs = await this.view.costsMany(landed.map(({ t }) => ({ signature: t.signature, watch: this.watchOf(t), before: this.lamportsBeforeOf(t) })));
    // Not visible yet, or figures a batch cannot carry exactly: the one-by-one way.
    await Promise.all(landed.filter((_, i) => !costs[i]).map(({ t, success }) => this.landed(t, success)));
    const batch = landed.flatMap((l, i) => (costs[i] ? [{ ...l, costs: costs[i]! }] : []));
    if (batch.length === 0) return;
    const confirmedAt = new Date().toISOString();
    const settled = await this.db.transaction(async (tx) => {
      const done = await settleChainTxs(
        tx,
        batch.map(({ t, success, costs }) => ({ id: t.id, to: success ? 'confirmed' : 'failed', feeLamports: costs.fee, confirmedAt: success ? confirmedAt : undefined })),
      );
      const mine = batch.filter(({ t }) => done.has(t.id));
      const movements: Movement[] = [];
      for (const { t, success, costs } of mine) {
        movements.push(this.costMovement(t, costs));
        if (success) {
          await this.recordLateArrivals(tx, t, costs.lamportsBefore);
          movements.push(...this.assetMovements(t, costs.watchDelta));
        }
      }
      await recordMovements(tx, movements);
      for (const { t, success } of mine) if (t.kind === 'sweep') await finishSweep(tx, t.id, success);
      return mine;
    });
    for (const { t } of settled) this.lastSent.delete(t.signature);
    // Landed payouts complete their orders together; everything else settles one by one as before.
    const payouts = settled.filter(({ t, success }) => success && t.kind === 'payout' && t.orderId);
    const rest = settled.filter((l) => !payouts.includes(l));
    const stepped = await this.completeOrders([...new Set(payouts.map(({ t }) => t.orderId!))]).catch((e: unknown) => {
      this.log({ err: e }, 'completing orders failed');
      return new Set<string>();
    });
    const after = [...rest, ...payouts.filter(({ t }) => !stepped.has(t.orderId!))];
    const seen = new Set<string>();
    await Promise.all(
      after.map(({ t, success }) => {
        if (t.orderId && t.kind === 'payout') {
          if (seen.has(t.orderId)) return null;
          seen.add(t.orderId);
        }
        return this.afterSettled(t, success);
      }),
    );
  }

  /**
   * `sending → completed` for every given order all of whose payout parts have landed, in one statement.
   * Returns the orders it completed; the others (held elsewhere, a part to replace) go the per-order way.
   */
  private async completeOrders(orderIds: string[]): Promise<Set<string>> {
    if (orderIds.length === 0) return new Set();
    const [orders, txs] = await Promise.all([ordersByIds(this.db, orderIds), chainTxsOfOrders(this.db, orderIds, 'payout')]);
    const byOrder = new Map<string, ChainTx[]>();
    for (const t of txs) byOrder.set(t.orderId!, [...(byOrder.get(t.orderId!) ?? []), t]);
    const now = new Date().toISOString();
    const items: PayoutCompletion[] = [];
    for (const o of orders) {
      if (o.status !== 'sending') continue;
      const parts = new Map<number, ChainTx[]>();
      for (const t of byOrder.get(o.id) ?? []) parts.set(Number(t.meta.part ?? 0), [...(parts.get(Number(t.meta.part ?? 0)) ?? []), t]);
      const landed = [...parts.values()].map((list) => list.find((t) => t.status === 'confirmed'));
      if (parts.size === 0 || landed.some((t) => !t)) continue;
      items.push({
        id: o.id,
        payouts: landed.map((t) => ({ signature: t!.signature, amount: t!.amount.toString(), confirmedAt: (t!.meta.confirmedAt as string | undefined) ?? now })),
        movement: this.feeMovement(o),
      });
    }
    if (items.length === 0) return new Set();
    faultPoint('payout-confirmed');
    return completePayouts(this.db, items);
  }

  private feeMovement(o: OrderRecord): Movement {
    return {
      movement: `fees:${o.trackingId}`,
      kind: 'fee_income',
      legs: [
        { account: 'income:service', assetId: o.sourceAssetId, amount: -o.serviceFee },
        { account: `payable:partner:${o.accountId}:${o.feeRecipient ?? '-'}`, assetId: o.sourceAssetId, amount: -o.partnerFee },
        { account: 'income:network_fee', assetId: o.sourceAssetId, amount: -o.networkFee },
        { account: 'custody:retained', assetId: o.sourceAssetId, amount: o.serviceFee + o.partnerFee + o.networkFee },
      ],
      orderId: o.id,
    };
  }

  private costMovement(t: ChainTx, costs: { fee: bigint; feePayerDelta: bigint }): Movement {
    return networkCostMovement(t.signature, this.treasury.feePayer.address, costs);
  }

  private async landed(t: ChainTx, success: boolean): Promise<void> {
    const costs = await this.view.costs(t.signature, this.watchOf(t), this.lamportsBeforeOf(t));
    if (!costs) return; // not visible at `confirmed` yet
    const done = await this.db.transaction(async (tx) => {
      if (!(await settleChainTx(tx, t.id, success ? 'confirmed' : 'failed', costs.fee, success ? new Date().toISOString() : undefined))) return false;
      if (success) await this.recordLateArrivals(tx, t, costs.lamportsBefore);
      await recordMovements(tx, [this.costMovement(t, costs), ...(success ? this.assetMovements(t, costs.watchDelta) : [])]);
      if (t.kind === 'sweep') await finishSweep(tx, t.id, success);
      return true;
    });
    if (done) {
      this.lastSent.delete(t.signature);
      await this.afterSettled(t, success);
    }
  }

  /** The pool wallet a sweep pays into, whose lamport change is asked for with its costs. */
  private watchOf(t: ChainTx): string | undefined {
    return t.kind === 'sweep' ? (this.treasury.poolByHolding(t.destination)?.address ?? t.destination) : undefined;
  }

  /** The deposit accounts of a wrapped-SOL sweep, whose lamports just before it landed are asked for with its costs. */
  private lamportsBeforeOf(t: ChainTx): string[] {
    if (t.kind !== 'sweep' || !this.asset(t.assetId).native) return [];
    return [...new Set((t.meta.items as SweepItemRecord[]).map((i) => i.depositAccount))];
  }

  /**
   * SOL that reached a wrapped-SOL deposit account after the sweep read it left with the close: it becomes
   * a late item of the sweep (see withLateArrivals), recorded with the sweep's settlement, so the ledger
   * books it from the sender and refundLate returns it like any late deposit.
   */
  private async recordLateArrivals(tx: Queryable, t: ChainTx, lamportsBefore: Map<string, bigint>): Promise<void> {
    if (t.kind !== 'sweep' || lamportsBefore.size === 0) return;
    const items = withLateArrivals(t.meta.items as SweepItemRecord[], lamportsBefore, DEFAULT_NETWORK_COST.tokenAccountRent);
    if (!items) return;
    await tx.query(`UPDATE chain_txs SET meta = jsonb_set(meta, '{items}', $2::jsonb) WHERE id = $1`, [t.id, JSON.stringify(items)]);
    t.meta = { ...t.meta, items };
    this.log({ signature: t.signature }, 'SOL reached a deposit account after its sweep read it; refunding it as a late deposit');
  }

  /** What a landed transaction moved, for the ledger. */
  private assetMovements(t: ChainTx, poolLamportDelta: bigint): Movement[] {
    const pool = `pool:${t.source}`;
    switch (t.kind) {
      case 'payout':
      case 'refund':
      case 'partner_payout':
        return [
          {
            movement: `tx:${t.signature}:assets`,
            kind: t.kind,
            legs: [
              { account: pool, assetId: t.assetId, amount: -t.amount },
              { account: t.kind === 'payout' ? 'external:recipients' : t.kind === 'refund' ? 'external:senders' : 'external:partners', assetId: t.assetId, amount: t.amount },
              ...(t.kind === 'partner_payout'
                ? [
                    { account: String(t.meta.payable), assetId: t.assetId, amount: t.amount },
                    { account: 'custody:retained', assetId: t.assetId, amount: -t.amount },
                  ]
                : []),
            ],
            orderId: t.orderId,
          },
        ];
      case 'sweep': {
        const { legs, unattributed } = sweepLegs(t.meta.items as SweepItemRecord[], {
          assetId: t.assetId,
          pool: t.destination,
          native: this.asset(t.assetId).native,
          poolLamportDelta,
          rentPerAccount: DEFAULT_NETWORK_COST.tokenAccountRent,
        });
        if (unattributed > 0n) {
          this.log({ signature: t.signature, lamports: unattributed.toString() }, 'ALERT: a wrapped-SOL sweep moved lamports it cannot attribute to a deposit account (balances before it unknown); owed to a sender, refund by hand');
        }
        return [{ movement: `tx:${t.signature}:assets`, kind: 'sweep', legs }];
      }
      default:
        return [];
    }
  }

  private async afterSettled(t: ChainTx, landed: boolean): Promise<void> {
    if (t.kind === 'sweep') {
      if (!landed) await this.db.transaction((tx) => finishSweep(tx, t.id, false));
      else await this.refundLate(t);
      return;
    }
    // A stray return moves nothing the order counts (see StrayFundsService): its cost is booked, nothing else.
    if (!t.orderId || t.kind === 'stray_return') return;
    if (t.kind === 'refund' && t.meta.late) {
      if (landed) await recordLateRefund(this.db, t.orderId, { signature: t.signature });
      return;
    }
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
              // All or nothing: a record never outlives a failed move (the watchdog failed the order meanwhile).
              const ok = await allOrNothing(this.db, async (tx) => {
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
   * orders whose deposit became visible are claimed at once and go through confirmAndPay together (all
   * state changes are its compare-and-set transitions). In between, the watched accounts are read at
   * `processed` and the payouts of deposits visible there are signed ahead (presign): a deposit is
   * processed as soon as it lands and confirmed only when the slot advances.
   */
  async depositWatchTick(): Promise<void> {
    const confirmedSlot = await this.view.slot('confirmed');
    if (confirmedSlot !== this.lastWatchedSlot) {
      this.lastWatchedSlot = confirmedSlot;
      // Pending transactions reach `confirmed` exactly when this slot advances: settle them now, not next tick.
      this.wake('transactions');
      // Deposits already seen at `processed` are likely confirmed in this very slot: those go first, with
      // their signatures looked up alongside their balances, before the full read below.
      const byId = new Map(this.watched.map((r) => [String(r.id), r]));
      const seen = [...this.seenProcessed.keys()].flatMap((id) => (byId.has(id) && !this.confirming.has(id) && !this.recentlyConfirmed.has(id) ? [byId.get(id)!] : []));
      if (seen.length > 0) {
        const accounts = seen.map((r) => r.deposit_account);
        const signatures = this.signaturesByAccount(accounts);
        // A failed read here only loses the head start: the full read below still covers them.
        const early = await this.view.balances(accounts, 'confirmed').catch(() => new Map<string, AccountBalance>());
        const funded = seen.filter((r) => (early.get(r.deposit_account)?.tokenAmount ?? 0n) > 0n);
        if (funded.length > 0) {
          this.lastDepositBurstAt = Date.now();
          // (confirmAndPay marks them `confirming` before this returns: the read below skips them.)
          this.detach(this.confirmBatch(funded.map(watchedOrder), early, signatures));
        }
      }
      // The accounts watched so far are read while the list is refreshed; new ones are read after.
      const known = this.watched;
      const [rows, knownBalances] = await Promise.all([
        this.db
          .query<WatchedRow>(
            `SELECT id, tracking_id, deposit_account, recipient, amount_in, amount_out, source_asset_id, destination_asset_id, created_at
             FROM orders WHERE status IN ('awaiting_deposit', 'deposit_detected') LIMIT 10000`,
          )
          .then((r) => r.rows),
        this.view.balances(known.map((r) => r.deposit_account), 'confirmed'),
      ]);
      this.watched = rows;
      this.warmRecipients(rows);
      const unread = rows.filter((r) => !knownBalances.has(r.deposit_account)).map((r) => r.deposit_account);
      const balances = unread.length > 0 ? new Map([...knownBalances, ...(await this.view.balances(unread, 'confirmed'))]) : knownBalances;
      const watching = new Set(rows.map((r) => String(r.id)));
      for (const id of this.unclaimed.keys()) if (!watching.has(id)) this.unclaimed.delete(id);
      for (const id of this.recentlyConfirmed) if (!watching.has(id)) this.recentlyConfirmed.delete(id);
      const fresh = (id: string) => !this.confirming.has(id) && !this.recentlyConfirmed.has(id);
      const funded = rows.filter((r) => (balances.get(r.deposit_account)?.tokenAmount ?? 0n) > 0n && fresh(String(r.id)));
      if (funded.length > 0) {
        this.lastDepositBurstAt = Date.now();
        const fundedIds = new Set(funded.map((r) => String(r.id)));
        this.watched = rows.filter((r) => !fundedIds.has(String(r.id)));
        // Not awaited: the watch keeps looking while this batch is confirmed (which claims it), recorded
        // and sent; orders another step holds are left to it. Their signatures are looked up from now,
        // while the batch may still wait for the planning lock.
        this.detach(this.confirmBatch(funded.map(watchedOrder), balances, this.signaturesByAccount(funded.map((r) => r.deposit_account))));
      }
      return;
    }
    // Funded orders another step held when their batch was confirmed: again as soon as they are free.
    if (this.unclaimed.size > 0 && Date.now() - this.lastUnclaimedTry >= UNCLAIMED_RETRY_MS) {
      this.lastUnclaimedTry = Date.now();
      for (const id of this.unclaimed.keys()) if (this.recentlyConfirmed.has(id)) this.unclaimed.delete(id);
      const retry = [...this.unclaimed.values()].filter((u) => !this.confirming.has(u.order.id));
      for (const u of retry) this.unclaimed.delete(u.order.id);
      if (retry.length > 0) this.detach(this.confirmBatch(retry.map((u) => u.order), new Map(retry.map((u) => [u.order.depositAccount, u.balance]))));
    }
    if (this.config.payoutDelayS.max > 0 || Date.now() - this.lastPresignReadAt < PRESIGN_READ_EVERY_MS) return;
    // Orders signed ahead are read too until their deposit is seen (the watch confirms seen ones first).
    const open = this.watched.filter((r) => !this.seenProcessed.has(String(r.id)) && !this.confirming.has(String(r.id)) && !this.recentlyConfirmed.has(String(r.id)));
    if (open.length === 0) return;
    this.lastPresignReadAt = Date.now();
    // Beside the watch, not in its way: signing a burst ahead takes longer than a watch tick.
    if (this.presigning) return;
    const run = this.view
      .balances(open.map((r) => r.deposit_account), 'processed')
      .then((processed) => this.presign(open, processed))
      .catch((e: unknown) => this.log({ err: e }, 'presign failed'))
      .finally(() => {
        if (this.presigning === run) this.presigning = null;
      });
    this.presigning = run;
    this.detach(run);
  }

  /**
   * Orders whose deposit the watch saw land (at `processed`) within the last few slots: it confirms them
   * when the slot advances, so the order loop leaves them alone meanwhile (a poll holding one then would
   * make the watch skip it). Past that window the order loop's poll is their fallback again.
   */
  private watchOwns(): string[] {
    const since = Date.now() - WATCH_OWNS_SLOTS * this.config.localnetSlotMs;
    return [...this.seenProcessed.entries()].filter(([, v]) => v.at >= since).map(([id]) => id);
  }

  /** The first deposit signature of each account (one JSON-RPC batch), by account; never rejects. */
  private signaturesByAccount(accounts: string[]): Promise<Map<string, string | null | undefined>> {
    return this.view.firstSignatures(accounts).then(
      (all) => new Map(accounts.map((a, i) => [a, all[i]])),
      () => new Map(),
    );
  }

  /**
   * The deposit watch's confirmAndPay (which marks what it confirmed recently confirmed): orders it could
   * not claim are tried again (see depositWatchTick).
   */
  private async confirmBatch(orders: PayableOrder[], balances: Map<string, AccountBalance>, signatures?: Promise<Map<string, string | null | undefined>>): Promise<void> {
    const moved = await this.confirmAndPay(orders, balances, { held: false, signatures });
    for (const o of orders) if (!moved.has(o.id) && !this.recentlyConfirmed.has(o.id)) this.unclaimed.set(o.id, { order: o, balance: balances.get(o.depositAccount)! });
  }

  // ---- sweeps ----

  /**
   * Moves confirmed deposits into a random pool of their asset, several per transaction. Reads and
   * signing happen before the database transaction, which only re-locks the deposits and records the
   * sweep (an open transaction holds up every other query on PGlite). Waits while deposits are arriving
   * (a burst): sweeping is bulk work with no deadline, and payouts come first.
   */
  async sweepTick(): Promise<number> {
    // Deferred at most SWEEP_MAX_DEFERRALS ticks in a row: under steady traffic there is never a quiet
    // moment, and unswept deposits are inventory the pools need.
    const busy = Date.now() - this.lastDepositBurstAt < SWEEP_QUIET_SLOTS * this.config.localnetSlotMs;
    if (busy && this.sweepDeferrals < SWEEP_MAX_DEFERRALS) {
      this.sweepDeferrals++;
      return 0;
    }
    this.sweepDeferrals = 0;
    let swept = 0;
    const finalizedHeight = await this.view.blockHeight('finalized');
    for (const assetId of await assetsWithUnsweptDeposits(this.db, finalizedHeight)) {
      const asset = this.asset(assetId);
      const pool = this.treasury.pools(assetId)[randomInt(this.treasury.pools(assetId).length)]!;
      // From after the last batch of the asset, round again from the start once past the end.
      const after = this.sweptUpTo.get(assetId) ?? '0';
      let batch = await lockUnsweptDeposits(this.db, finalizedHeight, assetId, SWEEP_BATCH, after);
      if (batch.length === 0 && after !== '0') batch = await lockUnsweptDeposits(this.db, finalizedHeight, assetId, SWEEP_BATCH);
      if (batch.length === 0) continue;
      this.sweptUpTo.set(assetId, batch[batch.length - 1]!.orderId);
      const [blockhash, balances] = await Promise.all([this.chain().latestBlockhash(), this.view.balances(batch.map((b) => b.depositAccount), 'confirmed')]);
      const items: (SweepItem & { orderId: string; extra: bigint; reserve: bigint })[] = [];
      for (const b of batch) {
        const balance = balances.get(b.depositAccount);
        if (!balance || balance.tokenAmount === null) {
          if (balance && this.unsweepableAlerted.first(b.orderId)) {
            this.log({ trackingId: b.trackingId, depositAccount: b.depositAccount }, 'ALERT: a confirmed deposit has no token account to sweep; it is skipped, the others are swept');
          }
          continue;
        }
        const amount = balance.tokenAmount;
        // Funds sent after the deposit was confirmed are no part of the order: swept with it, refunded as late.
        const extra = amount > b.depositAmount ? amount - b.depositAmount : 0n;
        if (extra > 0n) this.log({ trackingId: b.trackingId, amount: extra.toString() }, 'funds sent after the deposit found; sweeping them for a refund');
        items.push({ owner: await this.treasury.depositSigner(b.trackingId), depositAccount: b.depositAccount as Address, amount, orderId: b.orderId, extra, reserve: balance.lamports - amount });
      }
      if (items.length === 0) continue;
      const signed = await buildSweep(this.shape(blockhash), { asset, poolWallet: pool.address, poolHolding: pool.holding, items });
      const result = await this.db.transaction(async (tx) => {
        // Someone swept or took one of them since it was read: this signed sweep is dropped, never sent.
        const still = await relockUnsweptDeposits(tx, items.map((i) => i.orderId));
        if (still.size !== items.length) return null;
        const id = await insertChainTx(tx, {
          kind: 'sweep',
          orderId: null,
          assetId,
          amount: items.reduce((s, i) => s + i.amount, 0n),
          source: 'deposits',
          destination: pool.holding,
          ...signed,
          meta: {
            items: items.flatMap((i) => [
              { orderId: i.orderId, depositAccount: i.depositAccount, amount: (i.amount - i.extra).toString(), ...(asset.native ? { reserve: i.reserve.toString() } : {}) },
              ...(i.extra > 0n ? [{ orderId: i.orderId, depositAccount: i.depositAccount, amount: i.extra.toString(), late: true }] : []),
            ]),
          },
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
        // SOL below a wallet's rent cannot open an empty recipient's account (it would fail every period,
        // costing a fee each time): it keeps accruing until it can.
        if (await this.cannotReceiveSol(r.asset_id, amount, recipient)) continue;
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
   * late refunds whose transaction died, and looks for funds at the deposit owners outside their deposit
   * accounts (StrayWatch).
   */
  async lateDepositTick(): Promise<number> {
    const found = await this.lateDepositPass();
    this.latePassesDone++;
    return found;
  }

  /** Late-deposit passes completed by this worker (tests wait for passes, not for time). */
  get latePasses(): number {
    return this.latePassesDone;
  }

  private async lateDepositPass(): Promise<number> {
    const { rows, next } = await lateDepositCandidates(this.db, this.lateRotation, LATE_PER_PART);
    this.lateRotation = next;
    let found = 0;
    if (rows.length > 0) {
      const balances = await this.view.balances([...rows.map((r) => r.deposit_account), ...rows.map((r) => r.deposit_owner)], 'confirmed');
      for (const r of rows) {
        this.strays.noticeSol(r.tracking_id, r.deposit_owner, balances.get(r.deposit_owner)?.lamports ?? 0n);
        if (!this.lateFunds(r.source_asset_id, balances.get(r.deposit_account))) continue;
        found++;
        await this.sweepLate(String(r.id), r.tracking_id, r.deposit_account, r.source_asset_id);
      }
    }
    // A failed read only delays those owners to the next rotation; the refunds below still run.
    await this.strays.scanTokens().catch((e: unknown) => this.log({ err: e }, 'stray token account read failed'));
    await this.retryLateRefunds();
    await this.replaceDeadLateRefunds();
    return found;
  }

  /**
   * What a deposit account holds after its order is done, if anything. SOL sent to a wrapped-SOL deposit
   * address whose account is closed (or was never made) sits at an address only the token programs can
   * touch: reopening the account moves it (all of it is the sender's: the account had no rent of its
   * own). Too few lamports to pay the rent are left there.
   */
  private lateFunds(assetId: string, b: AccountBalance | undefined): { amount: bigint; reopen: boolean } | null {
    if (b?.exists && b.tokenAmount === null && this.asset(assetId).native && b.lamports > DEFAULT_NETWORK_COST.tokenAccountRent) return { amount: b.lamports, reopen: true };
    const amount = b?.tokenAmount ?? 0n;
    return amount > 0n ? { amount, reopen: false } : null;
  }

  /**
   * Records and sends the sweep of late funds. Two workers' passes can see the same funds. The balance is
   * read and the sweep signed first (no transaction held across RPC calls); then, under a per-deposit-
   * account advisory lock, it is recorded only if no sweep of that account is pending or was settled
   * since the read — so a sweep that already took the funds is never followed by a second one, which the
   * fee payer would fund and a refund would pay out again.
   */
  private async sweepLate(orderId: string, trackingId: string, depositAccount: string, assetId: string): Promise<void> {
    const asset = this.asset(assetId);
    const pools = this.treasury.pools(assetId);
    const pool = pools[randomInt(pools.length)]!;
    // The store's clock, like chain_txs.updated_at.
    const readAt = (await this.db.query<{ at: Date }>('SELECT now() AS at')).rows[0]!.at;
    if (await sweepOfAccount(this.db, depositAccount)) return;
    const funds = this.lateFunds(assetId, (await this.view.balances([depositAccount], 'confirmed')).get(depositAccount));
    if (!funds) return;
    const { amount, reopen } = funds;
    const signed = await buildSweep(this.shape(await this.chain().latestBlockhash()), {
      asset,
      poolWallet: pool.address,
      poolHolding: pool.holding,
      items: [{ owner: await this.treasury.depositSigner(trackingId), depositAccount: depositAccount as Address, amount, reopen }],
    });
    const recorded = await allOrNothing(this.db, async (tx) => {
      const lock = await tx.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, hashtext($2)) AS ok', [LATE_SWEEP_LOCK, depositAccount]);
      if (!lock.rows[0]?.ok || (await sweepOfAccount(tx, depositAccount, readAt))) return false;
      const id = await insertChainTx(tx, {
        kind: 'sweep',
        orderId: null,
        assetId,
        amount,
        source: 'deposits',
        destination: pool.holding,
        ...signed,
        // A reopened account has no reserve of its own: every lamport it held came from the sender.
        meta: { items: [{ orderId, depositAccount, amount: amount.toString(), late: true, ...(reopen ? { reserve: '0' } : {}) }] },
      });
      return id !== null;
    });
    if (!recorded) return;
    this.log({ trackingId, amount: amount.toString() }, reopen ? 'SOL sent to a closed deposit address; reopening it to refund' : 'late deposit found; sweeping it for a refund');
    await this.sendAll([signed.wire]);
  }

  /**
   * Plans the refunds a landed sweep's late items are owed, all parts of all its items in one database
   * transaction that also marks the sweep `lateRefunded`: refunds are recorded whole or not at all. A sweep
   * still unmarked (a crash, an RPC error, no pool able to pay yet) is found again by retryLateRefunds.
   */
  private async refundLate(sweep: ChainTx): Promise<void> {
    const items = (sweep.meta.items as SweepItemRecord[]).filter((i) => i.late);
    if (items.length === 0) return;
    // Read before the database transaction (no transaction waits on the RPC): which SOL refunds cannot land.
    const unpayable = new Set<string>();
    if (this.asset(sweep.assetId).native) {
      for (const item of items) {
        const order = await getOrderById(this.db, item.orderId);
        if (order && (await this.cannotReceiveSol(order.sourceAssetId, BigInt(item.amount) - order.networkFee, order.sender))) unpayable.add(item.orderId);
      }
    }
    const wires = await this.exclusive(() =>
      this.db.transaction(async (tx) => {
        const marked = await tx.query(`UPDATE chain_txs SET meta = meta || '{"lateRefunded": true}'::jsonb WHERE id = $1 AND NOT (meta ? 'lateRefunded') RETURNING id`, [sweep.id]);
        if (marked.rows.length === 0) return [];
        // Refunds recorded before sweeps were marked: the mark is all that was missing.
        if (await lateRefundsExist(tx, sweep.signature)) return [];
        const out: string[] = [];
        for (const item of items) {
          const order = await getOrderById(tx, item.orderId);
          if (!order) continue;
          const refund = BigInt(item.amount) - order.networkFee;
          if (refund <= 0n) {
            this.log({ trackingId: order.trackingId, amount: item.amount }, 'ALERT: late deposit too small to refund; held in custody');
            continue;
          }
          if (unpayable.has(item.orderId)) {
            this.log({ trackingId: order.trackingId, amount: refund.toString() }, "ALERT: late refund below a wallet's rent to a sender holding no SOL cannot land; held in custody");
            continue;
          }
          const planned = await this.planTransfers(order, 'refund', order.sourceAssetId, order.sender as Address, refund, { late: true }, tx);
          // No pool can pay it now: roll the whole mark back, so a later pass tries again.
          if (!planned) throw new LateRefundDeferred();
          for (const [n, p] of planned.entries()) {
            if ((await insertChainTx(tx, { ...p, meta: { ...p.meta, part: `late:${sweep.signature}:${n}` } })) === null) throw new LateRefundDeferred();
            out.push(p.wire);
          }
        }
        return out;
      }),
    ).catch((e: unknown) => {
      if (e instanceof LateRefundDeferred) return [];
      throw e;
    });
    await this.sendAll(wires);
  }

  /** Landed sweeps whose late refunds were never recorded (see refundLate), oldest first. */
  private async retryLateRefunds(): Promise<void> {
    const { rows } = await this.db.query<{ id: string | number }>(
      `SELECT id FROM chain_txs WHERE kind = 'sweep' AND status = 'confirmed' AND meta -> 'items' @> '[{"late": true}]'::jsonb
         AND NOT (meta ? 'lateRefunded')
       ORDER BY id LIMIT 50`,
    );
    for (const r of rows) {
      const sweep = await getChainTx(this.db, String(r.id));
      if (sweep) await this.refundLate(sweep);
    }
  }

  private async replaceDeadLateRefunds(): Promise<void> {
    // Only parts whose latest attempt died, and only recent ones: this runs every pass, and late refunds accumulate.
    const dead = await deadLateRefunds(this.db);
    await this.alertAbandonedLateRefunds();
    for (const id of dead) {
      const t = await getChainTx(this.db, id);
      if (!t || (t.status !== 'expired' && t.status !== 'failed')) continue;
      const order = await getOrderById(this.db, t.orderId!);
      if (order) await this.replacePart(order, t, t.meta.part as never);
    }
  }

  /**
   * Late refund parts past the 7-day window whose last attempt died are no longer retried (one that keeps
   * failing, e.g. to a frozen account, would otherwise cost fees forever): the sender's funds then need an
   * operator. Told once per process and part, on the day they are given up.
   */
  private async alertAbandonedLateRefunds(): Promise<void> {
    for (const r of await abandonedLateRefunds(this.db)) {
      if (!this.abandonedAlerted.first(r.id)) continue;
      this.log({ trackingId: r.trackingId, part: r.part, assetId: r.assetId, amount: r.amount }, 'ALERT: a late refund failed for 7 days and is no longer retried; the funds are in the pools, refund the sender by hand');
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
    const done = await runRebalance(this.rebalancer, inventory, this.inventoryTargets, this.prices, this.config.assets, this.rebalancePolicy);
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

  async maintenanceTick(): Promise<void> {
    await purgeIdempotencyKeys(this.db);
    await purgeDepositHints(this.db);
    // Watchdog: nothing stays non-final forever; failing keeps funds where they are and alerts. Not in a
    // worker's first minutes: orders that waited out an outage are paid by its catch-up, not failed. Only
    // minutes, so a worker that keeps restarting still gets its stuck orders reported.
    if (Date.now() - this.startedAt < Math.min(this.stuckAfterMs, WATCHDOG_START_GRACE_MS)) return;
    const stuck = await stuckOrders(this.db, this.stuckAfterMs);
    for (const id of this.stuckInFlight) if (!stuck.some((r) => r.id === id)) this.stuckInFlight.delete(id);
    for (const r of stuck) {
      // Never while a worker holds it or a payout or refund of it is pending or landed: "funds held" must be true.
      if (await transitionOrder(this.db, r.id, r.status as never, 'failed', { failureReason: `stuck_in_${r.status}` }, { idle: true })) {
        this.log({ trackingId: r.trackingId, status: r.status }, 'ALERT: order stuck; moved to failed, funds held');
      } else if (!this.stuckInFlight.has(r.id)) {
        this.stuckInFlight.add(r.id);
        this.log({ trackingId: r.trackingId, status: r.status }, 'ALERT: order stuck with a payout or refund in flight or landed (or held by a worker); left as it is');
      }
    }
  }

}
