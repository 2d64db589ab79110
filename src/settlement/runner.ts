import type { HushConfig } from '../config/config.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { Db } from '../store/db.ts';
import type { Treasury } from '../treasury/treasury.ts';
import { DEFAULT_REBALANCE_POLICY } from '../domain/rebalance-plan.ts';
import { SettlementContext, type WorkerOptions } from './context.ts';
import { DepositWatch } from './fast-path/deposit-watch.ts';
import { orderTick, payoutTick } from './orders.ts';
import { LateDeposits } from './steps/late-deposits.ts';
import { refundLate } from './steps/late-refunds.ts';
import { payPartners } from './steps/partner-payouts.ts';
import { jitteredIntervalMs } from '../domain/settlement/partner-lots.ts';
import { rebalance, type RebalanceSettings } from './steps/rebalance.ts';
import { settleFates } from './steps/settle-fates.ts';
import { bookUncosted } from './steps/book-costs.ts';
import { IDLE_READ_MS } from './fee-prices.ts';
import { Sweeps } from './steps/sweep.ts';
import { Watchdog } from './steps/watchdog.ts';
import { TreasuryHealth } from './chain-truth/treasury-health.ts';
import { ChainCheck } from './chain-truth/chain-check.ts';
import { DrainRetired } from './steps/drain-retired.ts';
import type { Clock, Timer } from '../support/clock.ts';

export type { WorkerOptions } from './context.ts';

/**
 * Settlement: detects deposits, pays out from pool wallets after the privacy delay, refunds what cannot
 * be delivered, expires orders without a deposit, sweeps deposits into pools in batches, and settles
 * the fate of every transaction it signed. Exactly once: a payout is recorded (signed bytes, signature,
 * last valid block height) before it is sent, and a new one is built only after the recorded one can
 * provably never land. This class only runs the loops (wake-ups, stop); the steps are in ./steps, the
 * fast path in ./fast-path, everything they share in the context.
 */
export class SettlementWorker {
  readonly context: SettlementContext;
  private readonly loopsOf: Loops;
  private readonly watch: DepositWatch;
  private readonly sweeps: Sweeps;
  private readonly late: LateDeposits;
  private readonly watchdog: Watchdog;
  private readonly health: TreasuryHealth;
  /** The store compared with the chain: what it forgot and the chain shows is adopted; what nobody can explain pauses payouts. */
  readonly truth: ChainCheck;
  private readonly drainer: DrainRetired;
  private readonly rebalanceSettings: RebalanceSettings;
  private readonly intervals: { tickMs: number; sweepMs: number; rebalanceMs: number };
  private startedAt = 0;
  private latePassesDone = 0;
  /** When the loop next pays partners (jittered; 0: at its first pass). */
  private partnerDueAt = 0;
  /** When the uncosted pass runs next (0: at the first pass, which finds what a crash left). */
  private uncostedAt = 0;

  constructor(config: HushConfig, db: Db, chain: SolanaChain, treasury: Treasury, opts: WorkerOptions) {
    const loops = (this.loopsOf = new Loops((o, m) => ctx.log(o, m), opts.clock));
    const ctx: SettlementContext = (this.context = new SettlementContext(config, db, chain, treasury, opts, {
      wake: (loop, at) => loops.wake(loop, at),
      detach: (p) => loops.detach(p),
      running: () => loops.running,
      refundLate: (sweep) => refundLate(ctx, sweep),
      adopted: (orderId, kind, part) => {
        const f = this.truth.adopted(orderId, kind, part);
        return f && ChainCheck.chainTx(f);
      },
    }));
    this.rebalanceSettings = {
      rebalancer: opts.rebalancer,
      prices: opts.prices,
      inventoryTargets: opts.inventoryTargets,
      policy: { ...DEFAULT_REBALANCE_POLICY, lotUsd: config.rebalanceLotUsd, slippageBps: config.rebalanceSlippageBps },
    };
    this.intervals = {
      tickMs: opts.tickMs ?? Math.max(20, Math.floor(config.slotMs / 2)),
      sweepMs: opts.sweepIntervalMs ?? config.sweepIntervalS * 1000,
      rebalanceMs: opts.rebalanceIntervalMs ?? config.rebalanceIntervalS * 1000,
    };
    this.watch = new DepositWatch(ctx.underHolder(`${ctx.workerId}:watch`));
    this.sweeps = new Sweeps(ctx, () => this.watch.lastBurstAt, this.intervals.sweepMs);
    this.late = new LateDeposits(ctx);
    this.watchdog = new Watchdog(ctx, opts.stuckAfterMs ?? 60 * 60 * 1000, () => this.startedAt);
    this.truth = new ChainCheck(ctx);
    this.drainer = new DrainRetired(ctx);
    this.health = new TreasuryHealth(ctx, () => this.truth.openingSettled);
  }

