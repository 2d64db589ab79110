/** Settings as loadConfig reads them (docs/spec.md §11 and docs/configuration.md's table); anonymous-limits.test.ts runs the proxy ones. */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

test('HUSH_TRUST_PROXY: off by default; proxy addresses and CIDR ranges; anything else (a hop count, or true: every hop) refuses to start', () => {
  const trust = (v?: string) => loadConfig(v === undefined ? {} : { HUSH_TRUST_PROXY: v }).trustProxy;
  assert.equal(trust(), false);
  assert.equal(trust('false'), false);
  assert.equal(trust('10.0.0.0/8, 192.168.1.7,::1,fd00::/8'), '10.0.0.0/8, 192.168.1.7,::1,fd00::/8');
  for (const bad of ['true', '0.0.0.0/0', '10.0.0.0/8,::/0', 'yes', '10.0.0.0/33', '::1/129', '10.0.0.1/8/2', 'proxy.internal', '10.0.0.1,', '-1', '2']) {
    assert.throws(() => trust(bad), ConfigError, bad);
  }
});

test('HUSH_ANONYMOUS_RATE_LIMIT: 10 per second by default, a positive integer otherwise', () => {
  assert.equal(loadConfig({}).anonymousRateLimit, 10);
  assert.equal(loadConfig({ HUSH_ANONYMOUS_RATE_LIMIT: '3' }).anonymousRateLimit, 3);
  for (const bad of ['0', '1.5', 'x']) assert.throws(() => loadConfig({ HUSH_ANONYMOUS_RATE_LIMIT: bad }), ConfigError, bad);
});

test('HUSH_PAYOUT_DELAY_S: 5-30 when unset or empty (like every other variable, HUSH_ROLE too), else min-max with min ≤ max', () => {
  assert.deepEqual(loadConfig({}).payoutDelayS, { min: 5, max: 30 });
  assert.deepEqual(loadConfig({ HUSH_PAYOUT_DELAY_S: '' }).payoutDelayS, { min: 5, max: 30 });
  for (const bad of ['30-5', '5', '-1-3', '5-30s', '1-86401', '99999999-999999999999']) assert.throws(() => loadConfig({ HUSH_PAYOUT_DELAY_S: bad }), ConfigError, bad);
  const longSpread = { HUSH_PRIVACY_MAX_DELAY_S: '86400', HUSH_PRIVACY_MAX_WAIT_S: '86400' };
  assert.throws(() => loadConfig({ ...longSpread, HUSH_PAYOUT_DELAY_S: '1-86400' }), /HUSH_PRIVACY_MAX_DELAY_S/, 'the spread must leave room in the budget');
  assert.deepEqual(loadConfig({ ...longSpread, HUSH_PAYOUT_DELAY_S: '1-86000' }).payoutDelayS, { min: 1, max: 86000 });
  // Milliseconds for time-compressed runs (bench:privacy); no finer.
  assert.deepEqual(loadConfig({ HUSH_PAYOUT_DELAY_S: '0.625-3.875' }).payoutDelayS, { min: 0.625, max: 3.875 });
  for (const bad of ['0.0001-1', '.5-1', '1.-2', '2.5-1.5']) assert.throws(() => loadConfig({ HUSH_PAYOUT_DELAY_S: bad }), ConfigError, bad);
  assert.equal(loadConfig({ HUSH_ROLE: '' }).role, 'all');
});

test('one settlement path (docs/spec.md §9): privacy cannot be switched off, and a payout window never starts at 0', () => {
  assert.doesNotThrow(() => loadConfig({ HUSH_PRIVACY: 'on' }), 'on is what it always is');
  for (const off of ['off', 'OFF', 'no', 'false', '0']) assert.throws(() => loadConfig({ HUSH_PRIVACY: off }), /privacy cannot be switched off/, off);
  for (const delay of ['0-0', '0-30', '0.000-5']) {
    assert.throws(() => loadConfig({ HUSH_PAYOUT_DELAY_S: delay }), /minimum must be above 0/, delay);
    assert.throws(() => loadConfig({ HUSH_PAYOUT_DELAY_S: delay }), ConfigError, delay);
  }
  assert.equal(loadConfig({ HUSH_PAYOUT_DELAY_S: '0.001-1' }).payoutDelayS.min, 0.001);
});

