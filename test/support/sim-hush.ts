/**
 * A whole Hush on the simulator's clock, for tests whose subject is settlement, screening or privacy logic
 * rather than a process boundary: the real composition (`startHush`, role all, privacy on, the real menu and
 * class release) with its API reached by `inject`, its local chain's slots and every timer on a clock that moves
 * only when the test's awaits need it to (docs/architecture.md, "Simulation"). Nothing sleeps: a test waits for
 * a state (`until`, `waitForOrder`) and simulated time runs to it, in milliseconds of CPU.
 *
 * A client's request runs the clock while its answer is pending (a hint that waits for a worker, a quote behind
 * the RPC budget): `HushClient` with an inject transport, so every answer is still held to docs/spec.md §2/§6
 * and to the OpenAPI document, as over a socket.
 */
import { randomBytes } from 'node:crypto';
import { createSolanaRpcFromTransport, type Address, type Rpc, type SolanaRpcApi } from '@solana/kit';
import { fetchTransport } from '../../src/chain/fetch-transport.ts';
import type { RunningHush } from '../../src/runtime/start-hush.ts';
import { generateApiKey } from '../../src/services/api-keys.ts';
import { addFeeRecipient, insertAccount, insertApiKey, updateAccount } from '../../src/store/accounts-store.ts';
import { seededRandom } from '../../src/support/random.ts';
import { ChainUsers, MINTS } from '../../sim/chain-users.ts';
import { faultPlan, type FaultSet } from '../../sim/faults.ts';
import type { CongestionOptions } from '../../src/localnet/congestion-profile.ts';
import { runUntil, settle } from '../../sim/settle.ts';
import { SimWallet } from '../../sim/wallets.ts';
import { SIM_EPOCH, stream, World } from '../../sim/world.ts';
import { expectOk, registerSecret, secretOf } from './api-responses.ts';
import { HushClient, type HushTransport } from './hush-client.ts';
import './store-spares.ts';

export { SimWallet } from '../../sim/wallets.ts';
export const SOL = 1_000_000_000n;
export const USDC = 1_000_000n;

export interface SimAccount {
  id: string;
  apiKey: string;
  feeRecipients: Address[];
  client: HushClient;
}

export interface SimHushOptions {
  seed?: number;
  /** HUSH_* settings over the simulation's. */
  env?: Record<string, string>;
  /** Seeded faults on Hush's RPC, store and process (default none). */
  faults?: FaultSet;
  /** A chain that congests like mainnet (src/localnet/congestion-profile.ts), whatever `faults` says of it. */
  congestion?: CongestionOptions;
  /** PostgreSQL (a fresh schema) instead of PGlite in memory. */
  databaseUrl?: string;
}

export class SimHush {
  readonly chain: ChainUsers;
  /** kit's RPC client on the chain, without faults (what a wallet's own provider answers). */
  readonly rpc: Rpc<SolanaRpcApi>;
  private readonly random;
  private accounts = 0;

  private constructor(readonly world: World) {
    this.chain = new ChainUsers(world.wire);
    this.random = stream(world.opts.seed, 'test');
    const fetchFn = (_url: string, init?: RequestInit) => world.wire.direct(String(init?.body ?? '')).then((j) => Response.json(j));
    this.rpc = createSolanaRpcFromTransport(fetchTransport('http://chain.sim', fetchFn, world.clock));
  }

  static async start(opts: SimHushOptions = {}): Promise<SimHush> {
    const seed = opts.seed ?? 1;
    const plan = faultPlan(opts.faults ?? 'none', seed, stream(seed, 'faults'), { startMs: SIM_EPOCH, durationMs: 3_600_000 });
    const faults = opts.congestion ? { ...plan, congestion: opts.congestion } : plan;
    const world = await World.create({ seed, faults, env: opts.env, databaseUrl: opts.databaseUrl });
    const h = new SimHush(world);
    await h.drive(world.startLife());
    if (!world.life?.hush) throw new Error('the simulated Hush did not start');
    // A test may run it without an admin token (the admin API off).
    if (world.config.adminToken) registerSecret(world.adminToken);
    return h;
  }

  get hush(): RunningHush {
    const h = this.world.life?.hush;
    if (!h) throw new Error('no Hush is running (crashed and not restarted yet)');
    return h;
  }

  get db() {
    return this.world.store;
  }

  /** An operator's tool run in a process of its own (pg_dump, pg_restore): the simulated clock waits for it. */
  operatorTool<T>(work: () => Promise<T>): Promise<T> {
    return this.world.operatorTool(work);
  }

