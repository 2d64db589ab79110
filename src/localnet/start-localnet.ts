import type { FastifyInstance } from 'fastify';
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
  close(): Promise<void>;
}

/**
 * Opens (or creates) the chain under the data directory, starts its slots on `clock` and serves JSON-RPC
 * and PubSub (its heartbeat on the same clock); `random` seeds a new chain's genesis hash.
 */
export async function startLocalnet(config: LocalnetConfig, clock: Clock, random: Random, log: (msg: string) => void = () => {}): Promise<RunningLocalnet> {
  const chain = await LocalChain.open({ dataDir: config.dataDir, slotMs: config.slotMs, clock, random, log });
  const server = buildRpcServer(chain);
  const address = await server.listen({ host: config.host, port: config.port });
  let pubsub: RunningPubSub;
  try {
    pubsub = await startPubSubServer(chain, { host: config.host, port: wsPortOf(config), log }).catch(async (e: NodeJS.ErrnoException) => {
      // Only the derived port may move: a busy RPC port + 1 must not keep the chain (and its HTTP API) down.
      if (config.wsPort !== undefined || e.code !== 'EADDRINUSE') throw e;
      const moved = await startPubSubServer(chain, { host: config.host, port: 0, log });
      log(`localnet: port ${wsPortOf(config)} is in use; PubSub moved to ${moved.url} (set LOCALNET_WS_PORT to choose)`);
      return moved;
    });
  } catch (e) {
    await server.close();
    chain.close();
    throw e;
  }
  chain.start();
  setEndpoints(chain, { rpc: hostPort(address), pubsub: hostPort(pubsub.url) });
  let closed = false;
  return {
    chain,
    server,
    pubsub,
    wsUrl: pubsub.url,
    url: address.replace('[::1]', '127.0.0.1'),
    async close() {
      if (closed) return;
      closed = true;
      await pubsub.close();
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
