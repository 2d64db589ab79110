import { treasuryHealthMetrics } from '../api/treasury-health-metrics.ts';
import { readTreasuryHealth } from '../store/chain-truth-store.ts';
import type { HushConfig } from '../config/config.ts';
import { createMetrics, type Metrics } from '../api/metrics.ts';
import type { ChainSubscriptions } from '../chain/chain-subscriptions.ts';
import { pubsubMetrics } from '../chain/pubsub-metrics.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { FreshPrices } from '../prices/price-source.ts';
import { createFreshPrices } from '../prices/select-price-source.ts';
import { SwapPricing } from '../prices/swap-pricing.ts';
import { AddressRules, ownAddressesOf } from '../services/address-rules.ts';
import { Inventory } from '../services/inventory.ts';
import { depositToCompletedSeconds } from '../settlement/settlement-metrics.ts';
import type { Db } from '../store/db.ts';
import { countOrdersByStatus } from '../store/orders-store.ts';
import { alertsTotal } from '../support/alerts.ts';
import { DEFAULT_FUNDING } from '../treasury/funding.ts';
import { POOLS_PER_ASSET } from '../treasury/treasury.ts';
import { PublishedTreasuryWallets, type TreasuryWallets } from '../treasury/treasury-wallets.ts';
import { WebhookMetrics } from '../webhooks/webhook-metrics.ts';
import type { Closers } from './closers.ts';
import type { Log } from './start-log.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

/** What both the partner API and the worker read: prices, inventory, address rules, the metrics registry. */
export interface SharedServices {
  prices: FreshPrices;
  swaps: SwapPricing;
  inventory: Inventory;
  addressRules: AddressRules;
  /** What each asset's pools should hold in total (funding targets × pools): the rebalancer aims for it. */
  inventoryTargets: Map<string, bigint>;
  /** Counted by the webhook dispatcher (a worker's), served by whichever registry this process has. */
  webhookMetrics: WebhookMetrics;
  /** The process's one registry, served on the ops listener. */
  metrics: Metrics;
}

export interface ServicesParts {
  config: HushConfig;
  db: Db;
  chain: SolanaChain;
  treasury: TreasuryWallets;
  /** The worker's PubSub subscriptions, once it has them (their gauges read it at each scrape). */
  subscriptions: () => ChainSubscriptions | null;
  log: Log;
  clock: Clock;
  random: Random;
}

export async function buildServices(p: ServicesParts, closers: Closers): Promise<SharedServices> {
  const { config, db, chain, treasury } = p;
  const prices = createFreshPrices(config, { clock: p.clock, random: p.random, onRefreshError: (e) => p.log(`prices: refresh failed: ${(e as Error).message}`) });
  await prices.refresh();
  prices.start();
  closers.add(() => prices.stop());
  const swaps = new SwapPricing(prices, config.assets, config.swapSpreadBps);
  const inventory = new Inventory(db, chain, treasury, config.assets, undefined, config, p.clock);
  /** docs/spec.md §4: addresses no transfer may name; Hush's own from the public addresses alone. */
  // Role api learns its own addresses once a worker has published them (quotes are refused until then).
  const ownAddresses = new Set<string>();
  const learnOwn = () => ownAddressesOf(treasury).forEach((x) => ownAddresses.add(x));
  if (treasury instanceof PublishedTreasuryWallets) treasury.whenLoaded(learnOwn);
  else learnOwn();
  const addressRules = new AddressRules(config.assets.list.map((a) => a.mint), ownAddresses);
  const inventoryTargets = new Map(
    config.assets.list.map((a) => [a.assetId, (DEFAULT_FUNDING.poolTokens[a.assetId] ?? 0n) * 10n ** BigInt(a.decimals) * BigInt(POOLS_PER_ASSET)]),
  );
  const webhookMetrics = new WebhookMetrics();
  // Both listeners' request latencies, orders by status, free inventory against its target.
  const metrics = createMetrics(() => countOrdersByStatus(db), {
    assets: config.assets.list.map((a) => a.assetId),
    available: (a) => inventory.available(a),
    target: (a) => inventoryTargets.get(a),
  }, [chain.budget.requests, chain.budget.waits, ...webhookMetrics.all, alertsTotal, depositToCompletedSeconds, ...pubsubMetrics(p.subscriptions), ...treasuryHealthMetrics(() => readTreasuryHealth(db), () => p.clock.now())]);
  await inventory.refresh().catch(() => {});
  inventory.start();
  closers.add(() => inventory.stop());
  return { prices, swaps, inventory, addressRules, inventoryTargets, webhookMetrics, metrics };
}
