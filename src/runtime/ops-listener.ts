import type { FastifyInstance, FastifyServerOptions } from 'fastify';
import type { HushConfig } from '../config/config.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { Metrics } from '../api/metrics.ts';
import { buildOpsApp, type OpsDeps } from '../api/ops-app.ts';
import { reconcile } from '../ledger/reconcile.ts';
import { AdminService } from '../admin/admin-service.ts';
import type { AddressRules } from '../services/address-rules.ts';
import type { Authenticator } from '../services/authenticator.ts';
import { StrayFundsService } from '../admin/stray-funds-service.ts';
import type { Db } from '../store/db.ts';
import { treasuryReport } from '../treasury/funding.ts';
import type { Treasury } from '../treasury/treasury.ts';
import type { TreasuryWallets } from '../treasury/treasury-wallets.ts';
import type { Readiness } from './readiness.ts';
import { RecoverService } from '../admin/recover-service.ts';
import { webhookEgressFor } from '../webhooks/webhook-egress.ts';
import { listScreeningLog } from '../store/screening-log-store.ts';
import { HoldsService } from '../admin/holds-service.ts';
import { HoldNotesService } from '../admin/hold-notes-service.ts';
import { liquidityReport, privacyReport } from '../admin/console-reports.ts';
import { OperatorsService } from '../admin/operators-service.ts';
import { ApprovalsService } from '../admin/approvals-service.ts';
import type { HoldFilter } from '../store/holds/hold-filter.ts';
import { SCREENING_OFF, type Screening } from '../screening/screening-port.ts';
import type { ConnectionLimits } from '../api/connection-guard.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

export interface OpsListenerParts {
  /** False: built and ready, not listening (a host that reaches it by inject); its url is then ''. */
  listen?: boolean;
  config: HushConfig;
  db: Db;
  chain: SolanaChain;
  /** Public addresses only: reconcile and the treasury report need no key. */
  treasury: TreasuryWallets;
  /** The signing treasury (roles worker and all): returning stray funds signs as the deposit owner; null in role api. */
  signing: Treasury | null;
  metrics: Metrics;
  readiness: Readiness;
  draining: () => boolean;
  /** The partner API's key cache (roles api and all): admin changes to an account drop its entries. */
  auth?: Authenticator;
  log: (msg: string) => void;
  /** Where the operator's services read "now" (key expiries, stray funds' records). */
  clock: Clock;
  /** Request ids, account ids, keys and secrets. */
  random: Random;
  /** Fastify's logger (as the partner API's): health checks at debug, admin calls at info. */
  logger?: FastifyServerOptions['logger'];
  /** docs/spec.md §4 rules a registered fee recipient must pass. */
  addressRules?: AddressRules;
  /** docs/spec.md §12: /readyz shows it (every role). */
  screening?: () => string;
  /** The port itself: a refund from a hold never goes to a blocked sender. */
  screeningPort?: Screening;
  /** Its connection cap, within the process's descriptors (connection-budget.ts). */
  connections?: ConnectionLimits;
}

/** The admin API's operations over this process's store and chain. */
function adminApi(p: OpsListenerParts): NonNullable<OpsDeps['admin']>['api'] {
  const svc = new AdminService(p.db, { onAccountChanged: (id) => p.auth?.invalidate(id), webhookEgress: webhookEgressFor(p.config), addressRules: p.addressRules, clock: p.clock, random: p.random });
  const holds = new HoldsService(p.db, p.screeningPort ?? SCREENING_OFF);
  const operators = new OperatorsService(p.db, p.random, p.config.consoleIdleMinutes * 60, p.config.consoleSessionHours * 3600);
  const strays = p.signing ? new StrayFundsService(p.config, p.db, p.chain, p.signing, p.log, p.clock, p.random) : null;
  return Object.assign(svc, {
    reconcile: () => reconcile(p.db, p.chain, p.treasury, p.config.assets),
    recover: new RecoverService(p.db),
    screeningLog: (opts: Parameters<typeof listScreeningLog>[1]) => listScreeningLog(p.db, opts),
    liquidity: () => liquidityReport(p.db, p.chain, p.treasury, p.config.assets),
    privacy: () => privacyReport(p.db),
    holds: (...a: Parameters<HoldsService['list']>) => holds.list(...a),
    fundHolds: (...a: Parameters<HoldsService['listFunds']>) => holds.listFunds(...a),
    holdCounts: (filter?: HoldFilter) => holds.counts(filter),
    operators,
    approvals: new ApprovalsService(p.db, holds),
    holdNotes: new HoldNotesService(p.db),
    // Role api holds no key to sign with: the route answers SERVICE_UNAVAILABLE (run it on a worker).
    ...(strays ? { returnStray: (trackingId: string) => strays.returnStray(trackingId) } : {}),
    treasury: async () => {
      const wallets = await treasuryReport(p.chain, p.treasury, p.config.assets);
      return { funded: wallets.every((w) => w.missing === '0'), wallets };
    },
  });
}

/**
 * Builds and starts the ops listener of every role (HUSH_OPS_HOST:HUSH_OPS_PORT): health, readiness,
 * metrics, and the admin API when HUSH_ADMIN_TOKEN is set.
 */
export async function startOpsListener(p: OpsListenerParts): Promise<{ app: FastifyInstance; url: string }> {
  await p.readiness.start();
  const app = await buildOpsApp(
    {
      ready: async () => p.readiness.state(),
      metrics: p.metrics,
      draining: p.draining,
      clock: p.clock,
      random: p.random,
      // The name it is bound to, when that is a name, is one it serves.
      hostnames: [...p.config.opsHostnames, p.config.opsHost.toLowerCase()],
      ...(p.screening ? { screening: p.screening } : {}),
      ...(p.config.adminToken ? { admin: { token: p.config.adminToken, api: adminApi(p), afterChange: (id) => p.auth?.invalidate(id), assets: p.config.assets.list, explorer: { address: p.config.explorerAddressUrl, tx: p.config.explorerTxUrl }, ...(p.config.oidc ? { oidc: p.config.oidc } : {}) } } : {}),
    },
    { requestTimeoutMs: p.config.requestTimeoutMs, logger: p.logger, connections: p.connections ?? { maxTotal: p.config.opsMaxConnections, maxPerAddress: 0 } },
  );
  if (p.listen === false) {
    await app.ready();
    return { app, url: '' };
  }
  const url = await app.listen({ host: p.config.opsHost, port: p.config.opsPort });
  return { app, url };
}
