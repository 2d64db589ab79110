import { localnetConfigFromEnv } from '../localnet/localnet-config.ts';
import { startLocalnet } from '../localnet/start-localnet.ts';

const config = localnetConfigFromEnv();
const net = await startLocalnet(config, (m) => console.log(m));
console.log(`localnet: Solana JSON-RPC at ${net.url} (slot ${config.slotMs} ms, data in ${config.dataDir})`);
console.log(`localnet: Solana PubSub WebSocket at ${net.wsUrl}`);
console.log(`localnet: faucet ${net.chain.faucet.address}`);

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`localnet: ${signal}, shutting down`);
  await net.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
