import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { Redis } from 'ioredis';
import type { HushConfig } from '../config/config.ts';
import { buildApp } from '../api/app.ts';
import { createMetrics } from '../api/metrics.ts';
import { startOpsListener } from './ops-listener.ts';
import { answersWithin, Readiness } from './readiness.ts';
import { ChainSubscriptions } from '../chain/chain-subscriptions.ts';
import { pubsubMetrics } from '../chain/pubsub-metrics.ts';
import { alertFields, alertsTotal, plainFields, type RecordSink } from '../support/alerts.ts';
import { SolanaChain } from '../chain/solana-chain.ts';
import { startLocalnet, type RunningLocalnet } from '../localnet/start-localnet.ts';
import { Authenticator } from '../services/authenticator.ts';
import { DepositHintService } from '../services/deposit-hint-service.ts';
import { OrderService } from '../services/order-service.ts';
import { QuoteService } from '../services/quote-service.ts';
import { AddressRules, ownAddressesOf } from '../services/address-rules.ts';
import { StatusCache } from '../services/status-cache.ts';
import type { Db } from '../store/db.ts';
import { openDb } from '../store/open-db.ts';
import { releaseLeasesOfPastLives } from '../store/settlement/release-leases-of-past-lives.ts';
import { countOrdersByStatus } from '../store/orders-store.ts';
import { loadTreasurySeed, TreasuryKeys } from '../treasury/treasury-keys.ts';
import { POOLS_PER_ASSET, Treasury } from '../treasury/treasury.ts';
import { PublishedTreasuryWallets, publishedWalletsOf, type TreasuryWallets } from '../treasury/treasury-wallets.ts';
import { DepositIdentityMint } from '../treasury/deposit-identity-mint.ts';
import { loadQuoteKey } from '../treasury/quote-key.ts';
import { publishTreasuryWallets } from '../store/treasury-wallets-store.ts';
import { DepositIdentityPool } from '../services/deposit-identity-pool.ts';
import { DEFAULT_FUNDING, fundFromLocalFaucet, isLocalFaucetChain, treasuryReport } from '../treasury/funding.ts';
import { Inventory } from '../services/inventory.ts';
import { ClassTraffic } from '../services/class-traffic.ts';
import { holdMs } from '../domain/class-release.ts';
import { releasePolicy } from '../config/privacy-settings.ts';
import { createFreshPrices } from '../prices/select-price-source.ts';
import { SwapPricing } from '../prices/swap-pricing.ts';
import { LocalFaucetRebalancer } from '../rebalance/local-faucet-rebalancer.ts';
import { ensureDemoAccount, type DemoAccount } from '../services/demo-account.ts';
import { SettlementWorker } from '../settlement/runner.ts';
import { ClassReleaseLoop } from '../settlement/class-release-loop.ts';
import { depositToCompletedSeconds } from '../settlement/settlement-metrics.ts';
import { retryTransient } from './start-retry.ts';
import { WebhookDispatcher } from '../worker/webhook-dispatcher.ts';
import { WebhookMetrics } from '../worker/webhook-metrics.ts';
import { webhookEgressFor } from '../worker/webhook-egress.ts';

/** How long a start waits for Redis before serving with rate limits failing open. */
const REDIS_READY_MS = 2_000;

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
  close(): Promise<void>;
}

/**
 * Closes a server, waiting for requests in progress for at most `ms`, then cutting the connections left.
 * Node stops enforcing request deadlines once closing starts, so a request still trickling in would hold
 * the close (and the whole shutdown after it) forever.
 */
async function closeWithin(app: FastifyInstance | null | undefined, ms: number): Promise<void> {
  if (!app) return;
  const closing = app.close();
  let timer: NodeJS.Timeout | undefined;
  const late = await Promise.race([closing.then(() => false), new Promise<boolean>((r) => (timer = setTimeout(r, ms, true)))]);
  clearTimeout(timer);
  if (late) app.server.closeAllConnections();
  await closing;
}

/** Where Redis is, for log lines: the socket path, or host and port (never the URL, which may carry a password). */
function redisEndpoint(url: string): string {
  if (url.startsWith('/')) return url;
  const u = new URL(url);
  return `${u.hostname}:${u.port || 6379}`;
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
  /** Runs once the start's funding is done (tests: demo data, extra funding), before the worker starts; the API already listens, /readyz still 503. */
  onReady?: (h: { db: Db; chain: SolanaChain; keys: TreasuryKeys | null; localnet: RunningLocalnet | null }) => Promise<void>;
}

