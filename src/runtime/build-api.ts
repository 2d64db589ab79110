import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import { Redis } from 'ioredis';
import type { HushConfig } from '../config/config.ts';
import { buildApp } from '../api/app.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import { Authenticator } from '../services/authenticator.ts';
import type { ClassTraffic } from '../services/class-traffic.ts';
import { FeeGridView } from '../services/fee-grid-view.ts';
import { DepositHintService } from '../services/deposit-hint-service.ts';
import { DepositIdentityPool } from '../services/deposit-identity-pool.ts';
import { OrderService } from '../services/order-service.ts';
import { QuoteService } from '../services/quote-service.ts';
import { StatusCache } from '../services/status-cache.ts';
import type { Db } from '../store/db.ts';
import { loadQuoteKey } from '../treasury/quote-key.ts';
import type { TreasuryWallets } from '../treasury/treasury-wallets.ts';
import { startClassTraffic } from './build-class-release.ts';
import type { SharedServices } from './build-services.ts';
import type { Closers } from './closers.ts';
import { quoteDecisionSink } from './build-screening.ts';
import type { Screening } from '../screening/screening-port.ts';
import type { ConnectionLimits } from '../api/connection-guard.ts';
import { answersWithin } from './readiness.ts';
import type { AlertFn, Log } from './start-log.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';
import type { FaultPoints } from '../support/fault-points.ts';

/** How long a start waits for Redis before serving with rate limits failing open. */
const REDIS_READY_MS = 2_000;

/** The partner API (roles api and all), built but not yet listening. */
export interface PartnerApi {
  app: FastifyInstance;
  auth: Authenticator;
  classTraffic: ClassTraffic;
}

export interface ApiParts {
  config: HushConfig;
  db: Db;
  chain: SolanaChain;
  services: SharedServices;
  /** The wallets' public face: the key each deposit's record is sealed to (role api: as a worker published it). */
  treasury: Pick<TreasuryWallets, 'depositRecordKey'>;
  draining: () => boolean;
  /** Why payouts are paused (the readiness probe's reading), or null. */
  settlementPaused: () => string | null;
  log: Log;
  alert: AlertFn;
  logger: FastifyServerOptions['logger'];
  /** docs/spec.md §12 screening, built once per process (the worker screens with the same port). */
  screening: Screening;
  /** The partner port's connection caps, within the process's descriptors (connection-budget.ts). */
  connections?: ConnectionLimits;
  /** Where the request path reads "now" and waits: quote life, order expiry, key expiry, caches, rate buckets. */
  clock: Clock;
  /** Request ids, keys, secrets, payout delays drawn at a deposit hint. */
  random: Random;
  /** Where a crash test stops the process (a deposit the hint confirms). */
  faults: FaultPoints;
}

/** Where Redis is, for log lines: the socket path, or host and port (never the URL, which may carry a password). */
function redisEndpoint(url: string): string {
  if (url.startsWith('/')) return url;
  const u = new URL(url);
  return `${u.hostname}:${u.port || 6379}`;
}

/** The shared rate limits' Redis, when REDIS_URL is set; an ALERT whenever it goes away. */
async function connectRedis(url: string, p: ApiParts, closers: Closers): Promise<Redis> {
  const redis = new Redis(url, { maxRetriesPerRequest: 1, enableOfflineQueue: false });
  closers.add(() => redis.disconnect());
  // Rate limiting fails open (skipOnError) rather than failing requests, so the operator must hear of it:
  // one ALERT when Redis goes away (again at most once a minute while it stays away), one line when back.
  const where = redisEndpoint(url);
  let down = false;
  let lastAlertAt = 0;
  redis.on('error', (e: Error) => {
    if (down && p.clock.now() - lastAlertAt < 60_000) return;
    down = true;
    lastAlertAt = p.clock.now();
    p.alert('redis_unreachable', { redis: where, error: e.message }, `Redis at ${where} unreachable (${e.message}): rate limits are NOT enforced until it is back`);
  });
  redis.on('ready', () => {
    if (down) p.log(`Redis at ${where} reachable again: rate limits enforced`);
    down = false;
  });
  // Without an offline queue, commands before the connection is ready fail, and the first requests
  // would pass unlimited: wait for it briefly (an unreachable Redis is reported by its first error).
  await answersWithin(p.clock, new Promise((ok) => (redis.once('ready', ok), redis.once('error', ok))), REDIS_READY_MS);
  return redis;
}

export async function buildPartnerApi(p: ApiParts, closers: Closers): Promise<PartnerApi> {
  const { config, db, chain, services } = p;
  const redis = config.redisUrl ? await connectRedis(config.redisUrl, p, closers) : undefined;
  const auth = new Authenticator(db, undefined, p.clock);
  const classTraffic = await startClassTraffic(config, db, p.log, closers, p.clock);
  const quoteKey = loadQuoteKey({ quoteKey: config.quoteKey, dataDir: config.dataDir });
  // The fee grid the workers move: the quotes' flat networkFee is priced at its rung (read every 5 s, not per quote).
  const feeGrid = new FeeGridView(db, config, p.clock);
  closers.add(() => feeGrid.stop());
  await feeGrid.refresh().catch((e: Error) => p.log(`fee grid not read (${e.message}); quotes use HUSH_COMPUTE_UNIT_PRICE's rung until it is`));
  feeGrid.start();
  const orders = new OrderService(config, db, chain, { quoteMacKey: quoteKey, identities: new DepositIdentityPool(db), depositRecords: { publicKey: () => p.treasury.depositRecordKey, random: p.random } }, p.clock, services.inventory);
  const screening = p.screening;
  const statusCache = new StatusCache(db, undefined, p.clock);
  await statusCache.start();
  closers.add(() => statusCache.stop());
  const app = await buildApp(
    {
      config,
      db,
      auth,
      quotes: new QuoteService(config, quoteKey, p.clock, p.random, services.inventory, services.swaps, classTraffic, services.addressRules, screening, quoteDecisionSink(db, p.log), feeGrid),
      orders,
      deposits: new DepositHintService(config, db, chain, orders, screening, p.clock, p.random, p.faults, p.log, p.alert),
      statusCache,
      metrics: services.metrics,
      redis,
      clock: p.clock,
      random: p.random,
      draining: p.draining,
      settlementPaused: p.settlementPaused,
    },
    { logger: p.logger, ...(p.connections ? { connections: p.connections } : {}) },
  );
  return { app, auth, classTraffic };
}
