import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { loadAssets } from '../../src/config/assets.ts';
import { isHushError } from '../../src/domain/errors.ts';
import { reduce } from '../../src/domain/exact-decimal.ts';
import { type JupiterAsset, JupiterPriceSource } from '../../src/prices/jupiter-price.ts';
import { FreshPrices, PriceSourceError } from '../../src/prices/price-source.ts';
import { type Recorded, fixture, recordedFetch } from '../fixtures/recorded-fetch.ts';
import { readingClock } from '../support/manual-clock.ts';

const ASSETS = new Map<string, JupiterAsset>(loadAssets().list.map((a) => [a.assetId, { mint: a.mint, decimals: a.decimals }]));
const BASE = 'https://jup.example.test';
const NOW = Date.UTC(2025, 9, 9, 12, 0, 0);

function sourceWith(answer: Recorded | Error, apiKey?: string, now = () => NOW) {
  const f = recordedFetch((call) => (call.url.startsWith(`${BASE}/price/v3?ids=`) ? answer : null));
  return { src: new JupiterPriceSource({ baseUrl: BASE, assets: ASSETS, fetch: f, apiKey, clock: readingClock(now) }), f };
}

function code(f: () => unknown): string {
  try {
    f();
    return 'ok';
  } catch (e) {
    assert.ok(isHushError(e), String(e));
    return e.code;
  }
}

describe('Jupiter Price v3 adapter', () => {
  it('asks GET /price/v3?ids=<mints, comma separated> with the key only in x-api-key', async () => {
    const { src, f } = sourceWith({ body: fixture('jupiter/price-ok.json') }, 'jup-key');
    await src.latest(['sol', 'bonk', 'doge']);
    assert.equal(f.calls.length, 1);
    assert.equal(f.calls[0]!.url, `${BASE}/price/v3?ids=So11111111111111111111111111111111111111112,DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263`);
    assert.equal(f.calls[0]!.headers['x-api-key'], 'jup-key');
  });

  it('parses usdPrice from the JSON text exactly, beyond double precision', async () => {
    const { src } = sourceWith({ body: fixture('jupiter/price-ok.json') });
    const m = await src.latest(['sol', 'usdc', 'usdt', 'bonk']);
    assert.equal(m.size, 4);
    // 148.23456789123456789 has 20 significant digits; a double would keep ~17
    assert.deepEqual(m.get('sol')!.price, reduce({ num: 14823456789123456789n, den: 10n ** 17n }));
    assert.notDeepEqual(m.get('sol')!.price, reduce({ num: BigInt(Math.round(148.23456789123456789 * 1e14)), den: 10n ** 14n }));
    assert.deepEqual(m.get('bonk')!.price, reduce({ num: 213456n, den: 10n ** 10n })); // 0.0000213456
    assert.deepEqual(m.get('usdt')!.price, reduce({ num: 100012n, den: 100000n }));
    assert.equal(m.get('sol')!.confidence, null);
    assert.equal(m.get('sol')!.publishedAt.getTime(), NOW); // receipt time: Jupiter publishes none
    assert.equal(m.get('sol')!.source, 'jupiter');
  });

  it('parses exponent notation (2.13456e-5) exactly', async () => {
    const { src } = sourceWith({ body: fixture('jupiter/price-exponent-bonk.json') });
    assert.deepEqual((await src.latest(['bonk'])).get('bonk')!.price, reduce({ num: 213456n, den: 10n ** 10n }));
  });

  it('no confidence: priced under the default accept rule, refused under reject', async () => {
    for (const rule of ['accept', 'reject'] as const) {
      const { src } = sourceWith({ body: fixture('jupiter/price-ok.json') });
      const fresh = new FreshPrices({ source: src, assetIds: ['sol', 'usdc'], maxAgeMs: 60_000, maxConfidenceBps: 100, refreshIntervalMs: 10_000, missingConfidence: rule, clock: readingClock(() => NOW) });
      await fresh.refresh();
      assert.equal(code(() => fresh.pairRate('sol', 'usdc')), rule === 'accept' ? 'ok' : 'SERVICE_UNAVAILABLE');
    }
  });

  it('a token Jupiter omits (no reliable price) is PAIR_NOT_SUPPORTED', async () => {
    const { src } = sourceWith({ body: fixture('jupiter/price-missing-bonk.json') });
    const fresh = new FreshPrices({ source: src, assetIds: ['sol', 'usdc', 'bonk'], maxAgeMs: 60_000, maxConfidenceBps: 100, refreshIntervalMs: 10_000, clock: readingClock(() => NOW) });
    await fresh.refresh();
    assert.equal(code(() => fresh.pairRate('bonk', 'usdc')), 'PAIR_NOT_SUPPORTED');
    assert.equal(code(() => fresh.pairRate('sol', 'usdc')), 'ok');
  });

  it('drops an entry whose decimals contradict the configured asset, or whose price is zero', async () => {
    assert.deepEqual([...(await sourceWith({ body: fixture('jupiter/price-decimals-mismatch-usdc.json') }).src.latest(['sol', 'usdc'])).keys()], ['sol']);
    assert.deepEqual([...(await sourceWith({ body: fixture('jupiter/price-zero-bonk.json') }).src.latest(['sol', 'bonk'])).keys()], ['sol']);
  });

  it('stale: when refreshes fail, the last answer ages out into SERVICE_UNAVAILABLE', async () => {
    let now = NOW;
    let answer: Recorded = { body: fixture('jupiter/price-ok.json') };
    const f = recordedFetch(() => answer);
    const src = new JupiterPriceSource({ baseUrl: BASE, assets: ASSETS, fetch: f, clock: readingClock(() => now) });
    const fresh = new FreshPrices({ source: src, assetIds: ['sol', 'usdc'], maxAgeMs: 60_000, maxConfidenceBps: 100, refreshIntervalMs: 10_000, clock: readingClock(() => now) });
    await fresh.refresh();
    answer = { status: 429, body: fixture('jupiter/rate-limited.json') };
    now += 45_000;
    await fresh.refresh();
    assert.equal(code(() => fresh.pairRate('sol', 'usdc')), 'ok');
    now += 20_000;
    await fresh.refresh();
    assert.equal(fresh.status().consecutiveFailures, 2);
    assert.equal(code(() => fresh.pairRate('sol', 'usdc')), 'SERVICE_UNAVAILABLE');
  });

  for (const [file, why] of [
    ['jupiter/malformed-v2-shape.json', /no usdPrice/],
    ['jupiter/malformed-usdprice-bool.json', /no usdPrice/],
    ['jupiter/malformed-truncated.json', /not JSON/],
  ] as const) {
    it(`malformed answer ${file} is refused as a whole`, async () => {
      const { src } = sourceWith({ body: fixture(file) });
      await assert.rejects(src.latest(['sol', 'usdc', 'usdt', 'bonk']), (e) => e instanceof PriceSourceError && why.test(e.message));
    });
  }

  it('HTTP errors are PriceSourceErrors', async () => {
    const { src } = sourceWith({ status: 429, body: fixture('jupiter/rate-limited.json') });
    await assert.rejects(src.latest(['sol']), (e) => e instanceof PriceSourceError && /HTTP 429/.test(e.message));
  });
});
