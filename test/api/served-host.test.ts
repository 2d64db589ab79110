/** The ops listener's Host check (src/api/served-host.ts) and HUSH_OPS_HOSTNAMES. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { hostnameOf, servedHost } from '../../src/api/served-host.ts';
import { httpSettings } from '../../src/config/http-settings.ts';

describe('the ops listener\'s host names', () => {
  test('address literals (v4, bracketed v6, with or without a port), localhost and the configured names are served; other names, empty or missing hosts are not', () => {
    const names = new Set(['ops.internal']);
    for (const host of ['127.0.0.1', '127.0.0.1:8788', '10.1.2.3:9', '[::1]:8788', '[fd00::5]', 'localhost:8788', 'LocalHost', 'ops.internal:8788', 'OPS.internal.']) {
      assert.equal(servedHost(host, names), true, host);
    }
    for (const host of [undefined, '', 'evil.example', 'evil.example:8788', 'localhost.evil.example', 'ops.internal.evil.example', '127.0.0.1.nip.io', '[evil.example]']) {
      assert.equal(servedHost(host, names), false, String(host));
    }
    assert.equal(hostnameOf('[::1]:80'), '::1');
    assert.equal(hostnameOf('Example.COM.:443'), 'example.com');
  });

  test('HUSH_OPS_HOSTNAMES: names separated by commas; an address, a port or a malformed name refuses the start', () => {
    assert.deepEqual(httpSettings({}).opsHostnames, []);
    assert.deepEqual(httpSettings({ HUSH_OPS_HOSTNAMES: 'ops.internal, Hush-Ops.Example.' }).opsHostnames, ['ops.internal', 'hush-ops.example']);
    for (const bad of ['ops.internal:8788', 'http://ops', 'a b', '-bad.example']) {
      assert.throws(() => httpSettings({ HUSH_OPS_HOSTNAMES: bad }), /HUSH_OPS_HOSTNAMES/, bad);
    }
  });
});
