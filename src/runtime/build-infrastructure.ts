import type { HushConfig } from '../config/config.ts';
import { SolanaChain } from '../chain/solana-chain.ts';
import { localnetExtrasFromEnv } from '../localnet/localnet-config.ts';
import { startLocalnet, type RunningLocalnet } from '../localnet/start-localnet.ts';
import type { Db } from '../store/db.ts';
import { openDb } from '../store/open-db.ts';
import type { Closers } from './closers.ts';
import type { Log } from './start-log.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';
import type { FetchLike } from '../support/fetch-like.ts';

export interface Infrastructure {
  localnet: RunningLocalnet | null;
  db: Db;
  chain: SolanaChain;
}

/** The embedded chain (unless SOLANA_RPC_URL), the store and the chain client: closed last, in reverse. */
export async function buildInfrastructure(config: HushConfig, log: Log, closers: Closers, clock: Clock, random: Random, host: { store?: Db; fetch?: FetchLike } = {}): Promise<Infrastructure> {
  const localnet = config.solanaRpcUrl
    ? null
    : await startLocalnet(
        { host: '127.0.0.1', port: config.localnetPort, wsPort: config.localnetWsPort, slotMs: config.localnetSlotMs, dataDir: config.dataDir, ...localnetExtrasFromEnv(config.localnetEnv ?? {}) },
        clock,
        random,
        log,
      );
  if (localnet) closers.add(() => localnet.close());
  // A store the host opened (the simulator's, shared by its processes' lives) stays the host's to close.
  const db = host.store ?? (await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, schema: config.databaseSchema, clock }));
  if (!host.store) closers.add(() => db.close());
  const chain = new SolanaChain(config.solanaRpcUrl ?? localnet!.url, clock, config.slotMs, config.rpcTimeoutMs, config.rpcMaxRps, host.fetch);
  chain.startBackgroundRefresh();
  closers.add(() => chain.stop());
  return { localnet, db, chain };
}
