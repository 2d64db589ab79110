/**
 * Pyth Hermes adapter: `GET {base}/v2/updates/price/latest?ids[]=<feed>&…&parsed=true`.
 *
 * Answer shape (Hermes v2, as in @pythnetwork/hermes-client's schema):
 *   { "binary": { "encoding": "hex"|"base64", "data": [..] },
 *     "parsed": [ { "id": "<64 hex, no 0x>",
 *                   "price":     { "price": "<i64 text>", "conf": "<u64 text>", "expo": <int>, "publish_time": <unix s> },
 *                   "ema_price": { …same… },
 *                   "metadata":  { "slot", "proof_available_time", "prev_publish_time" } } ] }
 *
 * The value is price × 10^expo USD and the confidence half-width conf × 10^expo, both turned into
 * exact fractions from the integer texts (no float). `publish_time` becomes publishedAt, so a stale
 * feed is seen as stale by FreshPrices. `ignore_invalid_price_ids=true` keeps one bad feed id from
 * failing the whole request (Hermes answers 404 otherwise); that asset is then simply absent.
 *
 * Strictness: a body that is not JSON, lacks `parsed`, or has an entry of the wrong shape is refused
 * as a whole (PriceSourceError), since a garbled answer cannot be trusted in part. A well-formed
 * entry with a price ≤ 0 is dropped (the feed has no usable price).
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { fromMantissaExponent } from '../domain/exact-decimal.ts';
import { type ExactJson, ExactJsonError, isObject, parseExactJson, safeInteger } from './exact-json.ts';
import { type FetchLike, joinUrl, requestText } from './http.ts';
import type { Clock } from '../support/clock.ts';
import { type PriceQuote, type PriceSource, PriceSourceError } from './price-source.ts';

export const DEFAULT_PYTH_URL = 'https://hermes.pyth.network';

const FEED_ID = /^(?:0x)?([0-9a-fA-F]{64})$/;
const INT = /^-?(0|[1-9][0-9]*)$/;
const UINT = /^(0|[1-9][0-9]*)$/;
/** i64 text is at most 20 characters with a sign; refuse anything longer before BigInt sees it. */
const MAX_INT_TEXT = 21;

const DEFAULT_FEEDS_PATH = fileURLToPath(new URL('../../config/price-feeds.json', import.meta.url));

/** Normalises a feed id to 64 lowercase hex characters (no 0x); throws on anything else. */
export function normaliseFeedId(id: string): string {
  const m = FEED_ID.exec(id);
  if (!m) throw new RangeError(`not a Pyth feed id: "${id}"`);
  return m[1]!.toLowerCase();
}

/** assetId → feed id, from config/price-feeds.json (or another file of the same shape). */
export function loadPythFeeds(path = DEFAULT_FEEDS_PATH): Map<string, string> {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { pyth?: Record<string, { feedId?: unknown }> };
  const out = new Map<string, string>();
  for (const [assetId, entry] of Object.entries(raw.pyth ?? {})) {
    if (typeof entry?.feedId !== 'string') throw new RangeError(`price-feeds: ${assetId} has no feedId`);
    out.set(assetId, normaliseFeedId(entry.feedId));
  }
  return out;
}

function malformed(why: string): never {
  throw new PriceSourceError(`pyth: malformed answer: ${why}`);
}

function intText(v: ExactJson | undefined, pattern: RegExp, field: string): bigint {
  if (typeof v !== 'string' || v.length > MAX_INT_TEXT || !pattern.test(v)) malformed(`${field} is not an integer string`);
  return BigInt(v);
}

/**
 * Parses a Hermes `latest` body into quotes for the requested feeds (feedId → assetId). Entries for
 * feeds not asked for are ignored; a feed appearing twice is malformed.
 */
