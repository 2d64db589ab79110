/** HUSH_FEE_PRICING and HUSH_FEE_CAP_LAMPORTS (src/config/fee-settings.ts; README "Running on mainnet"). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { DEFAULT_FEE_CAPS } from '../../src/config/fee-settings.ts';

test('market pricing and the per-purpose caps by default; one figure for all, or pairs over the defaults', () => {
  const d = loadConfig({});
  assert.equal(d.feePricing, 'market');
  assert.deepEqual(d.feeCapLamports, DEFAULT_FEE_CAPS);
  assert.equal(loadConfig({ HUSH_FEE_PRICING: 'static' }).feePricing, 'static');
  assert.ok(Object.values(loadConfig({ HUSH_FEE_CAP_LAMPORTS: '300000' }).feeCapLamports).every((c) => c === 300_000n));
  assert.deepEqual(loadConfig({ HUSH_FEE_CAP_LAMPORTS: 'payout=2000000, sweep=50000' }).feeCapLamports, { ...DEFAULT_FEE_CAPS, payout: 2_000_000n, sweep: 50_000n });
});

test('anything else stops the start, naming the variable', () => {
  for (const [name, bad] of [
    ['HUSH_FEE_PRICING', 'dynamic'],
    ['HUSH_FEE_CAP_LAMPORTS', '5'],
    ['HUSH_FEE_CAP_LAMPORTS', 'payouts=1000000'],
    ['HUSH_FEE_CAP_LAMPORTS', 'payout=1000000=2'],
    ['HUSH_FEE_CAP_LAMPORTS', 'payout=-1'],
    ['HUSH_FEE_CAP_LAMPORTS', '1e6'],
  ] as const) {
    assert.throws(() => loadConfig({ [name]: bad }), (e: Error) => e instanceof ConfigError && e.message.includes(name), `${name}=${bad}`);
  }
});
