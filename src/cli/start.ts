import { pino } from 'pino';
import { loadConfig } from '../config/config.ts';
import { startHush } from '../runtime/start-hush.ts';
import { logSafeUrl } from '../config/log-safe-url.ts';

/** A failed start is one line and exit code 1: the cause, not a stack (which could carry SQL or a connection string). */
function failStart(e: unknown): never {
  const err = e as { message?: string; code?: string };
  process.stderr.write(`hush: cannot start: ${err?.message || err?.code || String(e)}\n`);
  process.exit(1);
}

const config = (() => {
  try {
    return loadConfig();
  } catch (e) {
    return failStart(e);
  }
})();
/** The worker's records and every ALERT as JSON lines (`alert: <kind>` on ALERTs), beside the API's own pino log. */
const records = pino({ base: { component: 'hush' } });
const hush = await startHush(config, { log: (m) => console.log(m), records: (level, fields, msg) => records[level](fields, msg), logger: true }).catch(failStart);
console.log(`hush: ${config.role} role; API ${hush.url ?? '(off)'}; ops ${hush.opsUrl}; chain ${logSafeUrl(hush.chain.url)}; store ${config.databaseUrl ? 'PostgreSQL' : `PGlite in ${config.dataDir}`}`);
if (hush.localnet) console.log(`hush: embedded chain PubSub WebSocket at ${hush.localnet.wsUrl}`);
console.log(`hush: ops listener at ${hush.opsUrl}: /healthz, /readyz, /metrics${config.adminToken ? ', /admin/v1' : ''} (not for partners)`);
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
