import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import { loadConfig, type HushConfig } from '../src/config/config.ts';
import { LocalChain } from '../src/localnet/local-chain.ts';
import { buildRpcServer } from '../src/localnet/rpc-server.ts';
import { startHush, type RunningHush } from '../src/runtime/start-hush.ts';
import type { Db } from '../src/store/db.ts';
import { openDb } from '../src/store/open-db.ts';
import type { FaultPoint } from '../src/support/fault-points.ts';
import { seededRandom, type Random } from '../src/support/random.ts';
import { ChainWire, type FetchLike } from './chain-wire.ts';
import { EventLog } from './event-log.ts';
import type { FaultPlan } from './faults.ts';
import { LifeClock } from './life-clock.ts';
import { LifeDb } from './life-db.ts';
import { simEnv } from './sim-env.ts';
import type { Endpoint, Route } from './partner-api.ts';
import { settle, type Activity } from './settle.ts';
import { ScreeningDesk } from './screening-desk.ts';
import { VirtualClock } from './virtual-clock.ts';

/** The simulated chain's slot: mainnet's, so an hour is 9,000 slots. */
export const SIM_SLOT_MS = 400;
/** Where the simulated world starts: a fixed instant, so every run of a seed sees the same dates. */
export const SIM_EPOCH = Date.UTC(2026, 0, 1);
const CHAIN_URL = 'http://chain.sim';
const SCREENING_URL = 'http://screening.sim';

/** One stream of randomness per concern, so that removing a user from a schedule does not reshuffle the faults. */
export function stream(seed: number, name: string): Random {
  let h = 2166136261 ^ seed;
  for (const c of name) h = Math.imul(h ^ c.charCodeAt(0), 16777619);
  return seededRandom(h >>> 0);
}

/** A process that crashed: thrown at the fault point so that nothing after it runs. */
export class ProcessDied extends Error {}

/** What a process runs (HUSH_ROLE): the partner API, the settlement worker, or both in one. */
export type ProcessRole = HushConfig['role'];

interface Life {
  n: number;
  /** Which of the world's processes this is: a crash restarts the same slot with a new life. */
  slot: number;
  role: ProcessRole;
  clock: LifeClock;
  db: LifeDb;
  net: { fetch: FetchLike; kill(): void };
  hush: RunningHush | null;
}

export interface WorldOptions {
  seed: number;
  faults: FaultPlan;
  /** PostgreSQL (a fresh schema) instead of PGlite in memory. */
  databaseUrl?: string;
  /** A bug planted on purpose: every statement text passes through it. */
  plant?: (sql: string) => string;
  /** Settings over the simulation's own (a test's HUSH_* choices). */
  env?: Record<string, string>;
  /**
   * The processes on the one store and chain, each by its role (default one `all`): `['api', 'api', 'worker',
   * 'worker']` runs two partner APIs and two settlement workers whose leases and compare-and-sets race, each
   * crashing and restarting on its own while the others go on.
   */
  processes?: readonly ProcessRole[];
  echo?: (line: string) => void;
}

/**
 * The simulated world: one clock that owns time, the local chain (LiteSVM) whose slots it advances, the
 * store, a risk provider, and Hush itself — the real composition (`startHush`, role all) with the API reached
 * by `inject`, its timers on the clock, its network and store through ports the faults reach. Hush crashes at
 * the fault plan's points and restarts from the store, as a new life with nothing of the old one's memory.
 */
export class World implements Activity, Endpoint {
  readonly clock: VirtualClock;
  readonly log: EventLog;
  readonly chain: LocalChain;
  readonly rpc: FastifyInstance;
  readonly wire: ChainWire;
  readonly screening: ScreeningDesk;
  store!: Db;
  config!: HushConfig;
  /** The live process in each slot (null between a crash and its restart). */
  private readonly slots: (Life | null)[];
  private readonly roles: readonly ProcessRole[];
  /** Which API process a partner's request reaches, which process an operator's: a load balancer's choice, the seed's. */
  private readonly balancer: Random;
  lives = 0;
  crashes: string[] = [];
  requestsInFlight = 0;
  private readonly operatorWork = new Set<Promise<unknown>>();
  private dataDir: string;
  private schema: string | null = null;
  private readonly restartPending: boolean[];
  /** Statements sent by lives that ended. */
  private pastStatements = 0;

