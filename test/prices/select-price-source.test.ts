import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ConfigError, loadConfig } from '../../src/config/config.ts';
import { isHushError } from '../../src/domain/errors.ts';
import { quoteCrossAsset } from '../../src/domain/fees.ts';
import { U64_MAX, ZERO, toAmount } from '../../src/domain/money.ts';
import { EmbeddedPriceSource } from '../../src/prices/embedded-prices.ts';
import { JupiterPriceSource } from '../../src/prices/jupiter-price.ts';
import { PythHermesSource } from '../../src/prices/pyth-hermes.ts';
import { createFreshPrices, createPriceSource, resolvePriceSettings } from '../../src/prices/select-price-source.ts';
import { SwapPricing } from '../../src/prices/swap-pricing.ts';
import { fixture, recordedFetch } from '../fixtures/recorded-fetch.ts';
import { readingClock } from '../support/manual-clock.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

describe('price configuration', () => {
  it('defaults: embedded, 60 s max age, 100 bps confidence, 50 bps spread', () => {
    const c = loadConfig({});
    assert.equal(c.priceSource, 'embedded');
    assert.equal(c.priceMaxAgeS, 60);
    assert.equal(c.priceMaxConfidenceBps, 100);
    assert.equal(c.swapSpreadBps, 50);
    assert.equal(c.pythUrl, 'https://hermes.pyth.network');
    assert.equal(c.jupiterUrl, 'https://lite-api.jup.ag');
    assert.equal(c.priceRefreshS, 10);
    assert.equal(c.priceWalkBpsPerMinute, 0);
    const s = resolvePriceSettings(c);
    assert.equal(s.maxAgeMs, 60_000);
    assert.equal(s.refreshIntervalMs, 10_000);
    assert.ok(createPriceSource(c, { clock: systemClock, random: systemRandom }) instanceof EmbeddedPriceSource);
  });

  it('reads every setting from the environment', () => {
    const c = loadConfig({
      HUSH_PRICE_SOURCE: 'pyth',
      HUSH_PRICE_MAX_AGE_S: '30',
      HUSH_PRICE_MAX_CONFIDENCE_BPS: '25',
      HUSH_SWAP_SPREAD_BPS: '80',
      HUSH_PYTH_URL: 'https://hermes.internal',
      HUSH_JUPITER_URL: 'https://api.jup.ag',
      HUSH_JUPITER_API_KEY: 'k',
      HUSH_PRICE_WALK_BPS: '15',
      HUSH_REBALANCE_LOT_USD: '250.5',
    });
    assert.equal(c.priceSource, 'pyth');
    assert.equal(c.priceMaxAgeS, 30);
    assert.equal(c.priceRefreshS, 10);
    assert.equal(c.priceMaxConfidenceBps, 25);
    assert.equal(c.swapSpreadBps, 80);
    assert.equal(c.pythUrl, 'https://hermes.internal');
    assert.equal(c.jupiterApiKey, 'k');
    assert.equal(c.priceWalkBpsPerMinute, 15);
    assert.deepEqual(resolvePriceSettings(c).rebalanceLotUsd, { num: 501n, den: 2n });
    assert.ok(createPriceSource(c, { clock: systemClock, random: systemRandom }) instanceof PythHermesSource);
    assert.ok(createPriceSource(loadConfig({ HUSH_PRICE_SOURCE: 'jupiter' }), { clock: systemClock, random: systemRandom }) instanceof JupiterPriceSource);
  });

  it('refuses bad values', () => {
    assert.throws(() => loadConfig({ HUSH_PRICE_SOURCE: 'coingecko' }), ConfigError);
    assert.throws(() => loadConfig({ HUSH_PRICE_MAX_AGE_S: '0' }), ConfigError);
    assert.throws(() => loadConfig({ HUSH_SWAP_SPREAD_BPS: '-1' }), ConfigError);
    assert.throws(() => loadConfig({ HUSH_PRICE_MAX_AGE_S: '20', HUSH_PRICE_REFRESH_S: '20' }), ConfigError);
    assert.throws(() => loadConfig({ HUSH_REBALANCE_LOT_USD: '0' }), ConfigError);
  });

  it('every default is applied at parse: the resolved settings are the config in the sources\' units', () => {
    const c = loadConfig({});
    assert.deepEqual(c.rebalanceLotUsd, { num: 1000n, den: 1n });
    assert.equal(c.rebalanceSlippageBps, 100);
    const s = resolvePriceSettings(c);
    assert.equal(s.source, 'embedded');
    assert.equal(s.maxAgeMs, 60_000);
    assert.equal(s.spreadBps, 50);
    assert.equal(s.pythUrl, 'https://hermes.pyth.network');
    assert.deepEqual(s.rebalanceLotUsd, { num: 1000n, den: 1n });
  });
});

