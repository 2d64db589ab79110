/**
 * The simulator's test-sends traffic (sim/traffic.ts, issue 71): two wallets each repeating a standard amount
 * nobody else sends, some of them paid short or over (refunded), on a Hush with every kind of fault. Every
 * invariant holds, the test sends' own among them (sim/invariants.ts checkTestSends): none is quoted a crowd,
 * none is held for one. That the check can fail is shown by the planted bug count-own-sends (sim-seeds.test.ts).
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { runSeed } from '../../sim/run.ts';
import '../support/store-spares.ts';

const QUICK_ENV = { HUSH_ORDER_TTL_S: '120', HUSH_PRIVACY_MAX_DELAY_S: '120', HUSH_PRIVACY_MAX_WAIT_S: '180' };

describe('the simulator: a partner\'s test sends', () => {
  it('keeps every invariant on seed 4 of test-sends traffic with every fault: no send quoted or held for a crowd', async () => {
    const r = await runSeed({ seed: 4, durationMs: 15_000, profile: 'test-sends', faults: 'all', rate: 1, mischief: 1, env: QUICK_ENV });
    assert.ok(r.ok, r.failure ? `${r.failure.message}\n${r.failure.tail.join('\n')}` : '');
    assert.ok(r.orders >= 10, `the seed placed orders (${r.orders})`);
    assert.ok(r.tallies.ordersChecked >= r.orders, 'the invariants ran over every order');
  });
});