  private constructor(
    readonly opts: WorldOptions,
    clock: VirtualClock,
    chain: LocalChain,
  ) {
    this.clock = clock;
    this.chain = chain;
    this.log = new EventLog(() => clock.now(), SIM_EPOCH, opts.echo);
    this.rpc = buildRpcServer(chain);
    this.wire = new ChainWire(this.rpc, clock, opts.faults.rpc);
    this.screening = new ScreeningDesk(opts.faults, clock);
    this.dataDir = mkdtempSync(join(tmpdir(), 'hush-sim-'));
    this.roles = opts.processes ?? ['all'];
    this.slots = this.roles.map(() => null);
    this.restartPending = this.roles.map(() => false);
    this.balancer = stream(opts.seed, 'balancer');
  }

  /** The first process (the only one in a world of one): a test's Hush. */
  get life(): Life | null {
    return this.slots[0] ?? null;
  }

  /** Every process alive now, in slot order. */
  live(): Life[] {
    return this.slots.filter((l): l is Life => l !== null && l.hush !== null && l.clock.alive);
  }

  /** True when every process is up (a run's final word waits for it). */
  allUp(): boolean {
    return this.slots.every((l) => l !== null);
  }

  /** A process that runs settlement, alive: what the invariants read Hush's wallets from (any API's view is a worker's). */
  worker(): RunningHush | null {
    return this.live().find((l) => l.role !== 'api')?.hush ?? null;
  }

  static async create(opts: WorldOptions): Promise<World> {
    const ties = stream(opts.seed, 'ties');
    const clock = new VirtualClock(SIM_EPOCH, () => ties.float());
    const chain = await LocalChain.open({ dataDir: null, slotMs: SIM_SLOT_MS, clock, random: stream(opts.seed, 'chain'), congestion: opts.faults.congestion });
    const world = new World(opts, clock, chain);
    // The chain's slots follow the simulated clock, one timer a slot.
    clock.every(SIM_SLOT_MS, () => chain.advanceSlot());
    world.config = loadConfig(world.env());
    if (opts.databaseUrl) world.schema = `sim_${opts.seed}_${process.pid}`;
    world.store = await openDb({ databaseUrl: opts.databaseUrl, dataDir: null, schema: world.schema ?? undefined, clock });
    return world;
  }

  /** Hush's settings: the defaults an operator runs, on this world's chain, store and risk provider. */
  private env(): NodeJS.ProcessEnv {
    return simEnv({ secret: (name) => Buffer.from(stream(this.opts.seed, name).bytes(32)).toString('hex'), dataDir: this.dataDir, chainUrl: CHAIN_URL, screeningUrl: SCREENING_URL, slotMs: SIM_SLOT_MS }, this.opts.env);
  }

  get adminToken(): string {
    return this.config.adminToken!;
  }

  // ---- Activity: what the settle loop watches ----

  /**
   * Work that cannot be waiting for the clock. On PGlite nothing is: every statement runs in this process,
   * and one that has not finished waits behind a transaction that waits for a simulated timer. PostgreSQL
   * answers over a real socket: a statement in flight there is busy (or behind a lock: a run on PostgreSQL
   * checks its invariants but is not replayed byte for byte).
   */
  busy(): number {
    return this.store.kind === 'postgres' ? this.sumOfLives((l) => l.db.inFlight) : 0;
  }

  private sumOfLives(f: (l: Life) => number): number {
    let n = 0;
    for (const l of this.slots) if (l) n += f(l);
    return n;
  }

  /** The store's PostgreSQL schema (null on PGlite): what an operator's pg_dump and pg_restore name. */
  get storeSchema(): string | null {
    return this.schema;
  }

  awaited(): Promise<unknown> | null {
    return this.operatorWork.values().next().value ?? null;
  }

  /** An operator's tool running in a process of its own (pg_restore): the clock waits for it as for any real I/O. */
  operatorTool<T>(work: () => Promise<T>): Promise<T> {
    const p = work();
    const held = p.finally(() => this.operatorWork.delete(held));
    held.catch(() => {});
    this.operatorWork.add(held);
    return p;
  }

