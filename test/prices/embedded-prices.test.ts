import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadAssets } from '../../src/config/assets.ts';
import { compareFractions } from '../../src/domain/exact-decimal.ts';
import { parsePrice } from '../../src/domain/price.ts';
import { EmbeddedPriceSource } from '../../src/prices/embedded-prices.ts';
import { FreshPrices } from '../../src/prices/price-source.ts';
import { readingClock } from '../support/manual-clock.ts';
import { systemClock } from '../../src/support/clock.ts';

const assets = loadAssets().list;
const MINUTE = 60_000;

describe('EmbeddedPriceSource', () => {
  it('answers the reference prices of config/assets.json exactly when the walk is off', async () => {
    let now = 1_000_000;
    const src = new EmbeddedPriceSource({ assets, seed: 1, clock: readingClock(() => now) });
    const first = await src.latest(['sol', 'usdc', 'usdt', 'bonk', 'doge']);
    assert.deepEqual([...first.keys()], ['sol', 'usdc', 'usdt', 'bonk']);
    for (const a of assets) assert.equal(compareFractions(first.get(a.assetId)!.price, parsePrice(a.referencePriceUsd)), 0, a.assetId);
    assert.deepEqual(first.get('bonk')!.price, { num: 1n, den: 50_000n });
    assert.equal(first.get('sol')!.publishedAt.getTime(), now);
    assert.equal(first.get('sol')!.source, 'embedded');
    now += 10 * MINUTE;
    const later = await src.latest(['sol']);
    assert.deepEqual(later.get('sol')!.price, parsePrice('150'));
    assert.equal(later.get('sol')!.publishedAt.getTime(), now);
    assert.equal(src.supports('bonk'), true);
    assert.equal(src.supports('doge'), false);
  });

  it('walks slowly: within walkBps per minute of the last price, and moves at all', async () => {
    let now = 0;
    const src = new EmbeddedPriceSource({ assets, walkBpsPerMinute: 20, seed: 42, clock: readingClock(() => now) });
    let prev = (await src.latest(['sol'])).get('sol')!.price;
    let moved = 0;
    for (let i = 0; i < 200; i++) {
      now += 15_000; // a quarter minute: at most 5 bps
      const p = (await src.latest(['sol'])).get('sol')!.price;
      // |p − prev| ≤ prev × 5/10000  ⇔  |p·prev.den − prev·p.den| × 10000 ≤ 5 × prev.num × p.den
      const diff = p.num * prev.den - prev.num * p.den;
      assert.ok((diff < 0n ? -diff : diff) * 10_000n <= 5n * prev.num * p.den + p.den * prev.den, `step ${i} moved too far`);
      if (diff !== 0n) moved++;
      prev = p;
    }
    assert.ok(moved > 150, `the walk barely moved (${moved} of 200 steps)`);
  });

  it('stays within the band around the reference however long it runs', async () => {
    let now = 0;
    const src = new EmbeddedPriceSource({ assets, walkBpsPerMinute: 10_000, walkBandBps: 500, seed: 'band', clock: readingClock(() => now) });
    const ref = parsePrice('0.00002');
    const lo = { num: ref.num * 9500n, den: ref.den * 10_000n };
    const hi = { num: ref.num * 10_500n, den: ref.den * 10_000n };
    for (let i = 0; i < 300; i++) {
      now += MINUTE;
      const p = src.priceNow('bonk')!;
      assert.ok(compareFractions(p, lo) >= 0 && compareFractions(p, hi) <= 0, `left the band at step ${i}`);
    }
  });

  it('is deterministic when seeded, and differs between seeds', async () => {
    const run = async (seed: string) => {
      let now = 0;
      const src = new EmbeddedPriceSource({ assets, walkBpsPerMinute: 50, seed, clock: readingClock(() => now) });
      const out: string[] = [];
      for (let i = 0; i < 20; i++) {
        now += 30_000;
        const m = await src.latest(['sol', 'bonk']);
        out.push(`${m.get('sol')!.price.num}/${m.get('sol')!.price.den} ${m.get('bonk')!.price.num}/${m.get('bonk')!.price.den}`);
      }
      return out;
    };
    assert.deepEqual(await run('demo'), await run('demo'));
    assert.notDeepEqual(await run('demo'), await run('other'));
  });

  it('feeds FreshPrices: quotes are always fresh', async () => {
    let now = 5_000_000;
    const fresh = new FreshPrices({ source: new EmbeddedPriceSource({ assets, seed: 1, clock: readingClock(() => now) }), assetIds: ['sol', 'usdc'], maxAgeMs: 60_000, maxConfidenceBps: 100, refreshIntervalMs: 10_000, clock: readingClock(() => now) });
    await fresh.refresh();
    assert.deepEqual(fresh.pairRate('sol', 'usdc').from.price, parsePrice('150'));
    now += 30_000;
    await fresh.refresh();
    now += 30_000;
    assert.deepEqual(fresh.pairRate('usdc', 'sol').to.price, parsePrice('150'));
  });

  it('rejects a bad reference price or walk setting', () => {
    assert.throws(() => new EmbeddedPriceSource({ assets: [{ assetId: 'x', referencePriceUsd: '0' }], seed: 1, clock: systemClock }), RangeError);
    assert.throws(() => new EmbeddedPriceSource({ assets: [{ assetId: 'x', referencePriceUsd: '1.2.3' }], seed: 1, clock: systemClock }), RangeError);
    assert.throws(() => new EmbeddedPriceSource({ assets, walkBpsPerMinute: -1, seed: 1, clock: systemClock }), RangeError);
  });
});
