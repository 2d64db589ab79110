/**
 * The admin CLI finds a running Hush from the environment the server reads (issue 37): a real Hush on
 * PORT (its ops listener at PORT + 1, as by default), and `npm run admin` as a child process given only
 * that environment. A server with its admin API off is named as such, with how to turn it on; one slow to
 * answer its health probe is still taken for a server, never for an empty address.
 */
import assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { after, before, describe, it } from 'node:test';
import { serverUrl } from '../../src/cli/admin-cli.ts';
import { loadConfig } from '../../src/config/config.ts';
import { startTestHush, type TestHush } from '../support/hush-server.ts';
import { cliEnv, json, runChild, runInProcess, tempDir } from './admin-cli-harness.ts';

function listen(port: number): Promise<ReturnType<typeof createServer> | null> {
  const srv = createServer();
  return new Promise((resolve) => {
    srv.once('error', () => resolve(null));
    srv.listen(port, '127.0.0.1', () => resolve(srv));
  });
}

/** A free port whose successor is free too: PORT and the default ops port PORT + 1. */
async function freePortPair(): Promise<number> {
  for (let attempt = 0; attempt < 50; attempt++) {
    const a = await listen(0);
    const port = (a!.address() as { port: number }).port;
    const b = port < 65535 ? await listen(port + 1) : null;
    await new Promise<void>((r) => a!.close(() => r()));
    if (b) {
      await new Promise<void>((r) => b.close(() => r()));
      return port;
    }
  }
  throw new Error('no two consecutive free ports');
}

/** The variables the CLI is given: the ones the server was started with that say where it is. */
function sameEnv(t: TestHush, extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  return cliEnv({ PORT: String(t.hush.config.port), DATA_DIR: t.hush.config.dataDir, ...extra });
}

describe('admin CLI: the ops address is the server\'s own reading of the environment', () => {
  it('serverUrl agrees with loadConfig for PORT, HUSH_OPS_PORT and HUSH_OPS_HOST', () => {
    for (const env of [{}, { PORT: '9000' }, { PORT: '0' }, { PORT: '9000', HUSH_OPS_PORT: '9500' }, { HUSH_OPS_HOST: '10.1.2.3', PORT: '7000' }]) {
      const c = loadConfig(env);
      assert.equal(serverUrl(env), `http://${c.opsHost}:${c.opsPort}`, JSON.stringify(env));
    }
  });

  it('a PORT the server would refuse is named (exit 1), not replaced by a default', async () => {
    const r = await runInProcess(['list-accounts'], cliEnv({ PORT: 'eighty', DATA_DIR: tempDir() }));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /^error: PORT must be an integer/);
  });
});

describe('admin CLI: against a running Hush, from the same environment', () => {
  let on: TestHush;
  let off: TestHush;
  before(async () => {
    on = await startTestHush({ admin: true, env: { PORT: String(await freePortPair()) } });
    off = await startTestHush({ env: { PORT: String(await freePortPair()) } });
  });
  after(async () => {
    await on?.close();
    await off?.close();
  });

  it('`npm run admin -- list-accounts` with PORT, DATA_DIR and the admin token reaches it (its demo partner is listed)', async () => {
    assert.equal(on.hush.config.opsPort, on.hush.config.port + 1, 'the server uses the default ops port');
    const r = await runChild(['list-accounts'], sameEnv(on, { HUSH_ADMIN_TOKEN: on.adminToken! }));
    const accounts = json(r).accounts.map((a: { accountId: string }) => a.accountId);
    assert.ok(on.hush.demo, 'the embedded chain made a demo partner');
    assert.ok(accounts.includes(on.hush.demo.accountId), `listed: ${accounts.join(', ')}`);
  });

  it('without the token it refuses the PGlite store the server holds, and says how to go through the admin API', async () => {
    const r = await runInProcess(['list-accounts'], sameEnv(on));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, new RegExp(`listening at http://127\\.0\\.0\\.1:${on.hush.config.opsPort}`));
    assert.match(r.stderr, /Set HUSH_ADMIN_TOKEN to the server's admin token/);
  });

  it('a server started without HUSH_ADMIN_TOKEN: the CLI says its admin API is off and how to turn it on', async () => {
    const withToken = await runChild(['list-accounts'], sameEnv(off, { HUSH_ADMIN_TOKEN: on.adminToken! }));
    assert.equal(withToken.code, 1, withToken.stdout + withToken.stderr);
    assert.equal(withToken.stdout, '');
    assert.match(withToken.stderr, /^error: the server at http:\/\/127\.0\.0\.1:\d+ answers, but its admin API is off: restart it with HUSH_ADMIN_TOKEN set \(make one with: openssl rand -base64 32\) and give this CLI the same HUSH_ADMIN_TOKEN\n$/);
    const noToken = await runInProcess(['list-accounts'], sameEnv(off));
    assert.equal(noToken.code, 1);
    assert.match(noToken.stderr, /a server started without one has its admin API off: restart it with HUSH_ADMIN_TOKEN set/);
  });
});

describe('admin CLI: a server slow to answer is still the server', () => {
  // An ops listener that takes 2.5 s to answer /healthz (a loaded machine) and answers the admin API at once.
  let slow: Server;
  let url: string;
  const seen: string[] = [];
  before(async () => {
    slow = createHttpServer((req, res) => {
      seen.push(`${req.method} ${req.url}`);
      const answer = () => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify(req.url === '/healthz' ? { ok: true } : { success: true, accounts: [] }));
      if (req.url === '/healthz') setTimeout(answer, 2_500).unref();
      else answer();
    });
    await new Promise<void>((r) => slow.listen(0, '127.0.0.1', r));
    url = `http://127.0.0.1:${(slow.address() as AddressInfo).port}`;
  });
  after(async () => {
    slow.closeAllConnections();
    await new Promise<void>((r) => slow.close(() => r()));
  });

  it('with HUSH_ADMIN_TOKEN, a /healthz that times out still sends the command to the server; no local store is made', async () => {
    const dataDir = tempDir();
    const r = await runInProcess(['list-accounts'], cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: url, HUSH_ADMIN_TOKEN: 'a-token' }));
    assert.deepEqual(json(r), { success: true, accounts: [] });
    assert.ok(seen.includes('GET /admin/v1/accounts'), `the server got: ${seen.join(', ')}`);
    assert.equal(existsSync(join(dataDir, 'pgdata')), false, 'no local store was opened');
  });

  it('without the token, on PGlite, it refuses rather than open a store beside a server that may hold it', async () => {
    const dataDir = tempDir();
    const r = await runInProcess(['create-account', 'Beside a busy server'], cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: url }));
    assert.equal(r.code, 1, r.stdout + r.stderr);
    assert.match(r.stderr, /listening at .*PGlite/);
    assert.equal(existsSync(join(dataDir, 'pgdata')), false);
  });
});