test('the private-amount menu, the target set and the delay budget (docs/spec.md §9, §11): defaults, overrides, and refusals that name the variable', () => {
  const d = loadConfig({});
  assert.deepEqual([d.denominationMenu, d.privacyTargetSet, d.privacyK, d.privacyMaxDelayS, d.privacyMaxWaitS], ['decade', 30, undefined, 840, 21_600]);
  assert.equal(loadConfig({ HUSH_PRIVACY_MAX_WAIT_S: '3600' }).privacyMaxWaitS, 3600);
  // The ceiling bounds every hold, the default one included.
  assert.throws(() => loadConfig({ HUSH_PRIVACY_MAX_WAIT_S: '600' }), /HUSH_PRIVACY_MAX_WAIT_S.*HUSH_PRIVACY_MAX_DELAY_S/);
  const set = loadConfig({ HUSH_DENOMINATIONS: '1-2-5', HUSH_PRIVACY_TARGET_SET: '28', HUSH_PRIVACY_K: '8', HUSH_PRIVACY_MAX_DELAY_S: '600' });
  assert.deepEqual([set.denominationMenu, set.privacyTargetSet, set.privacyK, set.privacyMaxDelayS], ['1-2-5', 28, 8, 600]);
  assert.ok(set.assets.get('usdc')!.denominations.includes(20_000_000n), 'the menu reaches the assets');
  assert.ok(!d.assets.get('usdc')!.denominations.includes(20_000_000n));
  for (const [name, bad] of [['HUSH_DENOMINATIONS', 'decimal'], ['HUSH_PRIVACY_TARGET_SET', '0'], ['HUSH_PRIVACY_TARGET_SET', '2.5'], ['HUSH_PRIVACY_K', '0'], ['HUSH_PRIVACY_MAX_DELAY_S', 'ten'], ['HUSH_PRIVACY_MAX_WAIT_S', '90000']] as const) {
    assert.throws(() => loadConfig({ [name]: bad }), (e: Error) => e instanceof ConfigError && e.message.includes(name), `${name}=${bad}`);
  }
  // The budget bounds the whole hold, the release's spread included: it must leave room for the spread and two passes.
  assert.throws(() => loadConfig({ HUSH_PRIVACY_MAX_DELAY_S: '30', HUSH_PAYOUT_DELAY_S: '5-30' }), /HUSH_PRIVACY_MAX_DELAY_S.*spread/);
  assert.throws(() => loadConfig({ HUSH_PRIVACY_MAX_DELAY_S: '32', HUSH_PAYOUT_DELAY_S: '5-30' }), /HUSH_PRIVACY_MAX_DELAY_S/);
  assert.equal(loadConfig({ HUSH_PRIVACY_MAX_DELAY_S: '32.5', HUSH_PAYOUT_DELAY_S: '5-30' }).privacyMaxDelayS, 32.5);
});

test('URL variables must parse with their scheme, and the error does not echo the value (it may hold a password)', () => {
  assert.equal(loadConfig({ SOLANA_RPC_URL: 'http://127.0.0.1:8899' }).solanaRpcUrl, 'http://127.0.0.1:8899');
  assert.equal(loadConfig({ DATABASE_URL: 'postgresql://u:p@db/x' }).databaseUrl, 'postgresql://u:p@db/x');
  assert.equal(loadConfig({ REDIS_URL: 'rediss://cache:6380/1' }).redisUrl, 'rediss://cache:6380/1');
  // The clients' other forms: a Redis unix socket path, pg's socket: URL.
  assert.equal(loadConfig({ REDIS_URL: '/run/redis/redis.sock' }).redisUrl, '/run/redis/redis.sock');
  assert.equal(loadConfig({ DATABASE_URL: 'socket:/var/run/postgresql?db=hush' }).databaseUrl, 'socket:/var/run/postgresql?db=hush');
  for (const [name, bad] of [
    ['SOLANA_RPC_URL', 'notaurl'],
    ['SOLANA_RPC_URL', 'ftp://x'],
    ['DATABASE_URL', 'garbage-secret'],
    ['DATABASE_URL', 'mysql://u:secret@db/x'],
    ['REDIS_URL', 'http://cache'],
  ] as const) {
    assert.throws(
      () => loadConfig({ [name]: bad }),
      (e: Error) => e instanceof ConfigError && e.message.startsWith(name) && !e.message.includes('secret') && !e.message.includes(bad),
      `${name}=${bad}`,
    );
  }
});

