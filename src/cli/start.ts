import { loadConfig } from '../config/config.ts';
import { startHush } from '../runtime/start-hush.ts';

const config = loadConfig();
const hush = await startHush(config, { log: (m) => console.log(m), logger: true });
console.log(`hush: ${config.role} role; API ${hush.url ?? '(off)'}; chain ${hush.chain.url}; store ${config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`}`);
if (hush.demo) {
  console.log(`hush: demo partner ${hush.demo.accountId}, API key ${hush.demo.apiKey}`);
  console.log(`hush: demo fee recipient ${hush.demo.feeRecipientAddress}; saved to ${config.dataDir}/demo-account.json`);
}

let stopping = false;
async function stop(signal: string) {
  if (stopping) return;
  stopping = true;
  console.log(`hush: ${signal}, draining and shutting down`);
  await hush.close();
  process.exit(0);
}
process.on('SIGTERM', () => void stop('SIGTERM'));
process.on('SIGINT', () => void stop('SIGINT'));
