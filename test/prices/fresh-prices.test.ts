import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { type HushError, isHushError } from '../../src/domain/errors.ts';
import { parsePrice } from '../../src/domain/price.ts';
import { FreshPrices, type FreshPricesOptions, type PriceQuote, type PriceSource, PriceSourceError } from '../../src/prices/price-source.ts';
import { readingClock } from '../support/manual-clock.ts';
import { systemClock } from '../../src/support/clock.ts';

const T0 = Date.UTC(2025, 9, 9, 12, 0, 0);

/** A scripted source: each call answers the next scripted result (a map or an error). */
class ScriptedSource implements PriceSource {
  calls: string[][] = [];
  constructor(
    private readonly script: (Map<string, PriceQuote> | Error)[],
    private readonly supported = new Set(['sol', 'usdc', 'bonk']),
  ) {}
  supports(id: string) {
    return this.supported.has(id);
  }
  async latest(ids: string[]) {
    this.calls.push(ids);
    const next = this.script.length > 1 ? this.script.shift()! : this.script[0]!;
    if (next instanceof Error) throw next;
    return next;
  }
}

function q(assetId: string, price: string, at: number, conf: string | null = '0'): PriceQuote {
  return { assetId, price: parsePrice(price), confidence: conf === null ? null : conf === '0' ? { num: 0n, den: 1n } : parsePrice(conf), publishedAt: new Date(at), source: 'test' };
}

function setup(script: (Map<string, PriceQuote> | Error)[], over: Partial<FreshPricesOptions> = {}) {
  let now = T0;
  const source = new ScriptedSource(script);
  const errors: unknown[] = [];
  const fresh = new FreshPrices({
    source,
    assetIds: ['sol', 'usdc', 'bonk', 'usdt'],
    maxAgeMs: 60_000,
    maxConfidenceBps: 100,
    refreshIntervalMs: 10_000,
    clock: readingClock(() => now),
    onRefreshError: (e) => errors.push(e),
    ...over,
  });
  return { fresh, source, errors, advance: (ms: number) => (now += ms), at: () => now };
}

function expectCode(f: () => unknown, code: string): HushError {
  let caught: unknown;
  try {
    f();
  } catch (e) {
    caught = e;
  }
  assert.ok(isHushError(caught), `expected HushError ${code}, got ${String(caught)}`);
  assert.equal(caught.code, code);
  return caught;
}

const ALL = (at: number) => new Map([['sol', q('sol', '150', at)], ['usdc', q('usdc', '1', at)], ['bonk', q('bonk', '0.00002', at)]]);

