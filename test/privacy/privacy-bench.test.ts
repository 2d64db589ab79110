/**
 * bench:privacy's whole pipeline, short, on the real local chain: a Hush child process, orders placed
 * through the public API and signed like a wallet's, the adversary reading only JSON-RPC and quotes,
 * and the scoring against the driver's ground truth. Settlement runs as in production (docs/spec.md §9), with a
 * two-minute delay budget so the run is short; what it checks is that the measurement sees everything and
 * links what it must.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { loadConfig } from '../../src/config/config.ts';
import { runOnce } from '../../bench/privacy/run.ts';
import { seeded } from '../../src/support/seeded-random.ts';
import { denominationsOf, workloads } from '../../bench/privacy/workloads.ts';

it('places, observes and scores a short run: every deposit and payout found, free amounts linked', { timeout: 240_000 }, async () => {
  const config = loadConfig({});
  const assets = new Map(config.assets.list.map((a) => [a.assetId, a]));
  const table = { get: (id: string) => assets.get(id)!, denominations: (id: string) => denominationsOf(assets.get(id)!) };
  const run = await runOnce({
    rate: 1,
    compression: 8,
    ordersPerRow: 8,
    policy: { menu: 'decade', targetSet: 20, budgetS: 120, windowS: { min: 0.2, max: 2 }, trafficWindowS: 1, ceilingS: 3600 },
    workloads: workloads(table).filter((w) => w.id === 'free' || w.id === 'swap'),
    assets,
    random: seeded(7),
    log: (m) => console.log(`# ${m}`),
  });
  assert.equal(run.failedOrders, 0);
  assert.equal(run.unswept, 0, 'every deposit account swept, so every deposit is visible');
  assert.equal(run.ownDelaysS.length, 6, "the adversary found all six of its own transfers");
  const free = run.rows.find((r) => r.row === 'free')!;
  const swap = run.rows.find((r) => r.row === 'swap')!;
  for (const r of [free, swap]) {
    assert.equal(r.completed, 8, `${r.row}: every order completed`);
    assert.equal(r.observed, 1, `${r.row}: the chain shows every deposit and payout`);
    assert.equal(r.a1Correct, r.a1Links, `${r.row}: A1 claims only what is true`);
    assert.ok(r.costLamports > 0, `${r.row}: Hush pays fees`);
    assert.ok(r.delayP50S >= 0 && r.delayP95S >= r.delayP50S);
    assert.ok(r.quotedSetMedian >= 1, `${r.row}: quotes scored (${r.quotedSetMedian})`);
  }
  assert.equal(free.quotedSetMedian, 1, 'an amount off the menu is promised no set: it is paid at the floor, alone');
  // Free amounts are unique: the public fee schedule alone links them (today's Hush, docs/spec.md §9's baseline).
  assert.ok(free.accuracy.A2 >= 7 / 8, `A2 linked ${free.accuracy.A2} of free amounts`);
  assert.ok(free.setMedian < 1.5, `free amounts have an effective set of ${free.setMedian}`);
  // Scoring against shuffled truth finds about one hit, not the adversary's real ones.
  assert.ok(free.shuffledHits < 3, `${free.shuffledHits} hits against shuffled truth`);
});
