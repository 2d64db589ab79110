/**
 * The simulator in the suite (docs/architecture.md, "Simulation"): a fixed set of seeds runs Hush through
 * a simulated stretch of traffic with every kind of fault, and every invariant holds; a seed replays byte for
 * byte; and bugs planted on purpose are caught. `npm run sim -- --seeds 1000` is the long search; a seed it
 * fails on becomes a case here.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { pathsNotRun } from '../../sim/path-coverage.ts';
import { PLANTED_BUGS } from '../../sim/planted-bugs.ts';
import { runSeed, type RunOptions, type RunReport } from '../../sim/run.ts';
import '../support/store-spares.ts';

// Half a minute of traffic, with the deadlines an operator may shorten (an order's 120 s, a hold's 120 s budget
// and 180 s ceiling) so that a seed drains in a few simulated minutes.
const QUICK_ENV = { HUSH_ORDER_TTL_S: '120', HUSH_PRIVACY_MAX_DELAY_S: '120', HUSH_PRIVACY_MAX_WAIT_S: '180' };
const SHORT: Omit<RunOptions, 'seed'> = { durationMs: 30_000, profile: 'steady', faults: 'all', rate: 1, env: QUICK_ENV };

function explain(r: RunReport): string {
  return r.failure ? `${r.failure.message}\n${r.failure.tail.join('\n')}\nreplay: npm run sim -- --seed ${r.seed} --minutes 0.5 --faults ${SHORT.faults}` : '';
}

describe('the simulator', () => {
  const ran = new Map<string, number>();
  // Three consecutive seeds: between them they aim a crash at every fault point (sim/faults.ts).
  for (const seed of [1, 2, 3]) {
    it(`keeps every invariant on seed ${seed}: money, liveness, ledger, screening, receipts`, async () => {
      const r = await runSeed({ ...SHORT, seed });
      for (const [p, n] of r.paths) ran.set(p, (ran.get(p) ?? 0) + n);
      assert.ok(r.ok, explain(r));
      assert.ok(r.orders > 10, `the seed placed orders (${r.orders})`);
      assert.ok(r.tallies.reconciles > 0 && r.tallies.ordersChecked >= r.orders, 'the invariants ran over every order');
      assert.ok(r.tallies.booked > 0, 'the books were checked');
      assert.deepEqual(r.processes, ['api', 'api', 'worker', 'worker'], 'two partner APIs and two workers share the store');
    });
  }

  it('runs every path on those seeds: each fault, each crash point, and what Hush does about them (resends, expiry, re-signing, refunds, holds)', () => {
    assert.deepEqual(pathsNotRun(ran), [], `paths not run: ${JSON.stringify(Object.fromEntries(ran))}`);
  });

  it('keeps every invariant through a restored store (seed 1, faults store): nothing the chain shows paid is paid again', async () => {
    const r = await runSeed({ ...SHORT, seed: 1, faults: 'store' });
    assert.ok(r.ok, explain(r));
    assert.ok(r.crashes.includes('stopped by the operator'), `the store went back mid-run: ${r.crashes.join(', ')}`);
    assert.ok(r.orders > 10, `the seed placed orders (${r.orders})`);
  });

  it('replays a seed byte for byte: the same event log, to its hash', async () => {
    const opts = { ...SHORT, seed: 3, durationMs: 10_000 };
    const [a, b] = [await runSeed(opts), await runSeed(opts)];
    assert.ok(a.ok && b.ok, explain(a.ok ? b : a));
    assert.ok(a.orders > 3, `the seed placed orders (${a.orders})`);
    assert.equal(a.digest, b.digest);
    assert.equal(a.statements, b.statements);
  });

  for (const [key, bug] of Object.entries(PLANTED_BUGS)) {
    // Every user misbehaves (wrong amounts, sanctioned senders, retries, late funds) for a quarter of a minute:
    // what a planted bug breaks happens in the first seeds, so the search is short (npm run sim -- --plant runs it long,
    // on the default two APIs and two workers). Here one process does both, at half the CPU: a plant breaks an
    // invariant, not a race, and the seeds above run the processes.
    it(`catches ${bug.name} within 50 seeds`, async () => {
      for (let seed = 1; seed <= 50; seed++) {
        const r = await runSeed({ ...SHORT, durationMs: 15_000, mischief: bug.mischief ?? 1, seed, faults: bug.faults, plant: bug.rewrite, processes: ['all'], ...(bug.profile ? { profile: bug.profile } : {}) });
        if (!r.ok) {
          assert.ok(bug.caughtBy.includes(r.failure!.invariant), `the planted bug ${key} was caught by another check than those it breaks: ${r.failure!.message}`);
          return;
        }
      }
      assert.fail(`planted bug ${key} survived 50 seeds`);
    });
  }
});
