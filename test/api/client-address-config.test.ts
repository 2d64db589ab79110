/** HUSH_TRUST_PROXY and HUSH_ANONYMOUS_RATE_LIMIT as loadConfig reads them (anonymous-limits.test.ts runs them). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';

test('HUSH_TRUST_PROXY: off by default; true, or proxy addresses and CIDR ranges; anything else (a hop count too) refuses to start', () => {
  const trust = (v?: string) => loadConfig(v === undefined ? {} : { HUSH_TRUST_PROXY: v }).trustProxy;
  assert.equal(trust(), false);
  assert.equal(trust('false'), false);
  assert.equal(trust('true'), true);
  assert.equal(trust('10.0.0.0/8, 192.168.1.7,::1,fd00::/8'), '10.0.0.0/8, 192.168.1.7,::1,fd00::/8');
  for (const bad of ['yes', '10.0.0.0/33', '::1/129', '10.0.0.1/8/2', 'proxy.internal', '10.0.0.1,', '-1', '2']) {
    assert.throws(() => trust(bad), ConfigError, bad);
  }
});

test('HUSH_ANONYMOUS_RATE_LIMIT: 10 per second by default, a positive integer otherwise', () => {
  assert.equal(loadConfig({}).anonymousRateLimit, 10);
  assert.equal(loadConfig({ HUSH_ANONYMOUS_RATE_LIMIT: '3' }).anonymousRateLimit, 3);
  for (const bad of ['0', '1.5', 'x']) assert.throws(() => loadConfig({ HUSH_ANONYMOUS_RATE_LIMIT: bad }), ConfigError, bad);
});
