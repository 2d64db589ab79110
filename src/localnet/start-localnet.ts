import type { FastifyInstance } from 'fastify';
import { LocalChain } from './local-chain.ts';
import type { LocalnetConfig } from './localnet-config.ts';
import { buildRpcServer } from './rpc-server.ts';

export interface RunningLocalnet {
  chain: LocalChain;
  server: FastifyInstance;
  url: string;
  close(): Promise<void>;
}

/** Opens (or creates) the chain under the data directory, starts its clock and serves JSON-RPC. */
export async function startLocalnet(config: LocalnetConfig, log: (msg: string) => void = () => {}): Promise<RunningLocalnet> {
  const chain = await LocalChain.open({ dataDir: config.dataDir, slotMs: config.slotMs, log });
  const server = buildRpcServer(chain);
  const address = await server.listen({ host: config.host, port: config.port });
  chain.start();
  let closed = false;
  return {
    chain,
    server,
    url: address.replace('[::1]', '127.0.0.1'),
    async close() {
      if (closed) return;
      closed = true;
      await server.close();
      chain.close();
    },
  };
}
