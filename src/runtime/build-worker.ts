import type { HushConfig } from '../config/config.ts';
import { ChainSubscriptions } from '../chain/chain-subscriptions.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { RunningLocalnet } from '../localnet/start-localnet.ts';
import { LocalFaucetRebalancer } from '../rebalance/local-faucet-rebalancer.ts';
import type { ClassTraffic } from '../services/class-traffic.ts';
import { SettlementWorker } from '../settlement/runner.ts';
import { ReceiptSigner } from '../settlement/receipt-signer.ts';
import { burstSpanSlots } from '../domain/landed-bursts.ts';
import { releasePolicy } from '../config/privacy-settings.ts';
import { loadReceiptKey } from '../treasury/receipt-key.ts';
import type { Db } from '../store/db.ts';
import { releaseLeasesOfPastLives } from '../store/settlement/release-leases-of-past-lives.ts';
import type { DepositIdentityMint } from '../treasury/deposit-identity-mint.ts';
import type { TreasuryKeys } from '../treasury/treasury-keys.ts';
import type { Treasury } from '../treasury/treasury.ts';
import { WebhookDispatcher } from '../webhooks/webhook-dispatcher.ts';
import { webhookEgressFor } from '../webhooks/webhook-egress.ts';
import { startClassRelease } from './build-class-release.ts';
import type { SharedServices } from './build-services.ts';
import type { Closers } from './closers.ts';
import type { Screening } from '../screening/screening-port.ts';
import type { AlertFn, Log, RecordFn } from './start-log.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';
import type { FaultPoints } from '../support/fault-points.ts';

export interface WorkerParts {
  config: HushConfig;
  db: Db;
  chain: SolanaChain;
  localnet: RunningLocalnet | null;
  keys: TreasuryKeys;
  signing: Treasury;
  mint: DepositIdentityMint;
  services: SharedServices;
  /** The API's class traffic (role all), which the class release reads too; null: it reads its own. */
  classTraffic: ClassTraffic | null;
  /** The chain has the local faucet: the rebalancer may draw on it. */
  faucet: boolean;
  log: Log;
  alert: AlertFn;
  record: RecordFn;
  screening: Screening;
  /** Where the worker, the class release and the receipts read "now" and wait. */
  clock: Clock;
  /** Every draw the settling side makes. */
  random: Random;
  /** Where a crash test stops the worker. */
  faults: FaultPoints;
  /** False: signatures on the event loop (StartOptions.threads). */
  threads: boolean;
}

/** The settling half (roles worker and all): webhooks, PubSub subscriptions, the settlement worker, the class release. */
export async function startWorker(p: WorkerParts, closers: Closers): Promise<{ worker: SettlementWorker; subscriptions: ChainSubscriptions | null; receipts: ReceiptSigner }> {
  const { config, db, chain, services, log } = p;
  // The first orders of a fresh deployment find identities ready (the mint filled in the background).
  await p.mint.filled();
  const webhooks = new WebhookDispatcher(db, { clock: p.clock, log, alert: p.alert, eventIdKey: p.keys.eventIdKey, metrics: services.webhookMetrics, egress: webhookEgressFor(config) });
  webhooks.start();
  closers.add(() => webhooks.stop());
  const rebalancer =
    config.rebalancer === 'faucet' && p.faucet
      ? new LocalFaucetRebalancer({ rpcUrl: chain.url, clock: p.clock, post: (body, methods) => chain.post(body, methods), assets: config.assets, destination: (assetId) => p.signing.pools(assetId)[0]!.address })
      : undefined;
  // Slots, deposit accounts and signatures over PubSub: an idle worker then sends no requests at all.
  const wsUrl = config.solanaWsUrl === null ? null : (config.solanaWsUrl ?? p.localnet?.wsUrl);
  const subscriptions = wsUrl ? new ChainSubscriptions({ wsUrl, rpc: chain.rpc, clock: p.clock, random: p.random, log: (m) => log(m) }).start() : null;
  if (subscriptions) closers.add(() => subscriptions.close());
  if (db.kind === 'pglite') {
    const freed = await releaseLeasesOfPastLives(db);
    if (freed > 0) log(`worker: ${freed} order lease(s) of a previous life released (the PGlite store is this process's alone)`);
  }
  const worker = new SettlementWorker(config, db, chain, p.signing, {
    subscriptions: subscriptions ?? undefined,
    swaps: services.swaps,
    prices: services.prices,
    rebalancer,
    inventoryTargets: services.inventoryTargets,
    screening: p.screening,
    log: (o, m) => p.record(o, m),
    clock: p.clock,
    random: p.random,
    faults: p.faults,
    threads: p.threads,
  });
  // Nothing is paid before the store was compared with the chain (docs/decisions.md "The chain is the record").
  await worker.startChecked();
  closers.add(() => worker.stop());
  await startClassRelease(config, db, p.classTraffic, log, closers, p.clock, p.random, (at) => worker.context.wake('payouts', at));
  // docs/spec.md §12: each final order's disclosure receipt, signed here with a key of its own.
  // Issue 54: a released order's receipt waits until its release's payouts are all final and counted by the
  // adversary's burst rule (docs/privacy.md), so its releasedWith is what the chain shows.
  const spanSlots = burstSpanSlots(releasePolicy(config).spreadMs, config.slotMs);
  const receipts = new ReceiptSigner(db, await loadReceiptKey({ receiptKey: config.receiptKey, dataDir: config.dataDir }), config.assets, (o, m) => p.record(o, m), spanSlots, p.clock);
  await receipts.start();
  closers.add(() => receipts.stop());
  return { worker, subscriptions, receipts };
}
