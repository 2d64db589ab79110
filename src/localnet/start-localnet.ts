import type { FastifyInstance } from 'fastify';
import { laggingView } from './lagging-view.ts';
import { LocalChain } from './local-chain.ts';
import { setEndpoints } from './node-info.ts';
import type { LocalnetConfig } from './localnet-config.ts';
import { startPubSubServer, type RunningPubSub } from './pubsub-server.ts';
import { buildRpcServer } from './rpc-server.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

export interface RunningLocalnet {
  chain: LocalChain;
  server: FastifyInstance;
  url: string;
  /** The PubSub WebSocket API (conventionally the RPC port + 1). */
  pubsub: RunningPubSub;
  wsUrl: string;
  /** The lagging endpoint's URL (config.lagging), or null. */
  laggingUrl: string | null;
  close(): Promise<void>;
}

/**
 * Opens (or creates) the chain under the data directory, starts its slots on `clock` and serves JSON-RPC
 * and PubSub (its heartbeat on the same clock); `random` seeds a new chain's genesis hash.
 */
export async function startLocalnet(config: LocalnetConfig, clock: Clock, random: Random, log: (msg: string) => void = () => {}): Promise<RunningLocalnet> {
  const chain = await LocalChain.open({ dataDir: config.dataDir, slotMs: config.slotMs, clock, random, log, congestion: config.congestion ?? null });
  const server = buildRpcServer(chain);
  const address = await server.listen({ host: config.host, port: config.port });
  const lagging = config.lagging ? buildRpcServer(laggingView(chain, config.lagging.slots)) : null;
  let pubsub: RunningPubSub;
  let laggingAddress: string | null = null;
  try {
    if (lagging && config.lagging) laggingAddress = await lagging.listen({ host: config.host, port: config.lagging.port });
    pubsub = await startPubSubServer(chain, { host: config.host, port: wsPortOf(config), log }).catch(async (e: NodeJS.ErrnoException) => {
      // Only the derived port may move: a busy RPC port + 1 must not keep the chain (and its HTTP API) down.
      if (config.wsPort !== undefined || e.code !== 'EADDRINUSE') throw e;
      const moved = await startPubSubServer(chain, { host: config.host, port: 0, log });
      log(`localnet: port ${wsPortOf(config)} is in use; PubSub moved to ${moved.url} (set LOCALNET_WS_PORT to choose)`);
      return moved;
    });
  } catch (e) {
    await lagging?.close();
    await server.close();
    chain.close();
    throw e;
  }
  chain.start();
  if (config.congestion) log(`localnet: congested (${config.congestion.profile}, seed ${config.congestion.seed}, drop rate ${config.congestion.dropRate})`);
  if (laggingAddress) log(`localnet: an RPC endpoint ${config.lagging!.slots} slots behind at ${laggingAddress}`);
  setEndpoints(chain, { rpc: hostPort(address), pubsub: hostPort(pubsub.url) });
  let closed = false;
  return {
    chain,
    server,
    pubsub,
    wsUrl: pubsub.url,
    url: address.replace('[::1]', '127.0.0.1'),
    laggingUrl: laggingAddress?.replace('[::1]', '127.0.0.1') ?? null,
    async close() {
      if (closed) return;
      closed = true;
      await pubsub.close();
      await lagging?.close();
      await server.close();
      chain.close();
    },
  };
}

/** RPC port + 1 as a validator does, unless set; an ephemeral RPC port (0) gets an ephemeral one too. */
export function wsPortOf(config: Pick<LocalnetConfig, 'port' | 'wsPort'>): number {
  if (config.wsPort !== undefined) return config.wsPort;
  return config.port === 0 ? 0 : config.port + 1;
}

/** host:port of a URL, as getClusterNodes reports endpoints. */
function hostPort(url: string): string {
  return new URL(url.replace('[::1]', '127.0.0.1')).host;
}
