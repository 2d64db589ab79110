/**
 * HUSH_PRICE_OVERRIDES_FILE: the embedded price source applies a JSON file of USD prices over its
 * reference prices, re-reading it only when it changed, so a running Hush (and the swap tests) can move
 * prices. Checked on the source alone, through loadConfig → createFreshPrices (the wiring the server
 * uses), and that a malformed file fails the refresh instead of pricing anything.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, unlinkSync, utimesSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { loadAssets } from '../../src/config/assets.ts';
import { loadConfig } from '../../src/config/config.ts';
import { compareFractions } from '../../src/domain/exact-decimal.ts';
import { parsePrice, type Price } from '../../src/domain/price.ts';
import { EmbeddedPriceSource } from '../../src/prices/embedded-prices.ts';
import { PriceSourceError } from '../../src/prices/price-source.ts';
import { createFreshPrices, createPriceSource } from '../../src/prices/select-price-source.ts';
import { readingClock } from '../support/manual-clock.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const assets = loadAssets().list;
const dir = mkdtempSync(join(tmpdir(), 'hush-price-overrides-'));
after(() => rmSync(dir, { recursive: true, force: true }));

/** Exact equality of two prices as fractions (the source may or may not reduce them). */
function assertPrice(actual: Price | undefined, usd: string, msg?: string): void {
  assert.ok(actual, msg ?? `a price for ${usd}`);
  assert.equal(compareFractions(actual, parsePrice(usd)), 0, `${msg ?? ''} got ${actual.num}/${actual.den}, expected ${usd}`);
}

let n = 0;
function file(): string {
  return join(dir, `overrides-${n++}.json`);
}

/** Writes and forces a distinct mtime (a same-size rewrite within one clock tick must still be seen). */
function write(path: string, content: unknown, mtimeS?: number): void {
  writeFileSync(path, typeof content === 'string' ? content : JSON.stringify(content));
  if (mtimeS !== undefined) utimesSync(path, mtimeS, mtimeS);
}

describe('EmbeddedPriceSource with an overrides file', () => {
  it('applies the file over the reference prices, picks up changes, and falls back when it is removed', async () => {
    const path = file();
    const src = new EmbeddedPriceSource({ assets, seed: 1, clock: systemClock, overridesFile: path });
    // No file yet: the reference prices.
    assertPrice((await src.latest(['sol'])).get('sol')!.price, '150');
    write(path, { sol: '160.5', doge: '0.1' }, 1_000);
    const a = await src.latest(['sol', 'usdc', 'doge']);
    assertPrice(a.get('sol')!.price, '160.5', 'the override replaces the reference');
    assertPrice(a.get('usdc')!.price, '1', 'assets not named keep the reference');
    assert.equal(a.has('doge'), false, 'ids the source does not price are ignored');
    // Same size, new content, new mtime: re-read.
    write(path, { sol: '170.5' }, 2_000);
    assertPrice((await src.latest(['sol'])).get('sol')!.price, '170.5');
    assertPrice(src.priceNow('sol'), '170.5', 'priceNow sees the same override');
    unlinkSync(path);
    assertPrice((await src.latest(['sol'])).get('sol')!.price, '150', 'a removed file means no overrides');
  });

  it('re-reads only when mtime or size changed', async () => {
    const path = file();
    write(path, { sol: '155' }, 5_000);
    const src = new EmbeddedPriceSource({ assets, seed: 1, clock: systemClock, overridesFile: path });
    assertPrice(src.priceNow('sol'), '155');
    // Same mtime and size, different content: not re-read (the cheap check is the stat).
    write(path, { sol: '156' }, 5_000);
    assertPrice(src.priceNow('sol'), '155');
    utimesSync(path, 6_000, 6_000);
    assertPrice(src.priceNow('sol'), '156');
  });

  it('overrides also replace the random walk of the assets they name', async () => {
    let now = 0;
    const path = file();
    write(path, { bonk: '0.00003' });
    const src = new EmbeddedPriceSource({ assets, walkBpsPerMinute: 500, seed: 7, clock: readingClock(() => now), overridesFile: path });
    for (let i = 0; i < 5; i++) {
      now += 60_000;
      const q = await src.latest(['bonk', 'sol']);
      assertPrice(q.get('bonk')!.price, '0.00003');
    }
  });

  it('a malformed file fails the answer (PriceSourceError) and is retried until it parses', async () => {
    const path = file();
    const src = new EmbeddedPriceSource({ assets, seed: 1, clock: systemClock, overridesFile: path });
    for (const bad of ['{"sol": 150', '["sol"]', '{"sol": 160}', '{"sol": "-1"}', '{"sol": "0"}']) {
      write(path, bad);
      await assert.rejects(src.latest(['sol']), PriceSourceError, bad);
    }
    write(path, { sol: '149' });
    assertPrice((await src.latest(['sol'])).get('sol')!.price, '149');
  });
});

describe('HUSH_PRICE_OVERRIDES_FILE wiring', () => {
  it('loadConfig reads it (unset → undefined) and createFreshPrices serves the overridden price', async () => {
    assert.equal(loadConfig({}).priceOverridesFile, undefined);
    const path = file();
    write(path, { sol: '175' });
    const config = loadConfig({ HUSH_PRICE_OVERRIDES_FILE: path, HUSH_PRICE_REFRESH_S: '1', HUSH_PRICE_MAX_AGE_S: '5' });
    assert.equal(config.priceOverridesFile, path);
    assert.ok(createPriceSource(config, { clock: systemClock, random: systemRandom }) instanceof EmbeddedPriceSource);
    const errors: unknown[] = [];
    const fresh = createFreshPrices(config, { clock: systemClock, random: systemRandom, onRefreshError: (e) => errors.push(e) });
    await fresh.refresh();
    assertPrice(fresh.pairRate('sol', 'usdc').from.price, '175');
    // A later change is seen by the next refresh.
    write(path, { sol: '125', usdc: '1.01' });
    await fresh.refresh();
    const r = fresh.pairRate('sol', 'usdc');
    assertPrice(r.from.price, '125');
    assertPrice(r.to.price, '1.01');
    // Broken file: the refresh fails (reported), the previous snapshot stays until it ages out.
    write(path, 'not json');
    await fresh.refresh();
    assert.equal(errors.length, 1);
    assert.ok(errors[0] instanceof PriceSourceError);
    assert.equal(fresh.status().consecutiveFailures, 1);
    assertPrice(fresh.pairRate('sol', 'usdc').from.price, '125');
  });
});