  progress(): number {
    return this.clock.timersSet + this.log.lines + this.sumOfLives((l) => l.db.sent) + [...this.wire.calls.values()].reduce((a, b) => a + b, 0) + this.lives;
  }

  /** Statements every life sent. */
  statements(): number {
    return this.pastStatements + this.sumOfLives((l) => l.db.sent);
  }

  describe(): string {
    return `busy ${this.busy()} (requests ${this.requestsInFlight}, rpc ${this.wire.inFlight}, store ${this.sumOfLives((l) => l.db.inFlight)}); timers set ${this.clock.timersSet}, log ${this.log.lines}, statements ${this.statements()}, rpc calls ${[...this.wire.calls.values()].reduce((a, b) => a + b, 0)}`;
  }

  // ---- Endpoint: what partners' requests reach ----

  /** A partner API process, alive, as a load balancer picks one (the seed's draw); null when none is up. */
  route(): Route | null {
    const life = this.pick(this.live().filter((l) => l.hush!.app !== null));
    return life ? { app: life.hush!.app!, alive: () => life.clock.alive } : null;
  }

  /** The ops listener (the operator's console and admin API) of a live process, any role, as the balancer picks. */
  opsApp(): FastifyInstance | null {
    return this.pick(this.live())?.hush!.opsApp ?? null;
  }

  /** The balancer's pick among `lives`: no draw when there is one, so a world of one process replays as it did. */
  private pick(lives: Life[]): Life | null {
    if (lives.length <= 1) return lives[0] ?? null;
    return lives[this.balancer.int(lives.length)]!;
  }

  // ---- lives ----

  /** Starts every process that is down: the workers first (they publish the wallets an API quotes from), then the APIs. */
  async startAll(): Promise<void> {
    const order = this.roles.map((role, slot) => ({ role, slot })).sort((a, b) => Number(a.role === 'api') - Number(b.role === 'api'));
    for (const { slot } of order) if (!this.slots[slot]) await this.startLife(slot);
  }

  /** Starts Hush in `slot`: a new process on the same store and chain, with nothing of the previous one's memory. */
  async startLife(slot = 0): Promise<void> {
    const n = ++this.lives;
    const role = this.roles[slot]!;
    const clock = new LifeClock(this.clock);
    const db = new LifeDb(this.store, { faults: this.opts.faults.store ?? undefined, rewrite: this.opts.plant });
    const chainNet = this.wire.life();
    const fetch: FetchLike = (url, init) => (url.startsWith(SCREENING_URL) ? this.screening.fetch(url, init) : chainNet.fetch(url, init));
    const life: Life = { n, slot, role, clock, db, net: chainNet, hush: null };
    this.slots[slot] = life;
    const named = this.roles.length > 1 ? ` (${role})` : '';
    this.log.add(`life ${n}: start${named}`);
    try {
      life.hush = await startHush(role === this.config.role ? this.config : { ...this.config, role }, {
        clock,
        random: stream(this.opts.seed, `life ${n}`),
        store: db,
        fetch,
        listen: false,
        threads: false,
        faults: { reach: (point) => this.faultPoint(life, point) },
        log: (line) => (line.startsWith('ALERT') ? this.log.add(`life ${n}: ${line.split('\n')[0]}`) : undefined),
        records: (_level, fields, msg) => this.record(life, fields, msg),
      });
      if (!clock.alive) await life.hush.close().catch(() => {});
      else this.log.add(`life ${n}: ready`);
    } catch (e) {
      if (e instanceof ProcessDied || !clock.alive) return;
      this.log.add(`life ${n}: start failed: ${(e as Error).message}`);
      this.crash(life, 'start failed');
    }
  }

  /** Who else reads Hush's log records as they are written (a test's view of its log; the event log keeps only kinds). */
  readonly recordReaders: ((fields: Record<string, unknown>, msg: string) => void)[] = [];

