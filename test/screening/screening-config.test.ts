/** HUSH_SCREENING_* (docs/spec.md §11, §12): defaults, and a bad value stops the start with the variable named. */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError } from '../../src/config/config-error.ts';
import { screeningSettings } from '../../src/config/screening-settings.ts';

describe('screening settings', () => {
  it('defaults: no lists, no provider, 2 s timeout, 10 min cache, hold on error, 40 provider calls a second per account', () => {
    assert.deepEqual(screeningSettings({}), { screeningLists: [], screeningTimeoutMs: 2000, screeningCacheTtlS: 600, screeningOnError: 'hold', screeningReloadMs: 5000, screeningRatePerAccount: 40 });
  });
  it('reads the lists, the provider and the policy', () => {
    const s = screeningSettings({ HUSH_SCREENING_LISTS: ' a.csv, ,b.txt', HUSH_SCREENING_URL: 'https://risk.example', HUSH_SCREENING_KEY: 'k', HUSH_SCREENING_ON_ERROR: 'allow' });
    assert.deepEqual(s.screeningLists, ['a.csv', 'b.txt']);
    assert.equal(s.screeningUrl, 'https://risk.example');
    assert.equal(s.screeningKey, 'k');
    assert.equal(s.screeningOnError, 'allow');
  });
  it('refuses a bad policy, URL or timeout', () => {
    assert.throws(() => screeningSettings({ HUSH_SCREENING_ON_ERROR: 'ignore' }), (e: Error) => e instanceof ConfigError && /HUSH_SCREENING_ON_ERROR/.test(e.message));
    assert.throws(() => screeningSettings({ HUSH_SCREENING_URL: 'ftp://x' }), /HUSH_SCREENING_URL/);
    assert.throws(() => screeningSettings({ HUSH_SCREENING_URL: 'not a url' }), /HUSH_SCREENING_URL/);
    assert.throws(() => screeningSettings({ HUSH_SCREENING_TIMEOUT_MS: '5' }), /HUSH_SCREENING_TIMEOUT_MS/);
  });
});
