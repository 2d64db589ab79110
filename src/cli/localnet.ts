import { localnetConfigFromEnv } from '../localnet/localnet-config.ts';
import { startLocalnet } from '../localnet/start-localnet.ts';
import { systemClock } from '../support/clock.ts';
import { systemRandom } from '../support/random.ts';

const config = localnetConfigFromEnv();
// The composition root of the standalone chain: the system's clock and randomness.
const net = await startLocalnet(config, systemClock, systemRandom, (m) => console.log(m));
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
