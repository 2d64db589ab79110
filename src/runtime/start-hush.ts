import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { HushConfig } from '../config/config.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { RunningLocalnet } from '../localnet/start-localnet.ts';
import { ensureDemoAccount, type DemoAccount } from '../admin/demo-account.ts';
import type { ChainSubscriptions } from '../chain/chain-subscriptions.ts';
import type { SettlementWorker } from '../settlement/runner.ts';
import type { ReceiptSigner } from '../settlement/receipt-signer.ts';
import type { Db } from '../store/db.ts';
import { observeTransitions } from '../store/order-transitions.ts';
import type { RecordSink } from '../support/alerts.ts';
import type { TreasuryKeys } from '../treasury/treasury-keys.ts';
import type { Treasury } from '../treasury/treasury.ts';
import type { TreasuryWallets } from '../treasury/treasury-wallets.ts';
import { buildPartnerApi, type PartnerApi } from './build-api.ts';
import { buildInfrastructure } from './build-infrastructure.ts';
import { buildKeys } from './build-keys.ts';
import { buildServices } from './build-services.ts';
import { startWorker } from './build-worker.ts';
import { Closers, closeWithin } from './closers.ts';
import { fundAtStart } from './fund-at-start.ts';
import { startOpsListener } from './ops-listener.ts';
import { buildScreening, screeningSummary } from './build-screening.ts';
import { Readiness } from './readiness.ts';
import type { Inventory } from '../services/inventory.ts';
import { startLog } from './start-log.ts';
import { connectionBudget } from './connection-budget.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';
import { processFaultPoints, type FaultPoints } from '../support/fault-points.ts';
import type { FetchLike } from '../support/fetch-like.ts';

export interface RunningHush {
  config: HushConfig;
  db: Db;
  chain: SolanaChain;
  /** The treasury keys: roles worker and all only; null in role api, which never loads the seed. */
  keys: TreasuryKeys | null;
  localnet: RunningLocalnet | null;
  /** The public addresses of Hush's wallets (role api: as a worker published them). */
  treasury: TreasuryWallets;
  /** The signing treasury: roles worker and all only. */
  signing: Treasury | null;
  demo: DemoAccount | null;
  app: FastifyInstance | null;
  url: string | null;
  /** The ops listener (every role): /healthz, /readyz, /metrics and, with HUSH_ADMIN_TOKEN, /admin/v1. */
  opsUrl: string;
  opsApp: FastifyInstance;
  /** The settlement worker (roles worker and all): tests drive its ticks directly. */
  worker: SettlementWorker | null;
  /** The disclosure receipts' signer (roles worker and all). */
  receipts: ReceiptSigner | null;
  /** The free inventory quotes and orders are bounded by: tests refresh it instead of waiting for its period. */
  inventory: Pick<Inventory, 'refresh'>;
  close(): Promise<void>;
}

export interface StartOptions {
  log?: (msg: string) => void;
  /**
   * Structured records (pino in production: `npm start`): the worker's records and the ALERTs, each with
   * `alert: <kind>`. Absent (tests), they are written to `log` as text lines, `ALERT: …` first.
   */
  records?: RecordSink;
  /** Fastify's logger for the API (true, or options such as a destination stream). */
  logger?: FastifyServerOptions['logger'];
  /**
   * Where every part reads "now" and waits (src/support/clock.ts), and where every draw comes from
   * (src/support/random.ts): the caller's choice, never a default (production's entry points pass the
   * system's, src/cli/start.ts).
   */
  clock: Clock;
  random: Random;
  /** Where a crash test stops the process (src/support/fault-points.ts); absent, HUSH_FAULT's switches. */
  faults?: FaultPoints;
  /**
   * For a host that runs Hush inside its own process (the simulator, `npm run sim`; tests on its clock): a store
   * it opened (Hush leaves it open), the network for Hush's outbound HTTP (the chain's RPC, the risk API)
   * instead of the global fetch, `listen: false` (no sockets: the host reaches the apps by `inject`), and
   * `threads: false` (deposit identities derived and signatures made on the event loop, so that the host's
   * seed decides the order of every event).
   */
  store?: Db;
  fetch?: FetchLike;
  listen?: boolean;
  threads?: boolean;
  /** Runs once the start's funding is done (tests: demo data, extra funding), before the worker starts; the API already listens, /readyz still 503. */
  onReady?: (h: { db: Db; chain: SolanaChain; keys: TreasuryKeys | null; localnet: RunningLocalnet | null }) => Promise<void>;
}

/**
 * The composition root: each builder starts its part and registers what it must close in one list
 * (closers.ts). Closing drains in-flight HTTP requests first, then stops the worker, the services, and
 * last the chain client, store and local chain. A start that fails closes what it had started.
 */