describe('FreshPrices', () => {
  it('answers both sides from memory after a refresh, asking only for supported assets', async () => {
    const { fresh, source } = setup([ALL(T0)]);
    await fresh.refresh();
    const r = fresh.pairRate('sol', 'usdc');
    assert.deepEqual(r.from.price, parsePrice('150'));
    assert.deepEqual(r.to.price, parsePrice('1'));
    assert.deepEqual(source.calls, [['sol', 'usdc', 'bonk']]); // usdt is not supported by this source
    // repeated reads do not call the source
    fresh.pairRate('bonk', 'sol');
    assert.equal(source.calls.length, 1);
  });

  it('is SERVICE_UNAVAILABLE with Retry-After before the first successful answer', async () => {
    const { fresh, errors } = setup([new PriceSourceError('down')]);
    const e1 = expectCode(() => fresh.pairRate('sol', 'usdc'), 'SERVICE_UNAVAILABLE');
    assert.equal(e1.httpStatus, 503);
    assert.equal(e1.retryAfterSeconds, 10);
    await fresh.refresh();
    assert.equal(errors.length, 1);
    expectCode(() => fresh.pairRate('sol', 'usdc'), 'SERVICE_UNAVAILABLE');
    assert.equal(fresh.status().loaded, false);
    assert.equal(fresh.status().consecutiveFailures, 1);
  });

  it('never quotes on a stale price: a price older than maxAge is SERVICE_UNAVAILABLE', async () => {
    const { fresh, advance } = setup([ALL(T0), new PriceSourceError('down')]);
    await fresh.refresh();
    advance(60_000);
    fresh.pairRate('sol', 'usdc'); // exactly maxAge old: still fine
    await fresh.refresh(); // fails: snapshot kept
    advance(1);
    const e = expectCode(() => fresh.pairRate('sol', 'usdc'), 'SERVICE_UNAVAILABLE');
    assert.equal(e.retryAfterSeconds, 10);
    assert.match(e.message, /too old/);
  });

  it('a stale publish time from the source is stale even right after a refresh', async () => {
    const m = ALL(T0);
    m.set('sol', q('sol', '150', T0 - 300_000));
    const { fresh } = setup([m]);
    await fresh.refresh();
    expectCode(() => fresh.pairRate('sol', 'usdc'), 'SERVICE_UNAVAILABLE');
    expectCode(() => fresh.pairRate('usdc', 'sol'), 'SERVICE_UNAVAILABLE');
    fresh.pairRate('usdc', 'bonk'); // the other assets are fine
  });

  it('a price published in the future beyond maxAge (clock skew) is refused', async () => {
    const m = ALL(T0);
    m.set('bonk', q('bonk', '0.00002', T0 + 120_000));
    const { fresh } = setup([m]);
    await fresh.refresh();
    expectCode(() => fresh.pairRate('bonk', 'usdc'), 'SERVICE_UNAVAILABLE');
  });

  it('refuses a confidence interval wider than maxConfidenceBps, accepts one at the limit', async () => {
    const m = ALL(T0);
    m.set('sol', q('sol', '150', T0, '1.5')); // exactly 100 bps
    m.set('bonk', q('bonk', '0.00002', T0, '0.0000002000001')); // just over 100 bps
    const { fresh } = setup([m]);
    await fresh.refresh();
    fresh.pairRate('sol', 'usdc');
    const e = expectCode(() => fresh.pairRate('usdc', 'bonk'), 'SERVICE_UNAVAILABLE');
    assert.match(e.message, /uncertain/);
  });

  it('missing confidence: accepted by default, refused under the reject rule', async () => {
    const m = ALL(T0);
    m.set('sol', q('sol', '150', T0, null));
    const accept = setup([m]);
    await accept.fresh.refresh();
    accept.fresh.pairRate('sol', 'usdc');
    const reject = setup([m], { missingConfidence: 'reject' });
    await reject.fresh.refresh();
    expectCode(() => reject.fresh.pairRate('sol', 'usdc'), 'SERVICE_UNAVAILABLE');
  });

  it('PAIR_NOT_SUPPORTED for untracked assets, unsupported assets, and assets the source did not price', async () => {
    const m = ALL(T0);
    m.delete('bonk');
    const { fresh } = setup([m]);
    await fresh.refresh();
    const e = expectCode(() => fresh.pairRate('sol', 'doge'), 'PAIR_NOT_SUPPORTED');
    assert.equal(e.httpStatus, 400);
    assert.deepEqual(e.details, { sourceAssetId: 'sol', destinationAssetId: 'doge' });
    expectCode(() => fresh.pairRate('usdt', 'sol'), 'PAIR_NOT_SUPPORTED'); // tracked, source has no feed
    expectCode(() => fresh.pairRate('bonk', 'usdc'), 'PAIR_NOT_SUPPORTED'); // source answered without it
  });

  it('a successful answer replaces the snapshot: an asset dropped by the source stops being quoted', async () => {
    const without = ALL(T0 + 10_000);
    without.delete('bonk');
    const { fresh, advance } = setup([ALL(T0), without]);
    await fresh.refresh();
    fresh.pairRate('bonk', 'usdc');
    advance(10_000);
    await fresh.refresh();
    expectCode(() => fresh.pairRate('bonk', 'usdc'), 'PAIR_NOT_SUPPORTED');
    fresh.pairRate('sol', 'usdc');
  });

  it('ignores entries filed under the wrong asset id', async () => {
    const m = ALL(T0);
    m.set('usdc', q('sol', '150', T0)); // a buggy source: usdc answered with SOL's quote
    const { fresh } = setup([m]);
    await fresh.refresh();
    expectCode(() => fresh.pairRate('usdc', 'sol'), 'PAIR_NOT_SUPPORTED');
  });

  it('start() loads once, refreshes in the background, stop() ends it; concurrent refreshes share one request', async () => {
    const { fresh, source } = setup([ALL(T0)], { refreshIntervalMs: 20, clock: readingClock(() => Date.now()), maxAgeMs: 60_000 });
    await Promise.all([fresh.refresh(), fresh.refresh(), fresh.refresh()]);
    assert.equal(source.calls.length, 1);
    await fresh.start();
    await new Promise((r) => setTimeout(r, 120));
    fresh.stop();
    const n = source.calls.length;
    assert.ok(n >= 3, `expected background refreshes, saw ${n} calls`);
    await new Promise((r) => setTimeout(r, 80));
    assert.equal(source.calls.length, n, 'refreshing went on after stop()');
  });

  it('priceNow: one asset by the same rules as a pair, null where a pair would refuse', async () => {
    const { fresh, advance, at } = setup([new Map([['sol', q('sol', '150', T0)], ['usdc', q('usdc', '1', T0, '0.02')]])]);
    assert.equal(fresh.priceNow('sol'), null, 'not loaded yet');
    await fresh.refresh();
    assert.deepEqual(fresh.priceNow('sol')?.price, parsePrice('150'));
    assert.equal(fresh.priceNow('usdc'), null, 'too uncertain (2 % against 1 %)');
    assert.equal(fresh.priceNow('bonk'), null, 'supported, not priced');
    assert.equal(fresh.priceNow('usdt'), null, 'not supported by the source');
    assert.equal(fresh.priceNow('nope'), null, 'not tracked');
    // Its own price decides: a pair with an unusable other side would be refused, this one is not.
    expectCode(() => fresh.pairRate('sol', 'usdc'), 'SERVICE_UNAVAILABLE');
    assert.ok(fresh.priceNow('sol'));
    advance(60_001);
    assert.ok(at() - T0 > 60_000);
    assert.equal(fresh.priceNow('sol'), null, 'stale');
  });

  it('rejects nonsensical options', () => {
    const source = new ScriptedSource([new Map()]);
    assert.throws(() => new FreshPrices({ source, assetIds: [], maxAgeMs: 0, maxConfidenceBps: 1, refreshIntervalMs: 1, clock: systemClock }), RangeError);
    assert.throws(() => new FreshPrices({ source, assetIds: [], maxAgeMs: 1, maxConfidenceBps: -1, refreshIntervalMs: 1, clock: systemClock }), RangeError);
  });
});