  private record(life: Life, record: Record<string, unknown>, msg: string): void {
    if (!life.clock.alive) return;
    for (const read of this.recordReaders) read(record, msg);
    if (msg === 'order transition') this.log.add(`${record.trackingId} ${record.from}→${record.to}`);
    else if (typeof record.alert === 'string') this.log.add(`life ${life.n}: ALERT ${record.alert}`);
  }

  private faultPoint(life: Life, point: FaultPoint): void {
    if (!life.clock.alive) throw new ProcessDied(`life ${life.n} is dead`);
    if (process.env.SIM_DEBUG) process.stderr.write(`fault point ${point}\n`);
    if (!this.opts.faults.crashAt(point)) return;
    this.crash(life, `at ${point}`);
    throw new ProcessDied(`life ${life.n} crashed at ${point}`);
  }

  /**
   * SIGKILLs a live process that does `role`'s work (a kill at no point in particular: whatever it was doing is cut
   * short), drawn by `random`. Says whether another process doing that work was up to go on meanwhile; null when
   * none of that role was up.
   */
  kill(role: 'api' | 'worker', random: Random): { beside: boolean } | null {
    const doing = this.live().filter((l) => l.role === role || l.role === 'all');
    if (doing.length === 0) return null;
    const victim = doing[random.int(doing.length)]!;
    this.crash(victim, `killed (${victim.role})`);
    return { beside: doing.length > 1 };
  }

  /** The process dies (SIGKILL): its timers, statements and requests end here; it restarts a little later, the others going on. */
  crash(life: Life, why: string): void {
    if (!life.clock.alive) return;
    life.clock.kill();
    life.db.kill();
    life.net.kill();
    this.pastStatements += life.db.sent;
    if (this.slots[life.slot] === life) this.slots[life.slot] = null;
    this.crashes.push(why);
    this.log.add(`life ${life.n}: crashed ${why}`);
    if (this.restartPending[life.slot]) return;
    this.restartPending[life.slot] = true;
    // A supervisor restarts it after a few seconds.
    this.clock.after(2_000 + (life.n % 5) * 1_000, () => {
      this.restartPending[life.slot] = false;
      void this.startLife(life.slot);
    });
  }

  /**
   * Every process is stopped (as a crash: nothing of their memory survives), `fn` runs with nothing running, and
   * they start again: an operator's restore, or a lost store replaced.
   */
  async downWhile(fn: () => Promise<void>): Promise<void> {
    // No supervisor restart while the operator works.
    this.restartPending.fill(true);
    for (const life of this.slots) if (life) this.crash(life, 'stopped by the operator');
    try {
      // The operator's work on the store is real I/O the clock cannot see (a PostgreSQL socket is a standing
      // handle): awaited as an operator's tool, or a loaded machine lets the clock run out from under it.
      await this.operatorTool(fn);
    } finally {
      this.restartPending.fill(false);
    }
    await this.startAll();
  }

  /** Stopped as by downWhile and started again with `env` over its settings: an operator's new configuration (a rotation's seeds). */
  async restartWith(env: Record<string, string>): Promise<void> {
    await this.downWhile(async () => {
      this.opts.env = { ...this.opts.env, ...env };
      this.config = loadConfig(this.env());
    });
  }

  /** Stops everything: the live processes cleanly, the store, the chain, the data directory. */
  async close(): Promise<void> {
    for (const life of this.slots) life?.db.printTally();
    for (const life of this.slots) {
      if (life?.hush && life.clock.alive) {
        // Hush's close waits for its loops' passes in flight, which may wait on the simulated clock (an RPC answer,
        // a pause; a run stopped by a broken invariant leaves them mid-flight): the clock runs, a minute at most,
        // and a process that has not closed by then is killed as it stands.
        let closed = false;
        void life.hush.close().catch(() => {}).finally(() => (closed = true));
        const limit = this.clock.now() + 60_000;
        await settle(this).catch(() => {});
        while (!closed && this.clock.runNext(limit)) await settle(this).catch(() => {});
      }
      if (life) {
        life.clock.kill();
        life.db.kill();
      }
    }
    await this.store.close().catch(() => {});
    this.chain.close();
    await this.rpc.close();
    rmSync(this.dataDir, { recursive: true, force: true });
  }
}