/**
 * The composition root: embedded chain (unless SOLANA_RPC_URL), store, treasury keys, services, API.
 * Closing drains in-flight HTTP requests first, then stops the chain client, store and local chain.
 */
export async function startHush(config: HushConfig, opts: StartOptions = {}): Promise<RunningHush> {
  const log = opts.log ?? (() => {});
  /** One record: structured when a sink is given, else a text line with its fields as JSON. */
  const record = (fields: Record<string, unknown>, msg: string): void => {
    const plain = plainFields(fields);
    if (opts.records) opts.records(plain.alert ? 'warn' : 'info', plain, msg);
    else log(`${msg} ${JSON.stringify(plain)}`);
  };
  const alert = (kind: string, fields: Record<string, unknown>, msg: string): void => record(alertFields(kind, fields), `ALERT: ${msg}`);
  const localnet = config.solanaRpcUrl
    ? null
    : await startLocalnet({ host: '127.0.0.1', port: config.localnetPort, wsPort: config.localnetWsPort, slotMs: config.localnetSlotMs, dataDir: config.dataDir }, log);
  const rpcUrl = config.solanaRpcUrl ?? localnet!.url;
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.databaseSchema });
  // Key custody (docs/spec.md §10): only the roles that settle load the seed. Role api reads the wallets'
  // public addresses and deposit identities a worker wrote to the store, and has a quote key of its own.
  const keys = config.role === 'api' ? null : new TreasuryKeys(loadTreasurySeed({ treasurySeed: config.treasurySeed, dataDir: config.dataDir }));
  const chain = new SolanaChain(rpcUrl, config.slotMs, config.rpcTimeoutMs, config.rpcMaxRps);
  chain.startBackgroundRefresh();
  const signing = keys ? await Treasury.load(keys, config.assets) : null;
  const treasury: TreasuryWallets = signing ?? new PublishedTreasuryWallets(db);
  let mint: DepositIdentityMint | null = null;
  if (signing && keys) {
    const published = await publishTreasuryWallets(db, publishedWalletsOf(signing));
    if (published.replaced) {
      alert('treasury_replaced', { feePayer: signing.feePayer.address }, "this worker's treasury seed is not the one that published the wallets in the store: its addresses replace them, unclaimed deposit identities are dropped; APIs must restart to read them");
    }
    mint = new DepositIdentityMint(db, keys.depositMasterKey, config.assets).start();
  }
  /** False until the start's chain work (funding) is done: /readyz answers 503 meanwhile. */
  let started = false;
  if (config.privacy === 'off') {
    alert('privacy_off', {}, 'HUSH_PRIVACY=off — payouts may follow deposits with no wait; for tests and benchmarks only, never in production');
  }
  const prices = createFreshPrices(config, { onRefreshError: (e) => log(`prices: refresh failed: ${(e as Error).message}`) });
  await prices.refresh();
  prices.start();
  const swaps = new SwapPricing(prices, config.assets, config.swapSpreadBps);
  const inventory = new Inventory(db, chain, treasury, config.assets, undefined, config);
  /** docs/spec.md §4: addresses no transfer may name; Hush's own from the public addresses alone. */
  // Role api learns its own addresses once a worker has published them (quotes are refused until then).
  const ownAddresses = new Set<string>();
  const learnOwn = () => ownAddressesOf(treasury).forEach((x) => ownAddresses.add(x));
  if (treasury instanceof PublishedTreasuryWallets) treasury.whenLoaded(learnOwn);
  else learnOwn();
  const addressRules = new AddressRules(config.assets.list.map((a) => a.mint), ownAddresses);
  /** What each asset's pools should hold in total (funding targets × pools): the rebalancer aims for it. */
  const inventoryTargets = new Map(
    config.assets.list.map((a) => [a.assetId, (DEFAULT_FUNDING.poolTokens[a.assetId] ?? 0n) * 10n ** BigInt(a.decimals) * BigInt(POOLS_PER_ASSET)]),
  );
  /** Counted by the webhook dispatcher (a worker's), served by whichever registry this process has. */
  const webhookMetrics = new WebhookMetrics();
  /** The worker's PubSub subscriptions (roles worker and all, once it starts). */
  let subscriptions: ChainSubscriptions | null = null;
  /** The process's one registry, served on the ops listener: both listeners' request latencies, orders by status, free inventory against its target. */
  const metrics = createMetrics(() => countOrdersByStatus(db), {
    assets: config.assets.list.map((a) => a.assetId),
    available: (a) => inventory.available(a),
    target: (a) => inventoryTargets.get(a),
  }, [chain.budget.requests, ...webhookMetrics.all, alertsTotal, depositToCompletedSeconds, ...pubsubMetrics(() => subscriptions)]);
  await inventory.refresh().catch(() => {});
  inventory.start();
  let demo: DemoAccount | null = null;
  if (localnet) demo = await ensureDemoAccount(db, config.dataDir);
  let app: FastifyInstance | null = null;
  let url: string | null = null;
  let draining = false;
  let opsApp: FastifyInstance | null = null;
  const readiness = new Readiness(db, chain, config.rpcTimeoutMs, () => started);
  let redis: Redis | undefined;
  let statusCache: StatusCache | undefined;
  let orderService: OrderService | undefined;
  let classTraffic: ClassTraffic | undefined;
  let auth: Authenticator | undefined;
  if (config.role !== 'worker') {
    redis = config.redisUrl ? new Redis(config.redisUrl, { maxRetriesPerRequest: 1, enableOfflineQueue: false }) : undefined;
    if (redis) {
      // Rate limiting fails open (skipOnError) rather than failing requests, so the operator must hear of it:
      // one ALERT when Redis goes away (again at most once a minute while it stays away), one line when back.
      const where = redisEndpoint(config.redisUrl!);
      let down = false;
      let lastAlertAt = 0;
      redis.on('error', (e: Error) => {
        if (down && Date.now() - lastAlertAt < 60_000) return;
        down = true;
        lastAlertAt = Date.now();
        alert('redis_unreachable', { redis: where, error: e.message }, `Redis at ${where} unreachable (${e.message}): rate limits are NOT enforced until it is back`);
      });
      redis.on('ready', () => {
        if (down) log(`Redis at ${where} reachable again: rate limits enforced`);
        down = false;
      });
    }
    // Without an offline queue, commands before the connection is ready fail, and the first requests
    // would pass unlimited: wait for it briefly (an unreachable Redis is reported by its first error).
    if (redis) await answersWithin(new Promise((ok) => (redis!.once('ready', ok), redis!.once('error', ok))), REDIS_READY_MS);
    auth = new Authenticator(db);
    classTraffic = await startClassTraffic(config, db, log);
    const quoteKey = loadQuoteKey({ quoteKey: config.quoteKey, dataDir: config.dataDir });
    const orders = (orderService = new OrderService(config, db, chain, { quoteMacKey: quoteKey, identities: new DepositIdentityPool(db) }, inventory));
    statusCache = new StatusCache(db);
    await statusCache.start();
    app = await buildApp(
      {
        config,
        db,
        chain,
        auth,
        quotes: new QuoteService(config, quoteKey, inventory, swaps, classTraffic, addressRules),
        orders,
        deposits: new DepositHintService(config, db, chain, orders, log, alert),
        statusCache,
        metrics,
        redis,
        draining: () => draining,
      },
      { logger: opts.logger ?? false },
    );
    url = await app.listen({ host: config.host, port: config.port });
  }
  // Every role's health, readiness, metrics and admin API, off the partner port (docs/spec.md §4).
  let opsUrl: string;
  try {
    ({ app: opsApp, url: opsUrl } = await startOpsListener({ config, db, chain, treasury, signing, metrics, readiness, draining: () => draining, auth, log, addressRules }));
  } catch (e) {
    await closeWithin(app, 0).catch(() => {});
    throw e;
  }
  // The chain work of a start waits out a flaky chain (backoff, /readyz 503 meanwhile): never an exit.
  const retry = { log: (m: string) => log(`start: ${m}`) };
  let worker: SettlementWorker | null = null;
  let webhooks: WebhookDispatcher | null = null;
  let classRelease: ClassReleaseLoop | null = null;
  try {
    // Asked once: decides funding at start and the rebalancer of the worker.
    const faucet = config.role !== 'api' && (await retryTransient('asking the chain for its faucet', () => isLocalFaucetChain(chain), retry));
    if (config.role !== 'api') {
      // Only a worker moves money, so only a worker tops the treasury up (on a chain with the local faucet).
      // On the faucet chain a wallet above half its target is left alone on purpose: only a failed top-up is news.
      const missing = await retryTransient('funding the treasury', () => faucet
        ? fundFromLocalFaucet(db, chain, treasury, config.assets).then((r) => r.filter((x) => BigInt(x.missing) * 2n >= BigInt(x.target)))
        : treasuryReport(chain, treasury, config.assets).then((r) => r.filter((x) => x.missing !== '0')), retry);
      for (const m of missing) log(`treasury: ${m.role} ${m.wallet} (${m.assetId}) holds ${m.balance}, target ${m.target}: fund it (npm run admin -- treasury)`);
      // The pools as funded, before anything is quoted from them.
      await inventory.refresh().catch(() => {});
    }
    await opts.onReady?.({ db, chain, keys, localnet });
    if (!signing) {
      // Role api: the wallets a worker published, if it has (else the inventory keeps asking the store).
      if (await treasury.loaded().then(() => true, () => false)) await inventory.refresh().catch(() => {});
    }
    if (signing && keys && mint) {
      // The first orders of a fresh deployment find identities ready (the mint filled in the background).
      await mint.filled();
      webhooks = new WebhookDispatcher(db, { log, alert, eventIdKey: keys.eventIdKey, metrics: webhookMetrics, egress: webhookEgressFor(config) });
      webhooks.start();
      const rebalancer =
        config.rebalancer === 'faucet' && faucet
          ? new LocalFaucetRebalancer({ rpcUrl: chain.url, post: (body, methods) => chain.post(body, methods), assets: config.assets, destination: (assetId) => treasury.pools(assetId)[0]!.address })
          : undefined;
      // Slots, deposit accounts and signatures over PubSub: an idle worker then sends no requests at all.
      const wsUrl = config.solanaWsUrl ?? localnet?.wsUrl;
      if (wsUrl) subscriptions = new ChainSubscriptions({ wsUrl, rpc: chain.rpc, log: (m) => log(m) }).start();
      if (db.kind === 'pglite') {
        const freed = await releaseLeasesOfPastLives(db);
        if (freed > 0) log(`worker: ${freed} order lease(s) of a previous life released (the PGlite store is this process's alone)`);
      }
      worker = new SettlementWorker(config, db, chain, signing, {
        subscriptions: subscriptions ?? undefined,
        swaps,
        prices,
        rebalancer,
        inventoryTargets,
        log: (o, m) => record(o, m),
      });
      worker.start();
      if (config.privacy === 'on') {
        classTraffic ??= await startClassTraffic(config, db, log);
        classRelease = new ClassReleaseLoop(config, db, classTraffic, log);
        classRelease.start();
      }
    }
  } catch (e) {
    // A real fault (not a transient one): the servers already listen, so close them before failing the start.
    await closeWithin(app, 0).catch(() => {});
    await closeWithin(opsApp, 0).catch(() => {});
    readiness.stop();
    await subscriptions?.close().catch(() => {});
    throw e;
  }
  started = true;
  let closed = false;
  return {
    config,
    db,
    chain,
    keys,
    localnet,
    treasury,
    signing,
    demo,
    app,
    url,
    opsUrl,
    opsApp: opsApp!,
    worker,
    async close() {
      if (closed) return;
      closed = true;
      if ((app || opsApp) && config.drainGraceMs > 0) {
        // Load balancers see /readyz fail and clients get their connections closed after an answer, before
        // the server stops accepting and closes what is idle.
        draining = true;
        await new Promise((r) => setTimeout(r, config.drainGraceMs));
      }
      await closeWithin(app, config.requestTimeoutMs);
      await closeWithin(opsApp, config.requestTimeoutMs);
      readiness.stop();
      await orderService?.close();
      await mint?.stop();
      await classRelease?.stop();
      await worker?.stop();
      await subscriptions?.close();
      await webhooks?.stop();
      inventory.stop();
      classTraffic?.stop();
      prices.stop();
      await statusCache?.stop();
      chain.stop();
      redis?.disconnect();
      await db.close();
      await localnet?.close();
    },
  };
}

/** The class traffic both the quotes and the class release read: one store query every few seconds. */
async function startClassTraffic(config: HushConfig, db: Db, log: (m: string) => void): Promise<ClassTraffic> {
  // A rate means something once Hush has watched for a hold (or the whole window, when that is shorter).
  const minObservedS = Math.min(config.privacyTrafficWindowS, holdMs(releasePolicy(config)) / 1000);
  const traffic = new ClassTraffic(db, config.assets, config.privacyTrafficWindowS, minObservedS);
  await traffic.refresh().catch((e: Error) => log(`privacy: class traffic not read (${e.message}); classes count as unmeasured until it is`));
  traffic.start();
  return traffic;
}