export async function startHush(config: HushConfig, opts: StartOptions): Promise<RunningHush> {
  const log = opts.log ?? (() => {});
  const { record, alert } = startLog(log, opts.records);
  const closers = new Closers();
  const { clock, random } = opts;
  const faults = opts.faults ?? processFaultPoints();
  const threads = opts.threads !== false;
  /** False until the start's chain work (funding) is done: /readyz answers 503 meanwhile. */
  let started = false;
  let draining = false;
  try {
    const infra = await buildInfrastructure(config, log, closers, clock, random, { store: opts.store, fetch: opts.fetch });
    const { localnet, chain } = infra;
    // One info record per order transition this process makes: which order, from, to (no amounts, no addresses).
    const db = observeTransitions(infra.db, ({ trackingId, from, to }) => record({ trackingId, from, to }, 'order transition'));
    const { keys, signing, treasury, mint } = await buildKeys(config, db, alert, closers, clock, random, threads);
    let subscriptions: ChainSubscriptions | null = null;
    const services = await buildServices({ config, db, chain, treasury, subscriptions: () => subscriptions, log, clock, random }, closers);
    const demo = localnet ? await ensureDemoAccount(db, config.dataDir, clock, random) : null;
    // docs/spec.md §12: the API screens quotes, the worker deposits and payouts; one port per process.
    const screening = await buildScreening(config, log, alert, closers, clock, opts.fetch);
    const connections = connectionBudget(config);
    if (connections.lowered.length > 0) {
      alert('connection_caps_lowered', { fileLimit: connections.fileLimit, lowered: connections.lowered }, `the process may open ${connections.fileLimit} files: lowered ${connections.lowered.join(', ')} to keep descriptors for the store, the chain and the ops listener`);
    }
    // Every role's health, readiness, metrics and admin API, off the partner port (docs/spec.md §4). It
    // listens before the partner port, so it still answers (/readyz 503) while that port drains on close.
    const readiness = new Readiness(db, chain, config.rpcTimeoutMs, () => started, clock);
    closers.addServing(() => readiness.stop());
    const api: PartnerApi | null =
      config.role === 'worker' ? null : await buildPartnerApi({ config, db, chain, services, treasury, draining: () => draining, settlementPaused: () => readiness.paused(), log, alert, logger: opts.logger ?? false, screening, connections: connections.partner, clock, random, faults }, closers);
    const ops = await startOpsListener({ config, db, chain, treasury, signing, metrics: services.metrics, readiness, draining: () => draining, auth: api?.auth, log, logger: opts.logger ?? false, addressRules: services.addressRules, screening: () => screeningSummary(screening), screeningPort: screening, connections: connections.ops, clock, random, listen: opts.listen !== false });
    closers.addServing((how) => closeWithin(clock, ops.app, how.failedStart ? 0 : config.requestTimeoutMs));
    const app = api?.app ?? null;
    const url = app && opts.listen !== false ? await app.listen({ host: config.host, port: config.port }) : null;
    if (app && opts.listen === false) await app.ready();
    if (app) closers.addServing((how) => closeWithin(clock, app, how.failedStart ? 0 : config.requestTimeoutMs));
    closers.addServing(async (how) => {
      if (how.failedStart || config.drainGraceMs <= 0) return;
      // Load balancers see /readyz fail and clients get their connections closed after an answer, before
      // the server stops accepting and closes what is idle.
      draining = true;
      await clock.sleep(config.drainGraceMs);
    });
    const faucet = config.role !== 'api' && (await fundAtStart(config, db, chain, treasury, services.inventory, log, clock, random, faults));
    await opts.onReady?.({ db, chain, keys, localnet });
    // Role api: the wallets a worker published, if it has (else the inventory keeps asking the store).
    if (!signing && (await treasury.loaded().then(() => true, () => false))) await services.inventory.refresh().catch(() => {});
    let worker: SettlementWorker | null = null;
    let receipts: ReceiptSigner | null = null;
    if (signing && keys && mint) {
      ({ worker, subscriptions, receipts } = await startWorker({ config, db, chain, localnet, keys, signing, mint, services, classTraffic: api?.classTraffic ?? null, faucet, log, alert, record, screening, clock, random, faults, threads }, closers));
    }
    started = true;
    let closing: Promise<void> | null = null;
    return {
      config, db, chain, keys, localnet, treasury, signing, demo, app, url, worker, receipts,
      inventory: services.inventory,
      opsUrl: ops.url,
      opsApp: ops.app,
      close: () => (closing ??= closers.closeAll()),
    };
  } catch (e) {
    await closers.closeAll({ failedStart: true });
    throw e;
  }
}
