import type { Asset } from '../config/assets.ts';
import type { HushConfig } from '../config/config.ts';
import { releasePolicy } from '../config/privacy-settings.ts';
import { burstSpanSlots } from '../domain/landed-bursts.ts';
import type { ChainSubscriptions } from '../chain/chain-subscriptions.ts';
import { ChainView } from '../chain/chain-view.ts';
import { txShape, type TxShape } from '../chain/hush-transactions.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import { callThrough, FeeMarket } from '../chain/fee-market.ts';
import type { FeePurpose } from '../domain/fee-estimate.ts';
import type { ChainRecord } from '../domain/chain-record.ts';
import { sealRecord } from '../treasury/record-cipher.ts';
import type { Db } from '../store/db.ts';
import type { ChainTxOf, NewChainTx } from '../store/settlement/chain-tx.ts';
import type { Treasury } from '../treasury/treasury.ts';
import type { SwapPricing } from '../prices/swap-pricing.ts';
import type { Rebalancer } from '../rebalance/rebalancer.ts';
import type { FreshPrices } from '../prices/price-source.ts';
import { alertFields } from '../support/alerts.ts';
import { SCREENING_OFF, type Screening } from '../screening/screening-port.ts';
import { OncePerKey } from '../support/once-per-key.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';
import type { FaultPoints } from '../support/fault-points.ts';
import type { Log } from './deps.ts';
import { Outbox } from './outbox.ts';
import { Pools } from './pools.ts';
import { ForeignFunds } from './fast-path/foreign-funds.ts';
import { SentSignatures } from './fast-path/sent-signatures.ts';
import { SlotClock } from './fast-path/slot-clock.ts';
import { WatchedBalances } from './fast-path/watched-balances.ts';
import { budgetedPollMs, fallbackPollMs } from './timing.ts';
import { PayoutQueue } from './payout-queue.ts';
import { FeePrices } from './fee-prices.ts';
import { FeeGridObserver } from './fee-grid-observer.ts';

export type { Log } from './deps.ts';

export interface WorkerOptions {
  workerId?: string;
  /** How often the loops wake; defaults to half a slot. */
  tickMs?: number;
  sweepIntervalMs?: number;
  leaseSeconds?: number;
  /** A non-final order older than this (past its expiration) is failed by the watchdog. */
  stuckAfterMs?: number;
  log?: Log;
  /** Live prices, for the drift check of swaps; without it swaps wait. */
  swaps?: SwapPricing;
  /** Aggregate inventory rebalancing (absent: off); needs `prices`. */
  rebalancer?: Rebalancer;
  prices?: FreshPrices;
  /** Inventory each asset's pools should hold in total (base units); the rebalancer aims for it. */
  inventoryTargets?: Map<string, bigint>;
  rebalanceIntervalMs?: number;
  /** PubSub (slots, deposit accounts, signatures); absent → everything is polled, boundedly. */
  subscriptions?: ChainSubscriptions;
  /** docs/spec.md §12: deposits and payouts screened before anything is sent; absent → off. */
  screening?: Screening;
  /** Where the worker reads "now" and waits (its loops, wake-ups, leases, back-offs). */
  clock: Clock;
  /** Every draw the worker makes: its id, payout delays, pool picks, release orders, jitter. */
  random: Random;
  /** Where a crash test stops the worker (src/support/fault-points.ts). */
  faults: FaultPoints;
  /** False: signatures on the event loop, not the thread pool (a host that decides every event's order: the simulator). */
  threads?: boolean;
}

/** What a step's next look at an order is: after a delay, at a time, or never (a final status). */
export interface NextLook {
  delayMs?: number;
  at?: Date;
}

/**
 * What the runner gives a context at construction: its loops' hooks, and where a landed sweep's late
 * items go. Nothing is set on a context afterwards.
 */
export interface RunnerHooks {
  /** Cuts a loop's sleep short (by name): work for it is due now, or at `at` (ms since epoch). */
  wake(loop: string, at?: number): void;
  /** Runs work that never throws beside the loop that started it; stop() waits for it. */
  detach(p: Promise<void>): void;
  /** False once stop() was called: long passes end early. */
  running(): boolean;
  /**
   * What settling a landed sweep does about its late items (steps/late-refunds.ts). Replaceable in tests
   * (test/settlement/partner-fees-late-deposits.test.ts: a refund lost between the sweep and its record).
   */
  refundLate(sweep: ChainTxOf<'sweep'>): Promise<void>;
  /** The transfer the chain shows for an order's part, which the store had forgotten (the runner's chain check). */
  adopted(orderId: string, kind: 'payout' | 'refund' | 'partner_payout', part: number): NewChainTx | undefined;
}