test('HUSH_ADMIN_TOKEN: unset or empty turns the admin API off; else at least 32 random bytes (64+ hex or 43+ base64 characters); a weaker one is refused with how to make one, never echoed', () => {
  assert.equal(loadConfig({}).adminToken, undefined);
  assert.equal(loadConfig({ HUSH_ADMIN_TOKEN: '' }).adminToken, undefined);
  const bytes = randomBytes(32);
  // openssl rand -hex 32, openssl rand -base64 32 (with its padding), base64url.
  for (const good of [bytes.toString('hex'), bytes.toString('base64'), bytes.toString('base64url')]) {
    assert.equal(loadConfig({ HUSH_ADMIN_TOKEN: good }).adminToken, good, good);
  }
  for (const bad of [
    'short-secret-token',
    'a'.repeat(32), // the old rule's minimum: 32 printable characters
    randomBytes(16).toString('hex'), // 32 hex characters: 16 bytes
    randomBytes(31).toString('base64url'), // 42 characters: 31 bytes
    'a'.repeat(64), // one character repeated
    '0123456789abcdef'.repeat(4), // a pattern repeated
    `${randomBytes(32).toString('base64url')} b`,
    `${randomBytes(32).toString('base64url')}\u00e9`,
    `${randomBytes(32).toString('base64url')}!`,
  ]) {
    assert.throws(
      () => loadConfig({ HUSH_ADMIN_TOKEN: bad }),
      (e: unknown) => e instanceof ConfigError && /HUSH_ADMIN_TOKEN/.test(e.message) && /openssl rand -base64 32/.test(e.message) && !e.message.includes(bad),
      bad,
    );
  }
});

test('HUSH_OPS_PORT / HUSH_OPS_HOST: PORT + 1 on loopback by default (0 when PORT is 0), never the partner port', () => {
  assert.deepEqual([loadConfig({}).opsPort, loadConfig({}).opsHost], [8788, '127.0.0.1']);
  assert.equal(loadConfig({ PORT: '9000' }).opsPort, 9001);
  assert.equal(loadConfig({ PORT: '0' }).opsPort, 0);
  assert.equal(loadConfig({ PORT: '0', HUSH_OPS_PORT: '0' }).opsPort, 0);
  assert.deepEqual([loadConfig({ HUSH_OPS_PORT: '9100', HUSH_OPS_HOST: '10.0.0.5' }).opsPort, loadConfig({ HUSH_OPS_HOST: '10.0.0.5' }).opsHost], [9100, '10.0.0.5']);
  for (const bad of [{ PORT: '9000', HUSH_OPS_PORT: '9000' }, { PORT: '65535' }, { HUSH_OPS_PORT: '70000' }, { HUSH_OPS_PORT: 'x' }]) {
    assert.throws(() => loadConfig(bad), ConfigError, JSON.stringify(bad));
  }
});

test('swaps get the order deadline and firm quotes unless an operator opts into HUSH_SWAP_ORDER_TTL_S / HUSH_SWAP_MAX_DRIFT_BPS', () => {
  const defaults = loadConfig({});
  assert.equal(defaults.swapOrderTtlS, null);
  assert.equal(defaults.swapMaxDriftBps, null);
  const set = loadConfig({ HUSH_SWAP_ORDER_TTL_S: '600', HUSH_SWAP_MAX_DRIFT_BPS: '200' });
  assert.equal(set.swapOrderTtlS, 600);
  assert.equal(set.swapMaxDriftBps, 200);
  assert.throws(() => loadConfig({ HUSH_SWAP_MAX_DRIFT_BPS: '10001' }), /HUSH_SWAP_MAX_DRIFT_BPS/);
});

