/**
 * bench:privacy's linked share: the adversary's expected success over its tie-breaks, with an error that
 * says how far another run of the same traffic would land (linked-estimate.ts).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { linkedEstimate } from '../../bench/privacy/linked-estimate.ts';
import { seeded } from '../../src/support/seeded-random.ts';

/**
 * A row of `releases` releases of `size`, each a class of its own, attacked by an adversary that names a
 * uniformly random one-to-one matching within each release (what tied likelihoods give it): draw d's hits.
 */
function releasesGuessed(releases: number, size: number, draws: number, random: () => number): { hits: boolean[][]; cluster: string[] } {
  const cluster = Array.from({ length: releases * size }, (_, i) => `class-${Math.floor(i / size)}`);
  const hits = Array.from({ length: draws }, () => {
    const out: boolean[] = [];
    for (let r = 0; r < releases; r++) {
      const perm = Array.from({ length: size }, (_, j) => j);
      for (let j = size - 1; j > 0; j--) {
        const x = Math.floor(random() * (j + 1));
        [perm[j], perm[x]] = [perm[x]!, perm[j]!];
      }
      perm.forEach((p, j) => out.push(p === j));
    }
    return out;
  });
  return { hits, cluster };
}

const spread = (xs: number[]) => {
  const m = xs.reduce((a, x) => a + x, 0) / xs.length;
  return Math.sqrt(xs.reduce((a, x) => a + (x - m) ** 2, 0) / (xs.length - 1));
};

it('averages the tie-breaks: 15 releases of 30 land near 1 in 30 run after run, and one draw does not', () => {
  const random = seeded(41);
  const once: number[] = [];
  const averaged: number[] = [];
  const errors: number[] = [];
  for (let run = 0; run < 200; run++) {
    const one = releasesGuessed(15, 30, 1, random);
    once.push(linkedEstimate(one.hits, one.cluster).share);
    const r = releasesGuessed(15, 30, 16, random);
    const e = linkedEstimate(r.hits, r.cluster);
    averaged.push(e.share);
    errors.push(e.standardError);
  }
  const mean = averaged.reduce((a, x) => a + x, 0) / averaged.length;
  assert.ok(Math.abs(mean - 1 / 30) < 0.002, `mean ${mean}`);
  // One flip per release swings the share by about √15 links in 450 (0.9 points); 16 flips by a quarter of that.
  assert.ok(spread(once) > 0.007, `one draw spreads ${spread(once)}`);
  assert.ok(spread(averaged) < 0.5 * spread(once), `averaged ${spread(averaged)} against one draw ${spread(once)}`);
  // The stated error is of the size the runs actually spread by (clustered by class, not too small).
  const meanError = errors.reduce((a, x) => a + x, 0) / errors.length;
  assert.ok(meanError > 0.6 * spread(averaged) && meanError < 2 * spread(averaged), `stated ${meanError}, observed ${spread(averaged)}`);
});

it('counts a class of many orders as one draw of the traffic, not as many', () => {
  // Half the orders in one class the adversary always links, half in singletons it never links: the
  // clustered error is far wider than the binomial one over 200 orders would claim.
  const cluster = [...Array.from({ length: 100 }, () => 'busy'), ...Array.from({ length: 100 }, (_, i) => `alone-${i}`)];
  const hits = [cluster.map((c) => c === 'busy')];
  const e = linkedEstimate(hits, cluster);
  assert.equal(e.share, 0.5);
  assert.ok(e.standardError > 3 * Math.sqrt(0.25 / 200), `clustered ${e.standardError}`);
});

it('says nothing of an empty row', () => {
  assert.deepEqual(linkedEstimate([], []), { share: 0, standardError: 0 });
  assert.deepEqual(linkedEstimate([[]], []), { share: 0, standardError: 0 });
});