  start(): void {
    if (this.loopsOf.running) return;
    this.startedAt = this.context.clock.now();
    // A new slot over the socket wakes the watch at once (it polls nothing meanwhile).
    this.context.slots.start(() => this.loopsOf.wake('deposit-watch'));
    const { tickMs, sweepMs, rebalanceMs } = this.intervals;
    // The two store-polling loops slow down while they find nothing (up to IDLE_SLOTS slots between passes):
    // the work that must not wait (a confirmed deposit, a landed payout) wakes them, so an idle worker stops
    // reading the store twice a slot. Cost: work nothing wakes (a payout's due time, a retry's back-off) may
    // start up to that much later.
    const idleMaxMs = Math.max(tickMs, IDLE_SLOTS * this.context.slotMs);
    // docs/decisions.md "The chain is the record": while the store cannot explain a transaction of Hush's on
    // chain, nothing that could pay (or confirm, sweep, refund, fail an order) runs; settling what was sent does.
    const gated = (body: () => Promise<unknown>) => () => (this.truth.paused ? Promise.resolve(0) : body());
    this.loopsOf.start([
      ['orders', tickMs, gated(() => this.orderTick()), idleMaxMs],
      // Payouts falling due (woken at their due times: wake-at-due.ts), never behind other orders' deposit reads.
      ['payouts', tickMs, gated(() => payoutTick(this.context)), idleMaxMs],
      ['transactions', tickMs, () => this.txTick(), idleMaxMs],
      // Woken by every new slot (the slot clock, over PubSub or polled): its own pass once a slot is only the net
      // under a wake-up that never came. It ran every 10 ms: a hundred empty passes a second on an idle worker.
      ['deposit-watch', this.context.slotMs, gated(() => this.depositWatchTick())],
      ['sweeps', sweepMs, gated(() => this.sweepTick())],
      ['partner-payouts', Math.max(250, (this.context.config.partnerPayoutIntervalS * 1000) / 4), gated(() => this.scheduledPartnerTick())],
      ['late-deposits', Math.max(sweepMs, 5000), gated(() => this.lateDepositTick())],
      ['maintenance', 30_000, gated(() => this.maintenanceTick())],
      ['chain-check', CHECK_EVERY_MS, () => this.checkTick()],
      ['treasury-health', CHECK_EVERY_MS, () => this.health.tick()],
      // The fee market read while nothing is signed (one call per 30 s idle; none while signing, which reads it
      // once a slot): the quotes' networkFee steps up in a busy hour whether or not orders come.
      // Checked twice per period so that readings stay under GRID_READING_GAP_MS apart when signing stops.
      ['fee-market', IDLE_READ_MS / 2, () => this.context.fees.readIdle()],
      ['rebalance', rebalanceMs, gated(() => this.rebalanceTick())],
      // Only while a rotation's retired wallets are held (docs/operations.md "Rotate the treasury seed").
      ...(this.context.treasury.retired.length > 0 ? [['drain-retired', DRAIN_EVERY_MS, gated(() => this.drainer.tick())] as [string, number, () => Promise<unknown>]] : []),
    ]);
  }

  /**
   * Starts the loops once the store has been compared with the chain (ChainCheck.pass): nothing is paid after a
   * start before that. A chain that does not answer is asked again, a second apart, for up to a minute.
   */
  async startChecked(): Promise<void> {
    for (let attempt = 1; ; attempt++) {
      try {
        await this.truth.pass();
        break;
      } catch (e) {
        if (attempt >= START_CHECK_ATTEMPTS) throw e;
        this.context.log({ err: e, attempt }, 'the start-up chain check failed; trying again');
        await this.context.clock.sleep(1000);
      }
    }
    this.start();
  }