  /** The store's PostgreSQL schema, null on PGlite. */
  get schema(): string | null {
    return this.world.storeSchema;
  }

  get config() {
    return this.world.config;
  }

  get clock() {
    return this.world.clock;
  }

  now(): number {
    return this.world.clock.now();
  }

  /** Awaits `p` while the simulated clock runs: what it waits for happens in simulated time. */
  async drive<T>(p: Promise<T>, maxMs = 3_600_000): Promise<T> {
    let done = false;
    const settled = p.finally(() => (done = true));
    settled.catch(() => {});
    await settle(this.world);
    const limit = this.now() + maxMs;
    while (!done) {
      if (!this.world.clock.runNext(limit)) break;
      await settle(this.world);
    }
    if (!done) throw new Error(`still waiting after ${maxMs} simulated ms`);
    return settled;
  }

  /** Runs the clock `ms` on. */
  async advance(ms: number): Promise<void> {
    await runUntil(this.world.clock, this.world, this.now() + ms);
  }

  /**
   * Runs the clock until `probe` answers something (checked every `everyMs` of simulated time, as a poller
   * would), at most `maxMs`; fails with `what` and the probe's last answer.
   */
  async until<T>(what: string, probe: () => Promise<T | null | false | undefined>, maxMs = 600_000, everyMs = 200): Promise<T> {
    const limit = this.now() + maxMs;
    for (;;) {
      const v = await this.drive(probe());
      if (v !== null && v !== false && v !== undefined) return v;
      if (this.now() >= limit) throw new Error(`${what}: not within ${maxMs} simulated ms`);
      await this.advance(everyMs);
    }
  }