/**
 * What every step works with: configuration, store, chain, treasury, log, this worker's lease, the
 * outbox and the pools. Each step takes only the part it uses (its `…Deps` type, a Pick of this class).
 * Its parts are built once, here, each given its own narrow port (never the context itself).
 */
export class SettlementContext {
  /** Read-only: built once (a test may swap it through a cast, for a view over fixed balances). */
  readonly view: ChainView;
  readonly workerId: string;
  readonly leaseSeconds: number;
  readonly log: Log;
  readonly outbox: Outbox;
  readonly pools: Pools;
  readonly payouts: PayoutQueue;
  readonly subscriptions: ChainSubscriptions | null;
  /** The slot, from notifications or (socket down) a bounded poll. */
  readonly slots: SlotClock;
  /** When the fate loop reads pending transactions' statuses (notified, or polled boundedly). */
  readonly sent: SentSignatures;
  /** Deposit accounts funded by someone other than the order's sender (front-run): never the deposit. */
  readonly foreign: ForeignFunds;
  /** The deposit accounts of orders awaiting their deposit, as notifications keep them (the deposit watch's; the order loop reads them too). */
  readonly depositBalances: WatchedBalances;
  readonly swaps?: SwapPricing;
  readonly screening: Screening;
  /** Where every step and part reads "now" (src/support/clock.ts). */
  readonly clock: Clock;
  /** Where every step and part draws (src/support/random.ts). */
  readonly random: Random;
  readonly faults: FaultPoints;
  /** Each purpose's compute-unit price from the fee market and Hush's own landings (fee-prices.ts). */
  readonly fees: FeePrices;
  /** The quote grid's worker side: fast readings into the shared row, the rung the ledger's split reads. */
  readonly grid: FeeGridObserver;
  private readonly threads: boolean;
  /** Alerts told once per process and key. */
  readonly alerted = { backoff: new OncePerKey(), unsweepable: new OncePerKey(), abandonedLateRefund: new OncePerKey() };
  /** When a capped signing of each purpose was last alerted: at most one ALERT a minute per purpose. */
  private readonly cappedAlertAt = new Map<FeePurpose, number>();

  constructor(
    readonly config: HushConfig,
    readonly db: Db,
    chain: SolanaChain,
    readonly treasury: Treasury,
    opts: WorkerOptions,
    readonly hooks: RunnerHooks,
  ) {
    this.view = new ChainView(chain);
    this.workerId = opts.workerId ?? `w_${opts.random.bytes(4).toString('hex')}`;
    this.leaseSeconds = opts.leaseSeconds ?? 30;
    this.log = opts.log ?? (() => {});
    this.swaps = opts.swaps;
    this.screening = opts.screening ?? SCREENING_OFF;
    this.clock = opts.clock;
    this.faults = opts.faults;
    this.threads = opts.threads !== false;
    this.random = opts.random;
    this.outbox = new Outbox(() => this.view, this.log, () => this.wake('transactions'), this.clock, (signatures) => (this.fees.sent(signatures), this.sent.watch(signatures)), (signature) => this.fees.resent(signature));
    this.pools = new Pools({
      db,
      treasury,
      view: () => this.view,
      asset: (id) => this.asset(id),
      alert: (kind, fields, msg) => this.alert(kind, fields, msg),
      shape: (blockhash, purpose, record, previousPrice) => this.shape(blockhash, purpose, record, previousPrice),
      fees: () => this.fees,
      clock: this.clock,
      random: this.random,
      adopted: (orderId, kind, part) => this.hooks.adopted(orderId, kind, part),
    });
    this.payouts = new PayoutQueue({ pools: this.pools, db, workerId: this.workerId, slotMs: config.slotMs, outbox: this.outbox, faults: this.faults, clock: this.clock });
    this.subscriptions = opts.subscriptions ?? null;
    this.slots = new SlotClock(() => this.view, this.subscriptions, () => this.fallbackPollMs, this.clock);
    this.sent = new SentSignatures({
      subscriptions: this.subscriptions,
      socketLive: () => this.slots.live,
      fallbackPollMs: () => this.fallbackPollMs,
      inFlight: () => this.outbox.lastSent.size,
      wake: (loop) => this.wake(loop),
      clock: this.clock,
    });
    this.foreign = new ForeignFunds(() => this.view, this.log, this.clock);
    this.depositBalances = new WatchedBalances(this);
    this.fees = new FeePrices({
      market: config.feePricing === 'static' ? null : new FeeMarket(callThrough(chain), this.clock, { slotMs: config.slotMs }),
      accounts: () => [treasury.feePayer.address, ...treasury.allPools().map((p) => p.holding)],
      knownSlot: () => this.slots.known(),
      slotMs: config.slotMs,
      clock: this.clock,
      settings: config,
      log: this.log,
    });
    this.grid = new FeeGridObserver({ db, clock: this.clock, config, alert: (kind, fields, msg) => this.alert(kind, fields, msg), log: this.log });
    this.fees.onFastReading = (price) => this.detach(this.grid.reading(price));
  }