  /** One continuous check (ChainCheck.pass); a failed one is logged and tried at the next. */
  async checkTick(): Promise<number> {
    const out = await this.truth.pass();
    return out.adopted + out.unattributed;
  }

  /** Finishes the iteration in progress in each loop (and work they started), then returns. */
  stop(): Promise<void> {
    this.context.slots.stop();
    return this.loopsOf.stop().finally(() => (this.watch.stop(), this.context.sent.clear()));
  }

  /** Claims and steps due orders (see orders.ts). */
  orderTick(): Promise<number> {
    return orderTick(this.context);
  }

  /**
   * Settles the fate of every pending transaction (see steps/settle-fates.ts); and, at start and every
   * UNCOSTED_EVERY_MS after, books the costs of landed transactions a crash or a lagging node left uncosted
   * (steps/book-costs.ts: one statement when there are none), sooner while some are left.
   */
  async txTick(): Promise<number> {
    const n = await settleFates(this.context);
    const now = this.context.clock.now();
    if (now >= this.uncostedAt) {
      const left = await bookUncosted(this.context).catch((e: unknown) => (this.context.log({ err: e }, 'booking uncosted transactions failed'), 1));
      this.uncostedAt = now + (left > 0 ? UNCOSTED_RETRY_MS : UNCOSTED_EVERY_MS);
    }
    return n;
  }

  depositWatchTick(): Promise<void> {
    return this.watch.tick();
  }

  sweepTick(): Promise<number> {
    return this.sweeps.tick();
  }

  partnerTick(): Promise<number> {
    return payPartners(this.context);
  }

  /** The loop's pass: only once the jittered wait since the last one is over (docs/spec.md §9). */
  private scheduledPartnerTick(): Promise<number> {
    if (this.context.clock.now() < this.partnerDueAt) return Promise.resolve(0);
    this.partnerDueAt = this.context.clock.now() + jitteredIntervalMs(this.context.config.partnerPayoutIntervalS * 1000, () => this.context.random.float());
    return this.partnerTick();
  }

  async lateDepositTick(): Promise<number> {
    const found = await this.late.pass();
    this.latePassesDone++;
    return found;
  }

  /** Late-deposit passes completed by this worker (tests wait for passes, not for time). */
  get latePasses(): number {
    return this.latePassesDone;
  }

  maintenanceTick(): Promise<void> {
    return this.watchdog.tick();
  }

  /** Pool inventory per asset at `confirmed` (SOL pools less their rent reserve). */
  inventory(): Promise<Map<string, bigint>> {
    return this.context.pools.inventory();
  }

  rebalanceTick(): Promise<number> {
    return rebalance(this.context, this.rebalanceSettings);
  }
}

/** How often a running worker compares the store with the chain: one getSignaturesForAddress when nothing changed. */
export const CHECK_EVERY_MS = 30_000;
const START_CHECK_ATTEMPTS = 60;
/** A retired wallet's drain pass: one balance read of the retired wallets while any is undrained. */
const DRAIN_EVERY_MS = 15_000;
/** How many slots an idle store-polling loop may sleep at most (its interval doubles per empty pass). */
const IDLE_SLOTS = 2;
/** How often landed transactions left uncosted are looked for; sooner while some are left (a node that lags). */
const UNCOSTED_EVERY_MS = 30_000;
const UNCOSTED_RETRY_MS = 2_000;
/** Booked wake-ups kept per loop at most. */
const MAX_BOOKED = 4096;
/** Why a loop's sleep was cut short or is over (never thrown: a sleep resolves when its signal aborts). */
const SLEEP_OVER = 'sleep over';

/**
 * Named loops that sleep between iterations, can be woken early, and stop together. A loop given an idle
 * maximum doubles its sleep after each pass that did nothing (its body answered 0), up to that maximum; any
 * pass that did something, or a wake, starts it again from its interval.
 */
