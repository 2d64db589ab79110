import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { isHushError } from '../../src/domain/errors.ts';
import { reduce } from '../../src/domain/exact-decimal.ts';
import { FreshPrices, PriceSourceError } from '../../src/prices/price-source.ts';
import { PythHermesSource, loadPythFeeds, normaliseFeedId, parseHermesLatest } from '../../src/prices/pyth-hermes.ts';
import { type Recorded, fixture, recordedFetch } from '../fixtures/recorded-fetch.ts';
import { readingClock } from '../support/manual-clock.ts';
import { systemClock } from '../../src/support/clock.ts';

/** publish_time of the recordings. */
const PUBLISHED_S = 1_760_000_000;
const FEEDS = loadPythFeeds();
const BASE = 'https://hermes.example.test';

function sourceWith(answer: Recorded | Error, apiKey?: string) {
  const f = recordedFetch((call) => (call.url.startsWith(`${BASE}/v2/updates/price/latest?`) ? answer : null));
  return { src: new PythHermesSource({ baseUrl: BASE, feeds: FEEDS, fetch: f, apiKey, clock: systemClock }), f };
}

function freshWith(answer: Recorded | Error, nowMs = PUBLISHED_S * 1000 + 2000) {
  const { src } = sourceWith(answer);
  return new FreshPrices({ source: src, assetIds: ['sol', 'usdc', 'usdt', 'bonk'], maxAgeMs: 60_000, maxConfidenceBps: 100, refreshIntervalMs: 10_000, clock: readingClock(() => nowMs) });
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

describe('Pyth Hermes adapter', () => {
  it('has a feed id for every swappable asset in config/price-feeds.json', () => {
    assert.deepEqual([...FEEDS.keys()].sort(), ['bonk', 'sol', 'usdc', 'usdt']);
    assert.equal(FEEDS.get('sol'), 'ef0d8b6fda2ceba41da15d4095d1da392a0d2f8ed0c6c7bc0f4cfac8c280b56d');
    for (const id of FEEDS.values()) assert.match(id, /^[0-9a-f]{64}$/);
  });

  it('asks GET /v2/updates/price/latest with ids[] per feed, parsed=true, and the key only as a bearer header', async () => {
    const { src, f } = sourceWith({ body: fixture('pyth/latest-ok.json') }, 'secret-key');
    await src.latest(['sol', 'bonk', 'doge']);
    assert.equal(f.calls.length, 1);
    const url = new URL(f.calls[0]!.url);
    assert.equal(url.pathname, '/v2/updates/price/latest');
    assert.deepEqual(url.searchParams.getAll('ids[]'), [`0x${FEEDS.get('sol')}`, `0x${FEEDS.get('bonk')}`]);
    assert.equal(url.searchParams.get('parsed'), 'true');
    assert.equal(url.searchParams.get('ignore_invalid_price_ids'), 'true');
    assert.equal(f.calls[0]!.headers.authorization, 'Bearer secret-key');
    assert.ok(!f.calls[0]!.url.includes('secret-key'));
  });

  it('parses price, conf and expo exactly into fractions, publish_time into publishedAt', async () => {
    const { src } = sourceWith({ body: fixture('pyth/latest-ok.json') });
    const m = await src.latest(['sol', 'usdc', 'usdt', 'bonk']);
    assert.equal(m.size, 4);
    const sol = m.get('sol')!;
    assert.deepEqual(sol.price, reduce({ num: 14823456789n, den: 10n ** 8n })); // 148.23456789
    assert.deepEqual(sol.confidence, reduce({ num: 7412345n, den: 10n ** 8n }));
    assert.equal(sol.publishedAt.getTime(), PUBLISHED_S * 1000);
    assert.equal(sol.source, 'pyth');
    assert.deepEqual(m.get('bonk')!.price, reduce({ num: 212345n, den: 10n ** 10n })); // 0.0000212345, expo −10
    assert.deepEqual(m.get('usdt')!.price, reduce({ num: 100012345n, den: 10n ** 8n }));
  });

  it('fresh recording: every pair prices', async () => {
    const fresh = freshWith({ body: fixture('pyth/latest-ok.json') });
    await fresh.refresh();
    assert.equal(code(() => fresh.pairRate('sol', 'bonk')), 'ok');
    assert.equal(code(() => fresh.pairRate('usdt', 'usdc')), 'ok');
  });

  it('the same recording read 61 s after publish_time is stale: SERVICE_UNAVAILABLE, never a quote', async () => {
    const fresh = freshWith({ body: fixture('pyth/latest-ok.json') }, PUBLISHED_S * 1000 + 61_000);
    await fresh.refresh();
    assert.equal(code(() => fresh.pairRate('sol', 'usdc')), 'SERVICE_UNAVAILABLE');
  });

  it('stale feed (SOL published 300 s earlier): SOL pairs are SERVICE_UNAVAILABLE, others still price', async () => {
    const fresh = freshWith({ body: fixture('pyth/latest-stale-sol.json') });
    await fresh.refresh();
    assert.equal(code(() => fresh.pairRate('sol', 'usdc')), 'SERVICE_UNAVAILABLE');
    assert.equal(code(() => fresh.pairRate('bonk', 'sol')), 'SERVICE_UNAVAILABLE');
    assert.equal(code(() => fresh.pairRate('bonk', 'usdc')), 'ok');
  });

  it('missing feed (BONK absent from the answer): BONK pairs are PAIR_NOT_SUPPORTED', async () => {
    const fresh = freshWith({ body: fixture('pyth/latest-missing-bonk.json') });
    await fresh.refresh();
    assert.equal(code(() => fresh.pairRate('usdc', 'bonk')), 'PAIR_NOT_SUPPORTED');
    assert.equal(code(() => fresh.pairRate('sol', 'usdc')), 'ok');
  });

  it('wide confidence (BONK conf ≈ 2.1 % of price): SERVICE_UNAVAILABLE for BONK pairs', async () => {
    const fresh = freshWith({ body: fixture('pyth/latest-wide-confidence-bonk.json') });
    await fresh.refresh();
    assert.equal(code(() => fresh.pairRate('bonk', 'usdc')), 'SERVICE_UNAVAILABLE');
    assert.equal(code(() => fresh.pairRate('sol', 'usdc')), 'ok');
  });

  it('a non-positive price is no price for that feed only', async () => {
    const { src } = sourceWith({ body: fixture('pyth/latest-negative-bonk.json') });
    const m = await src.latest(['sol', 'bonk']);
    assert.deepEqual([...m.keys()], ['sol']);
  });

  for (const [file, why] of [
    ['pyth/malformed-html.txt', /not JSON/],
    ['pyth/malformed-no-parsed.json', /no "parsed"/],
    ['pyth/malformed-price-as-number.json', /price\.price/],
    ['pyth/malformed-expo-as-string.json', /expo/],
  ] as const) {
    it(`malformed answer ${file} is refused as a whole`, async () => {
      const { src } = sourceWith({ body: fixture(file) });
      await assert.rejects(src.latest(['sol', 'usdc', 'usdt', 'bonk']), (e) => e instanceof PriceSourceError && why.test(e.message));
    });
  }

  it('a malformed answer after a good one keeps the old snapshot until it ages out', async () => {
    let now = PUBLISHED_S * 1000 + 1000;
    let answer: Recorded = { body: fixture('pyth/latest-ok.json') };
    const f = recordedFetch(() => answer);
    const fresh = new FreshPrices({ source: new PythHermesSource({ baseUrl: BASE, feeds: FEEDS, fetch: f, clock: systemClock }), assetIds: ['sol', 'usdc'], maxAgeMs: 60_000, maxConfidenceBps: 100, refreshIntervalMs: 10_000, clock: readingClock(() => now) });
    await fresh.refresh();
    answer = { body: fixture('pyth/malformed-html.txt'), status: 200 };
    now += 30_000;
    await fresh.refresh();
    assert.equal(fresh.status().consecutiveFailures, 1);
    assert.equal(code(() => fresh.pairRate('sol', 'usdc')), 'ok');
    now += 31_000;
    assert.equal(code(() => fresh.pairRate('sol', 'usdc')), 'SERVICE_UNAVAILABLE');
  });

  it('HTTP errors and transport failures are PriceSourceErrors (and 503 for quotes)', async () => {
    const notFound = sourceWith({ status: 404, body: fixture('pyth/not-found.txt') });
    await assert.rejects(notFound.src.latest(['sol']), (e) => e instanceof PriceSourceError && /HTTP 404/.test(e.message));
    const down = sourceWith(new TypeError('fetch failed'));
    await assert.rejects(down.src.latest(['sol']), (e) => e instanceof PriceSourceError && /request failed/.test(e.message));
    const fresh = freshWith({ status: 503, body: 'upstream unavailable' });
    await fresh.refresh();
    assert.equal(code(() => fresh.pairRate('sol', 'usdc')), 'SERVICE_UNAVAILABLE');
  });

  it('ignores feeds it did not ask for and refuses a feed listed twice', () => {
    const ok = JSON.parse(fixture('pyth/latest-ok.json'));
    const onlySol = new Map([[FEEDS.get('sol')!, 'sol']]);
    assert.deepEqual([...parseHermesLatest(JSON.stringify(ok), onlySol).keys()], ['sol']);
    ok.parsed.push(ok.parsed[0]);
    assert.throws(() => parseHermesLatest(JSON.stringify(ok), onlySol), /twice/);
  });

  it('normalises feed ids and refuses non-ids', () => {
    assert.equal(normaliseFeedId('0xEF0D8B6FDA2CEBA41DA15D4095D1DA392A0D2F8ED0C6C7BC0F4CFAC8C280B56D'), FEEDS.get('sol'));
    assert.throws(() => normaliseFeedId('0x1234'), RangeError);
  });
});