describe('SwapPricing (FreshPrices + spread → convert for quoteCrossAsset)', () => {
  it('embedded: 1 SOL → 149.25 USDC at the default 50 bps spread', async () => {
    const config = loadConfig({});
    const fresh = createFreshPrices(config, { clock: systemClock, random: systemRandom });
    await fresh.refresh();
    const pricing = new SwapPricing(fresh, config.assets, resolvePriceSettings(config).spreadBps);
    const convert = pricing.converter('sol', 'usdc');
    assert.equal(convert(toAmount(1_000_000_000n)), 149_250_000n);
    const q = quoteCrossAsset({ mode: 'exact_in', amount: toAmount(1_000_000_000n), feeBps: 0, serviceFeeBps: 30, networkFee: toAmount(10_000n), min: ZERO, max: U64_MAX, convert });
    // net = 1e9 − 3e6 − 1e4 = 996 990 000 lamports → $149.5485 × 0.995 = 148.8007575 USDC
    assert.equal(q.amountOut, 148_800_757n);
  });

  it('a result beyond u64 is AMOUNT_TOO_HIGH, not a crash', async () => {
    const config = loadConfig({});
    const fresh = createFreshPrices(config, { clock: systemClock, random: systemRandom });
    await fresh.refresh();
    const convert = new SwapPricing(fresh, config.assets, 0).converter('sol', 'bonk', { min: 1n, max: U64_MAX });
    assert.throws(() => convert(U64_MAX), (e) => isHushError(e, 'AMOUNT_TOO_HIGH') && e.details.max === U64_MAX.toString());
  });

  it('pyth selected by env, served from recorded answers: stale answers are 503, never a quote', async () => {
    const published = 1_760_000_000_000;
    let now = published + 1_000;
    const f = recordedFetch((call) => (call.url.startsWith('https://hermes.pyth.network/v2/updates/price/latest?') ? { body: fixture('pyth/latest-ok.json') } : null));
    const config = loadConfig({ HUSH_PRICE_SOURCE: 'pyth' });
    const fresh = createFreshPrices(config, { fetch: f, clock: readingClock(() => now), random: systemRandom });
    await fresh.refresh();
    const pricing = new SwapPricing(fresh, config.assets, 50);
    // 1 SOL at 148.23456789 → USDC at 0.99987654, less 50 bps = 147.511606…(checked with Python's Fraction)
    assert.equal(pricing.converter('sol', 'usdc')(toAmount(1_000_000_000n)), 147_511_606n);
    now = published + 61_000;
    assert.throws(
      () => pricing.converter('sol', 'usdc'),
      (e) => isHushError(e, 'SERVICE_UNAVAILABLE') && e.httpStatus === 503 && e.retryAfterSeconds === 10,
    );
  });

  it('an asset that is not swappable, or unknown, is PAIR_NOT_SUPPORTED', async () => {
    const config = loadConfig({});
    const fresh = createFreshPrices(config, { clock: systemClock, random: systemRandom });
    await fresh.refresh();
    const assets = { ...config.assets, get: (id: string) => (id === 'usdt' ? { ...config.assets.get('usdt')!, swappable: false } : config.assets.get(id)) };
    const pricing = new SwapPricing(fresh, assets, 50);
    assert.throws(() => pricing.converter('usdc', 'usdt'), (e) => isHushError(e, 'PAIR_NOT_SUPPORTED'));
    assert.throws(() => pricing.converter('usdc', 'doge'), (e) => isHushError(e, 'PAIR_NOT_SUPPORTED'));
    assert.throws(() => pricing.converter('usdc', 'usdc'), RangeError);
  });
});