export function parseHermesLatest(body: string, feedToAsset: ReadonlyMap<string, string>): Map<string, PriceQuote> {
  let doc: ExactJson;
  try {
    doc = parseExactJson(body);
  } catch (e) {
    if (e instanceof ExactJsonError) malformed(`not JSON (${e.message})`);
    throw e;
  }
  if (!isObject(doc)) malformed('not an object');
  const parsed = doc.parsed;
  if (!Array.isArray(parsed)) malformed('no "parsed" array');
  const out = new Map<string, PriceQuote>();
  const seen = new Set<string>();
  for (const entry of parsed) {
    if (!isObject(entry)) malformed('entry is not an object');
    if (typeof entry.id !== 'string' || !FEED_ID.test(entry.id)) malformed('entry without a feed id');
    const feedId = normaliseFeedId(entry.id);
    if (seen.has(feedId)) malformed(`feed ${feedId} appears twice`);
    seen.add(feedId);
    const p = entry.price;
    if (!isObject(p)) malformed(`feed ${feedId}: no price object`);
    const mantissa = intText(p.price, INT, 'price.price');
    const conf = intText(p.conf, UINT, 'price.conf');
    const expo = safeInteger(p.expo);
    if (expo === null || expo < -30 || expo > 30) malformed(`feed ${feedId}: bad expo`);
    const publishTime = safeInteger(p.publish_time);
    if (publishTime === null || publishTime <= 0) malformed(`feed ${feedId}: bad publish_time`);
    const assetId = feedToAsset.get(feedId);
    if (assetId === undefined) continue;
    if (mantissa <= 0n) continue; // well-formed but unusable: no price for this asset
    out.set(assetId, {
      assetId,
      price: fromMantissaExponent(mantissa, expo),
      confidence: fromMantissaExponent(conf, expo),
      publishedAt: new Date(publishTime * 1000),
      source: 'pyth',
    });
  }
  return out;
}

export interface PythHermesOptions {
  baseUrl?: string;
  /** assetId → feed id (any case, with or without 0x). */
  feeds: ReadonlyMap<string, string>;
  fetch?: FetchLike;
  /** Sent as `Authorization: Bearer <key>` (Pyth's upgraded Hermes requires one). Never logged. */
  apiKey?: string;
  timeoutMs?: number;
  /** Where the request's timeout runs. */
  clock: Pick<Clock, 'timeout'>;
}

export class PythHermesSource implements PriceSource {
  private readonly feeds = new Map<string, string>();
  private readonly baseUrl: string;

  constructor(private readonly opts: PythHermesOptions) {
    for (const [assetId, id] of opts.feeds) this.feeds.set(assetId, normaliseFeedId(id));
    this.baseUrl = opts.baseUrl ?? DEFAULT_PYTH_URL;
  }

  supports(assetId: string): boolean {
    return this.feeds.has(assetId);
  }

  /** The request URL for these assets (exported behaviour for tests and logs; carries no secret). */
  urlFor(assetIds: readonly string[]): string {
    const q = new URLSearchParams();
    for (const id of assetIds) {
      const feed = this.feeds.get(id);
      if (feed) q.append('ids[]', `0x${feed}`);
    }
    q.set('parsed', 'true');
    q.set('encoding', 'base64');
    q.set('ignore_invalid_price_ids', 'true');
    return `${joinUrl(this.baseUrl, '/v2/updates/price/latest')}?${q}`;
  }

  async latest(assetIds: string[]): Promise<Map<string, PriceQuote>> {
    const wanted = assetIds.filter((id) => this.feeds.has(id));
    if (wanted.length === 0) return new Map();
    const feedToAsset = new Map(wanted.map((id) => [this.feeds.get(id)!, id]));
    const headers: Record<string, string> = {};
    if (this.opts.apiKey) headers.authorization = `Bearer ${this.opts.apiKey}`;
    const { text } = await requestText('pyth hermes latest', this.urlFor(wanted), { method: 'GET' }, { fetch: this.opts.fetch, timeoutMs: this.opts.timeoutMs, clock: this.opts.clock, headers });
    return parseHermesLatest(text, feedToAsset);
  }
}
