import { pino } from 'pino';
import { loadConfig, DEFAULT_PORT, type HushConfig } from '../config/config.ts';
import { logs } from '../config/log-level.ts';
import { startHush } from '../runtime/start-hush.ts';
import { startFailureMessage } from '../runtime/start-errors.ts';
import { logSafeUrl } from '../config/log-safe-url.ts';
import { systemClock } from '../support/clock.ts';
import { systemRandom } from '../support/random.ts';

let config: HushConfig | null = null;

/** A failed start is one line and exit code 1: the cause and the variable to change, not a stack. */
function failStart(e: unknown): never {
  process.stderr.write(`hush: cannot start: ${startFailureMessage(e, config)}\n`);
  process.exit(1);
}

try {
  config = loadConfig();
} catch (e) {
  failStart(e);
}
const cfg = config;
/** The worker's records and every ALERT as JSON lines (`alert: <kind>` on ALERTs), beside the API's own pino log. */
const records = pino({ base: { component: 'hush' }, level: cfg.logLevel });
// Start-up and worker text lines are info: LOG_LEVEL=warn (or above) keeps only ALERTs and errors.
const info = logs(cfg.logLevel, 'info') ? (m: string) => console.log(m) : () => {};
// The composition root: production's clock and randomness are the system's.
const hush = await startHush(cfg, { clock: systemClock, random: systemRandom, log: info, records: (level, fields, msg) => records[level](fields, msg), logger: { level: cfg.logLevel } }).catch(failStart);
// Before the ready line: a supervisor that stops Hush as soon as it reads that line gets a drain, not the
// default action of a signal nobody handles yet (an exit by the signal, nothing drained).
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
console.log(`hush: ${cfg.role} role; API ${hush.url ?? '(off)'}; ops ${hush.opsUrl}; chain ${logSafeUrl(hush.chain.url)}; store ${cfg.databaseUrl ? 'PostgreSQL' : `PGlite in ${cfg.dataDir}`}`);
if (hush.localnet) console.log(`hush: embedded chain PubSub WebSocket at ${hush.localnet.wsUrl}`);
console.log(`hush: ops listener at ${hush.opsUrl}: /healthz, /readyz, /metrics${cfg.adminToken ? ', /admin/v1' : ''} (not for partners)`);
/** The variables a command run beside this server needs to find it (only those that differ from the defaults). */
const sameEnv = [cfg.port !== DEFAULT_PORT ? `PORT=${cfg.port}` : '', process.env.HUSH_OPS_PORT ? `HUSH_OPS_PORT=${cfg.opsPort}` : '', process.env.DATA_DIR ? `DATA_DIR=${cfg.dataDir}` : '']
  .filter(Boolean)
  .join(' ');
const withEnv = (cmd: string) => (sameEnv ? `${sameEnv} ${cmd}` : cmd);
console.log(
  cfg.adminToken
    ? `hush: admin API on: HUSH_ADMIN_TOKEN=<this server's token> ${withEnv('npm run admin -- list-accounts')}`
    : `hush: admin API off: to turn it on, restart with HUSH_ADMIN_TOKEN=$(openssl rand -base64 32) and give \`npm run admin\` the same HUSH_ADMIN_TOKEN`,
);
if (hush.demo) {
  console.log(`hush: demo partner ${hush.demo.accountId}, API key ${hush.demo.apiKey}`);
  console.log(`hush: demo fee recipient ${hush.demo.feeRecipientAddress}; saved to ${cfg.dataDir}/demo-account.json`);
}
if (hush.url) {
  const api = hush.url.replace('[::1]', '127.0.0.1');
  // The demo funds its senders on the chain Hush reads: name it when it is not the embedded default.
  const chainUrl = hush.chain.url.replace('[::1]', '127.0.0.1');
  const demoEnv = [
    api !== `http://127.0.0.1:${DEFAULT_PORT}` ? `HUSH_URL=${api}` : '',
    process.env.DATA_DIR ? `DATA_DIR=${cfg.dataDir}` : '',
    chainUrl !== 'http://127.0.0.1:8899' ? `SOLANA_RPC_URL=${chainUrl}` : '',
  ].filter(Boolean).join(' ');
  if (hush.demo) console.log(`hush: next: in another terminal, ${demoEnv ? `${demoEnv} ` : ''}npm run demo (quotes, orders and sends through this server as the demo partner)`);
  console.log(`hush: call the API: curl -H "authorization: Bearer <API key>" ${api}/transfer/v1/tokens (reference: ${api}/docs)`);
}