  /** The partner port, by inject: requests run the clock until answered. */
  transport(app: () => import('fastify').FastifyInstance): HushTransport {
    return async ({ method, path, headers, body }) => {
      const res = await this.drive(app().inject({ method: method as 'GET', url: path, headers, ...(body !== undefined ? { payload: typeof body === 'string' ? body : Buffer.from(body) } : {}) }));
      const h = new Headers();
      for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) h.set(k, Array.isArray(v) ? v.join(', ') : String(v));
      return { status: res.statusCode, headers: h, text: res.body };
    };
  }

  /**
   * A fetch for a partner's own HTTP client (the SDK's `fetch` option): its requests reach the partner port by
   * inject and run the clock until answered. `baseUrl` is then any http URL (its host is ignored).
   */
  readonly fetch: typeof globalThis.fetch = async (input, init) => {
    const req = new Request(input, init);
    const url = new URL(req.url);
    const headers: Record<string, string> = {};
    req.headers.forEach((v, k) => (headers[k] = v));
    const body = req.body ? Buffer.from(await req.arrayBuffer()) : undefined;
    const app = url.pathname.startsWith('/admin/') || url.pathname === '/readyz' || url.pathname === '/healthz' || url.pathname === '/metrics' ? this.hush.opsApp : this.hush.app!;
    const res = await this.drive(app.inject({ method: req.method as 'GET', url: url.pathname + url.search, headers, ...(body ? { payload: body } : {}) }));
    const out = new Headers();
    for (const [k, v] of Object.entries(res.headers)) if (v !== undefined) out.set(k, Array.isArray(v) ? v.join(', ') : String(v));
    return new Response(res.statusCode === 204 || res.statusCode === 304 ? null : new Uint8Array(res.rawPayload), { status: res.statusCode, headers: out });
  };

  /** A client of the partner API with `key` (null: none). */
  client(key: string | null): HushClient {
    return new HushClient(`inject://sim-${this.world.opts.seed}`, key, this.transport(() => this.hush.app!));
  }

  /** The ops listener with the admin token (/admin/v1, /readyz, /metrics). */
  get ops(): HushClient {
    return new HushClient(`inject://sim-${this.world.opts.seed}-ops`, this.world.adminToken, this.transport(() => this.hush.opsApp));
  }

  /** A partner account straight into the store, as test/support/hush-server.ts's createAccount makes one. */
  async createAccount(a: { feeCapBps?: number; feeRecipients?: number; rateLimits?: Record<string, number> | null } = {}): Promise<SimAccount> {
    const id = `acc_t${++this.accounts}_${randomBytes(4).toString('hex')}`;
    await this.drive(insertAccount(this.db, { id, name: `sim test ${id}`, feeCapBps: a.feeCapBps ?? 100 }));
    const rateLimits = a.rateLimits === undefined ? { quote: 100_000, order: 100_000, status: 100_000, tokens: 100_000, account: 100_000 } : a.rateLimits;
    await this.drive(updateAccount(this.db, id, { rateLimits: rateLimits as never }));
    const feeRecipients: Address[] = [];
    for (let i = 0; i < (a.feeRecipients ?? 1); i++) {
      const w = SimWallet.draw(this.random).address as Address;
      await this.drive(addFeeRecipient(this.db, id, w));
      feeRecipients.push(w);
    }
    const k = generateApiKey(seededRandom(this.random.int(2 ** 31)));
    await this.drive(insertApiKey(this.db, { keyId: k.keyId, accountId: id, secretHash: k.secretHash, expiresAt: null }));
    registerSecret(secretOf(k.apiKey));
    return { id, apiKey: k.apiKey, feeRecipients, client: this.client(k.apiKey) };
  }

  /** A new wallet holding `sol` lamports (default 5 SOL) and `usdc` base units, confirmed. */
  async wallet(opts: { sol?: bigint; usdc?: bigint } = {}): Promise<SimWallet> {
    const w = SimWallet.draw(this.random);
    const sig = await this.drive(this.chain.airdrop(w.address, opts.sol ?? 5n * SOL));
    await this.drive(this.chain.confirmed(sig, this.clock));
    if (opts.usdc) await this.drive(this.chain.confirmed(await this.drive(this.chain.tokenAirdrop(w.address, MINTS.usdc, opts.usdc)), this.clock));
    return w;
  }

  /** An address nobody holds the key of (a recipient). */
  address(): Address {
    return SimWallet.draw(this.random).address as Address;
  }

  /** Signs an order's transaction with the sender's key and sends it; the signature, once confirmed. */
  async deposit(order: { transaction: string }, sender: SimWallet): Promise<string> {
    const { wire } = sender.signWire(order.transaction);
    const sig = await this.drive(this.chain.send(wire));
    await this.drive(this.chain.confirmed(sig, this.clock));
    return sig;
  }

  /** GET /status until the order reaches one of `statuses` (fails on another final status). */
  async waitForOrder(client: HushClient, trackingId: string, statuses: string[], maxMs = 1_200_000): Promise<any> {
    return this.until(`${trackingId} reaches ${statuses.join('|')}`, async () => {
      const rec = expectOk(await client.status(trackingId)).order;
      if (statuses.includes(rec.status)) return rec;
      if (rec.final) throw new Error(`order ${trackingId} ended ${rec.status} (${rec.failureReason ?? 'no reason'}), expected ${statuses.join('|')}`);
      return null;
    }, maxMs, 500);
  }

  /** The process dies (SIGKILL) and is started again from the store. */
  async crashAndRestart(): Promise<void> {
    const life = this.world.life;
    if (life) this.world.crash(life, 'by the test');
    await this.until('Hush restarted', async () => this.world.life?.hush ?? null, 60_000);
  }

  /** Hush is stopped, `fn` works on its store (a restore, a loss), and Hush starts again on it. */
  async downWhile(fn: (db: SimHush['db']) => Promise<void>): Promise<void> {
    await this.drive(this.world.downWhile(() => fn(this.db)));
    await this.until('Hush restarted', async () => this.world.life?.hush ?? null, 120_000);
  }

  /** Hush is stopped and started again on its store with `env` over its settings (a new seed, a retired one). */
  async restartWith(env: Record<string, string>): Promise<void> {
    await this.drive(this.world.restartWith(env));
    await this.until('Hush restarted', async () => this.world.life?.hush ?? null, 120_000);
  }

  async close(): Promise<void> {
    // Hush's close waits for its loops' passes in flight, which may wait on the simulated clock (an RPC answer,
    // a pause): the clock runs until it has closed, the chain and the store still there for those passes.
    const life = this.world.life;
    if (life?.hush && life.clock.alive) {
      await this.drive(life.hush.close()).catch(() => {});
      life.hush = null;
    }
    await this.world.close();
  }
}

export function startSimHush(opts: SimHushOptions = {}): Promise<SimHush> {
  return SimHush.start(opts);
}

/**
 * Runs `fn` with the global fetch reaching the simulated Hush (`SimHush.fetch`: its ops listener for /admin and
 * /healthz, by inject, the clock running until each answer): for code that takes no fetch of its own, such as
 * the admin CLI's HTTP mode.
 */
export async function withSimFetch<T>(h: SimHush, fn: () => Promise<T>): Promise<T> {
  const real = globalThis.fetch;
  globalThis.fetch = h.fetch;
  try {
    return await fn();
  } finally {
    globalThis.fetch = real;
  }
}