class Loops {
  running = false;
  private loops: Promise<void>[] = [];
  private readonly detached = new Set<Promise<void>>();
  private readonly sleepers = new Set<() => void>();
  /** Cuts a loop's sleep short (by loop name), when work for it is known to be due now. */
  private readonly wakers = new Map<string, (byWake?: boolean) => void>();
  private readonly wokenWhileBusy = new Set<string>();
  /**
   * Wake-ups booked for later, per loop, soonest first: a payout's due time (two slots after its deposit's
   * confirmation at the floor) wakes the order loop when it comes, not at the loop's next idle poll.
   */
  private readonly booked = new Map<string, { times: number[]; timer: Timer | null }>();

  constructor(
    private readonly log: (obj: Record<string, unknown>, msg: string) => void,
    private readonly clock: Clock,
  ) {}

  start(loops: [name: string, everyMs: number, body: () => Promise<unknown>, idleMaxMs?: number][]): void {
    this.running = true;
    this.loops = loops.map(([name, everyMs, body, idleMaxMs]) => this.loop(name, everyMs, body, idleMaxMs ?? everyMs));
  }

  async stop(): Promise<void> {
    this.running = false;
    for (const b of this.booked.values()) b.timer?.cancel();
    this.booked.clear();
    for (const wake of this.sleepers) wake();
    await Promise.all(this.loops);
    await Promise.all(this.detached);
  }

  wake(loop: string, at?: number): void {
    if (at !== undefined && at > this.clock.now()) return this.book(loop, at);
    const waker = this.wakers.get(loop);
    // Woken while busy: the next sleep is skipped, or the news that arrived meanwhile waits a full interval.
    if (waker) waker(true);
    else this.wokenWhileBusy.add(loop);
  }

  /** Books a wake-up of `loop` at `at`; one timer per loop, set for the soonest booked time. */
  private book(loop: string, at: number): void {
    if (!this.running) return;
    const b = this.booked.get(loop) ?? { times: [], timer: null };
    this.booked.set(loop, b);
    // Bounded: past a few thousand, the loop's own polling (at most IDLE_SLOTS late) covers the rest.
    if (b.times.length >= MAX_BOOKED) return;
    const i = b.times.findIndex((t) => t >= at);
    if (b.times[i] === at) return;
    b.times.splice(i < 0 ? b.times.length : i, 0, at);
    if (i === 0 || b.times.length === 1) this.arm(loop, b);
  }

  private arm(loop: string, b: { times: number[]; timer: Timer | null }): void {
    b.timer?.cancel();
    b.timer = null;
    const next = b.times[0];
    if (next === undefined) return;
    b.timer = this.clock.after(Math.max(0, Math.ceil(next - this.clock.now())), () => {
      const now = this.clock.now();
      while (b.times.length > 0 && b.times[0]! <= now) b.times.shift();
      b.timer = null;
      if (this.running) this.wake(loop);
      this.arm(loop, b);
    });
  }

  /** Runs work that never throws beside the loop that started it; stop() waits for it. */
  detach(p: Promise<void>): void {
    this.detached.add(p);
    void p.finally(() => this.detached.delete(p));
  }

  private async loop(name: string, everyMs: number, body: () => Promise<unknown>, idleMaxMs: number): Promise<void> {
    let sleepMs = everyMs;
    while (this.running) {
      let idle = false;
      try {
        idle = (await body()) === 0;
      } catch (e) {
        this.log({ err: e, loop: name }, 'settlement loop error');
      }
      if (!this.running) break;
      sleepMs = idle ? Math.min(idleMaxMs, sleepMs * 2) : everyMs;
      if (this.wokenWhileBusy.delete(name)) {
        sleepMs = everyMs;
        continue;
      }
      // The sleep ends at its time or at a wake; a wake after that (the loop not yet running again) counts as
      // woken while busy, since this waker is gone by then.
      let woken = false;
      const sleeping = new AbortController();
      const done = (byWake = false) => {
        if (sleeping.signal.aborted) return;
        woken = byWake;
        if (this.wakers.get(name) === done) this.wakers.delete(name);
        // A reason of our own: abort() without one builds a DOMException with its stack at every pass of every
        // loop, though nothing reads it (the sleep only ends), 2 % of a simulated test's CPU.
        sleeping.abort(SLEEP_OVER);
      };
      this.sleepers.add(done);
      this.wakers.set(name, done);
      await this.clock.sleep(sleepMs, sleeping.signal);
      done();
      this.sleepers.delete(done);
      if (woken) sleepMs = everyMs;
    }
  }
}
