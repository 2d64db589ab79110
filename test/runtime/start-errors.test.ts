/**
 * `npm start` as an operator meets it (issue 37): LOG_LEVEL, a port clash that names the variable to change,
 * and a start banner that says what to run next, with polls and health checks logged at debug.
 */
import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { LOG_LEVELS } from '../../src/config/log-level.ts';
import { startFailureMessage } from '../../src/runtime/start-errors.ts';
import { cliCommand } from '../support/cli-command.ts';
import { spawnHush } from '../support/hush-process.ts';
import { REPO_ROOT, makeTempDir, removeDir } from '../support/localnet.ts';

/** `src/cli/start.ts` in a child (support/cli-command.ts) that is expected to fail: its exit code and stderr. */
function failedStart(env: Record<string, string>): Promise<{ code: number | null; stderr: string }> {
  const dataDir = makeTempDir('hush-start-errors-');
  const child = spawn(process.execPath, cliCommand('start'), {
    cwd: REPO_ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '', TMPDIR: process.env.TMPDIR ?? '', DATA_DIR: dataDir, PORT: '0', LOCALNET_PORT: '0', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stderr = '';
  child.stderr.setEncoding('utf8').on('data', (d) => (stderr += d));
  child.stdout.resume();
  const timer = setTimeout(() => child.kill('SIGKILL'), 120_000);
  return new Promise((resolve) =>
    child.on('exit', (code) => {
      clearTimeout(timer);
      removeDir(dataDir);
      resolve({ code, stderr });
    }),
  );
}

async function occupied(): Promise<{ port: number; server: Server }> {
  const server = createServer();
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return { port: (server.address() as { port: number }).port, server };
}

test('LOG_LEVEL: info by default; each pino level; anything else refuses to start naming LOG_LEVEL', async () => {
  assert.equal(loadConfig({}).logLevel, 'info');
  assert.equal(loadConfig({ LOG_LEVEL: '' }).logLevel, 'info');
  for (const level of LOG_LEVELS) assert.equal(loadConfig({ LOG_LEVEL: level }).logLevel, level);
  for (const bad of ['verbose', 'INFO', 'warning', '30']) {
    assert.throws(() => loadConfig({ LOG_LEVEL: bad }), (e: unknown) => e instanceof ConfigError && /^LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "/.test(e.message), bad);
  }
  const r = await failedStart({ LOG_LEVEL: 'loud' });
  assert.equal(r.code, 1);
  assert.equal(r.stderr, 'hush: cannot start: LOG_LEVEL must be one of trace, debug, info, warn, error, fatal, silent, got "loud"\n');
});

test('a partner port in use: one line naming PORT (exit 1)', async () => {
  const { port, server } = await occupied();
  try {
    const r = await failedStart({ PORT: String(port), HUSH_OPS_PORT: '0' });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, `hush: cannot start: port ${port} is in use: set PORT (or HUSH_OPS_PORT for the ops listener)\n`);
  } finally {
    server.close();
  }
});

test('an ops port in use: names HUSH_OPS_PORT; the message for each listener names its variable', async () => {
  const { port, server } = await occupied();
  try {
    const r = await failedStart({ HUSH_OPS_PORT: String(port) });
    assert.equal(r.code, 1, r.stderr);
    assert.equal(r.stderr, `hush: cannot start: port ${port} is in use: set HUSH_OPS_PORT (the ops listener; it defaults to PORT + 1)\n`);
  } finally {
    server.close();
  }
  const config = loadConfig({ PORT: '9000', LOCALNET_PORT: '9100', LOCALNET_WS_PORT: '9200' });
  const inUse = (p: number) => startFailureMessage(Object.assign(new Error('listen EADDRINUSE'), { code: 'EADDRINUSE', port: p }), config);
  assert.match(inUse(9100), /^port 9100 is in use: set LOCALNET_PORT/);
  assert.match(inUse(9200), /^port 9200 is in use: set LOCALNET_WS_PORT/);
  assert.equal(startFailureMessage(new Error('boom'), config), 'boom');
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:1'), { code: 'ECONNREFUSED' });
  assert.equal(startFailureMessage(refused, loadConfig({ DATABASE_URL: 'postgres://127.0.0.1:1/x' })), 'connect ECONNREFUSED 127.0.0.1:1: check DATABASE_URL');
});

test('the start banner says what to run next; status polls and health checks are logged at debug only', async () => {
  const dataDir = makeTempDir('hush-start-banner-');
  const hush = await spawnHush({ DATA_DIR: dataDir, PORT: '0', LOCALNET_PORT: '0', LOG_LEVEL: 'debug' });
  try {
    await fetch(`${hush.opsUrl}/healthz`).then((r) => r.arrayBuffer());
    await fetch(`${hush.url}/transfer/v1/status/trk_1111111111111111111111`).then((r) => r.arrayBuffer());
    await fetch(`${hush.url}/transfer/v1/tokens`).then((r) => r.arrayBuffer());
    const deadline = Date.now() + 10_000;
    const records = () =>
      hush
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes('"request completed"'))
        .map((l) => JSON.parse(l) as { level: number; req: { url: string } });
    while (records().length < 3 && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
    const levelOf = (url: string) => records().find((r) => r.req.url === url)?.level;
    assert.equal(levelOf('/healthz'), 20, 'a health check is a debug record');
    assert.equal(levelOf('/transfer/v1/status/trk_1111111111111111111111'), 20, 'a status poll is a debug record');
    assert.equal(levelOf('/transfer/v1/tokens'), 30, 'any other request is an info record');

    const out = hush.output();
    assert.match(out, /^hush: admin API off: to turn it on, restart with HUSH_ADMIN_TOKEN=\$\(openssl rand -base64 32\)/m);
    assert.match(out, new RegExp(`^hush: next: in another terminal, HUSH_URL=${hush.url!.replace(/[.]/g, '\\.')} DATA_DIR=\\S+ SOLANA_RPC_URL=http://127\\.0\\.0\\.1:\\d+ npm run demo`, 'm'));
    assert.match(out, /^hush: call the API: curl -H "authorization: Bearer <API key>" http:\/\/127\.0\.0\.1:\d+\/transfer\/v1\/tokens/m);
  } finally {
    await hush.stop('SIGTERM');
    removeDir(dataDir);
  }
});