  wake(loop: string, at?: number): void {
    this.hooks.wake(loop, at);
  }

  detach(p: Promise<void>): void {
    this.hooks.detach(p);
  }

  running(): boolean {
    return this.hooks.running();
  }

  refundLate(sweep: ChainTxOf<'sweep'>): Promise<void> {
    return this.hooks.refundLate(sweep);
  }

  /** How often a fallback poll may run while the socket is down (a share of the request budget). */
  get fallbackPollMs(): number {
    return fallbackPollMs(this.slotMs, this.maxRps);
  }

  /** A poll's interval: `minMs`, or longer under a request budget (see budgetedPollMs). */
  pollEveryMs(minMs: number): number {
    return budgetedPollMs(minMs, this.maxRps);
  }

  /**
   * This context under another lease holder's name (the deposit watch's): a lease names its holder, so the
   * watch's confirmations take only orders nobody holds, never one this worker's order loop is stepping,
   * and give back only their own. Everything else is this context's (a prototype, not a copy).
   */
  underHolder(holder: string): this {
    return Object.create(this, { workerId: { value: holder } }) as this;
  }

  /** HUSH_RPC_MAX_RPS of the chain this worker reads (0: no budget). */
  get maxRps(): number {
    // (A test's view over fixed balances has no chain behind it.)
    return (this.view.chain as SolanaChain | undefined)?.budget?.maxRps ?? 0;
  }

  alert(kind: string, fields: Record<string, unknown>, msg: string): void {
    this.log(alertFields(kind, fields), msg);
  }

  chain(): SolanaChain {
    return this.view.chain;
  }

  asset(id: string): Asset {
    const a = this.config.assets.get(id);
    if (!a) throw new Error(`unknown asset ${id}`);
    return a;
  }

  /**
   * A transaction's shape for `purpose`, carrying `record` sealed (chain-record.ts), priced now (fees.price: synchronous, from the last market answer);
   * `previousPrice`: the expired attempt a re-sign replaces, escalated from. A payout or refund priced at its
   * cap may not land soon: an ALERT (at most one a minute per purpose).
   */
  shape(blockhash: { blockhash: string; lastValidBlockHeight: bigint }, purpose: FeePurpose, record: ChainRecord, previousPrice?: bigint): TxShape {
    this.fees.warm();
    const answer = this.fees.price(purpose, previousPrice);
    if (answer.capped && (purpose === 'payout' || purpose === 'refund' || purpose === 'lateRefund')) {
      const now = this.clock.now();
      if (now - (this.cappedAlertAt.get(purpose) ?? Number.NEGATIVE_INFINITY) >= 60_000) {
        this.cappedAlertAt.set(purpose, now);
        this.alert('fee_capped', { purpose, microLamportsPerCu: answer.microLamportsPerCu.toString(), capLamports: this.config.feeCapLamports[purpose].toString() }, `ALERT: the fee cap (HUSH_FEE_CAP_LAMPORTS) binds a ${purpose}: it is priced below the market and may not land until the market falls`);
      }
    }
    const budget = { computeUnitLimit: this.config.computeUnitLimit, computeUnitPriceMicroLamports: answer.microLamportsPerCu };
    const shape = txShape(this.treasury.feePayer, budget, blockhash, this.threads ? 'thread-pool' : 'event-loop');
    return { ...shape, memo: sealRecord(this.treasury.keys.recordKey, record, this.random) };
  }

  /** A slot's length as Hush assumes it (HUSH_SLOT_MS; the poll and fallback delays are counted in slots). */
  get slotMs(): number {
    return this.config.slotMs;
  }

  /** An outside reader's burst span in slots (burstSpanSlots): a release's landed payouts no further apart are one burst (issue 54). */
  get burstSpanSlots(): number {
    return burstSpanSlots(releasePolicy(this.config).spreadMs, this.config.slotMs);
  }
}