test('HUSH_MAX_CONNECTIONS / HUSH_MAX_CONNECTIONS_PER_IP / HUSH_OPS_MAX_CONNECTIONS: 4096, 64 and 256 by default; a per-address cap above the total is refused', () => {
  const d = loadConfig({});
  assert.deepEqual([d.maxConnections, d.maxConnectionsPerIp, d.opsMaxConnections], [4096, 64, 256]);
  const set = loadConfig({ HUSH_MAX_CONNECTIONS: '100', HUSH_MAX_CONNECTIONS_PER_IP: '100', HUSH_OPS_MAX_CONNECTIONS: '8' });
  assert.deepEqual([set.maxConnections, set.maxConnectionsPerIp, set.opsMaxConnections], [100, 100, 8]);
  // A total below the default per-address cap lowers that default with it.
  assert.equal(loadConfig({ HUSH_MAX_CONNECTIONS: '32' }).maxConnectionsPerIp, 32);
  for (const [name, bad] of [['HUSH_MAX_CONNECTIONS', '15'], ['HUSH_MAX_CONNECTIONS', 'x'], ['HUSH_MAX_CONNECTIONS_PER_IP', '0'], ['HUSH_MAX_CONNECTIONS_PER_IP', '5000'], ['HUSH_OPS_MAX_CONNECTIONS', '7']] as const) {
    assert.throws(() => loadConfig({ [name]: bad }), (e: Error) => e instanceof ConfigError && e.message.includes(name), `${name}=${bad}`);
  }
});

test('every variable loadConfig reads is in the configuration table (docs/configuration.md), and the README points to it', () => {
  // Every file of src/config: each concern's settings are parsed in a file of their own.
  const dir = new URL('../../src/config/', import.meta.url);
  const source = readdirSync(dir).filter((f) => f.endsWith('.ts')).map((f) => readFileSync(new URL(f, dir), 'utf8')).join('\n');
  const readme = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  assert.match(readme, /\[docs\/configuration\.md\]\(docs\/configuration\.md\)/, 'the README links the full table');
  const table = readFileSync(new URL('../../docs/configuration.md', import.meta.url), 'utf8').split('\n').filter((l) => l.startsWith('| `'));
  const names = new Set([...source.matchAll(/env\.([A-Z][A-Z0-9_]+)/g), ...source.matchAll(/env, '([A-Z][A-Z0-9_]+)'/g)].map((m) => m[1]!));
  assert.ok(names.size > 30, `found ${names.size} variables`);
  const missing = [...names].filter((n) => !table.some((row) => row.split('|')[1]!.includes(`\`${n}\``)));
  assert.deepEqual(missing, []);
});

test('TREASURY_RETIRED_SEEDS: comma-separated seeds for workers, refused in the process facing partners and without TREASURY_SEED, never echoed', () => {
  const seed = 'ab'.repeat(32);
  const old = 'cd'.repeat(32);
  assert.deepEqual(loadConfig({ TREASURY_SEED: seed, TREASURY_RETIRED_SEEDS: ` ${old} , ${'ef'.repeat(32)},` }).retiredSeeds, [old, 'ef'.repeat(32)]);
  assert.equal(loadConfig({ TREASURY_SEED: seed }).retiredSeeds, undefined);
  assert.throws(() => loadConfig({ HUSH_ROLE: 'api', TREASURY_RETIRED_SEEDS: old }), (e: unknown) => e instanceof ConfigError && /TREASURY_RETIRED_SEEDS/.test(e.message) && !e.message.includes(old));
  assert.throws(() => loadConfig({ TREASURY_RETIRED_SEEDS: old }), (e: unknown) => e instanceof ConfigError && /needs TREASURY_SEED/.test(e.message) && /treasury:rotate/.test(e.message));
});
