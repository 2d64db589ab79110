/**
 * Jupiter Price API v3 adapter: `GET {base}/price/v3?ids=<mint>,<mint>`.
 *
 * Answer shape (dev.jup.ag, Price API V3):
 *   { "<mint>": { "usdPrice": 147.48, "blockId": 348004023, "decimals": 9, "priceChange24h": 1.29,
 *                 "createdAt": "…", "liquidity": 621679197.67 }, … }
 * Tokens without a reliable price are omitted from the answer (we also accept an explicit null).
 *
 * `usdPrice` is a JSON number: it is parsed from its source text (exact-json) into an exact fraction,
 * never through a double, so `0.0000123` is exactly 123/10^7. A decimal string is accepted too.
 *
 * Jupiter publishes neither a confidence interval (confidence: null, see FreshPrices'
 * `missingConfidence` rule) nor a publish time: publishedAt is when Hush received the answer, so
 * maxAge bounds how long an answer is reused, and `blockId` is the only hint of market age.
 * `decimals` must match the asset's configured decimals, else the mint is not the asset we think it
 * is and the entry is dropped. A body that is not a JSON object of objects is refused as a whole.
 */
import { parsePositivePrice } from '../domain/exact-decimal.ts';
import { type ExactJson, ExactJsonError, JsonNumber, isObject, parseExactJson, safeInteger } from './exact-json.ts';
import { type FetchLike, joinUrl, requestText } from './http.ts';
import type { Clock } from '../support/clock.ts';
import { type PriceQuote, type PriceSource, PriceSourceError } from './price-source.ts';

/** Jupiter's keyless host; the keyed host is https://api.jup.ag (set HUSH_JUPITER_URL and HUSH_JUPITER_API_KEY). */
export const DEFAULT_JUPITER_URL = 'https://lite-api.jup.ag';

export interface JupiterAsset {
  mint: string;
  decimals: number;
}

function malformed(why: string): never {
  throw new PriceSourceError(`jupiter: malformed answer: ${why}`);
}

function decimalText(v: ExactJson | undefined): string | null {
  if (v instanceof JsonNumber) return v.text;
  if (typeof v === 'string') return v;
  return null;
}

/** Parses a Price v3 body for the given assets (assetId → mint/decimals) received at `receivedAt`. */
function parseJupiterPrices(body: string, assets: ReadonlyMap<string, JupiterAsset>, receivedAt: Date): Map<string, PriceQuote> {
  let doc: ExactJson;
  try {
    doc = parseExactJson(body);
  } catch (e) {
    if (e instanceof ExactJsonError) malformed(`not JSON (${e.message})`);
    throw e;
  }
  if (!isObject(doc)) malformed('not an object');
  for (const [mint, entry] of Object.entries(doc)) {
    if (entry !== null && !isObject(entry)) malformed(`entry for ${mint} is not an object`);
    if (entry !== null && decimalText(entry.usdPrice) === null) malformed(`entry for ${mint} has no usdPrice`);
  }
  const out = new Map<string, PriceQuote>();
  for (const [assetId, asset] of assets) {
    const entry = doc[asset.mint];
    if (entry === undefined || entry === null || !isObject(entry)) continue;
    const price = parsePositivePrice(decimalText(entry.usdPrice)!);
    if (!price) continue; // zero, negative or not a decimal: no usable price
    if (entry.decimals !== undefined && safeInteger(entry.decimals) !== asset.decimals) continue;
    out.set(assetId, { assetId, price, confidence: null, publishedAt: receivedAt, source: 'jupiter' });
  }
  return out;
}

export interface JupiterPriceOptions {
  baseUrl?: string;
  /** assetId → mint and decimals (from config/assets.json). */
  assets: ReadonlyMap<string, JupiterAsset>;
  fetch?: FetchLike;
  /** Sent as `x-api-key` (required on api.jup.ag). Never logged. */
  apiKey?: string;
  timeoutMs?: number;
  /** The answer's receipt time (its publishedAt) and the request's timeout. */
  clock: Pick<Clock, 'now' | 'timeout'>;
}

export class JupiterPriceSource implements PriceSource {
  private readonly baseUrl: string;

  constructor(private readonly opts: JupiterPriceOptions) {
    this.baseUrl = opts.baseUrl ?? DEFAULT_JUPITER_URL;
  }

  supports(assetId: string): boolean {
    return this.opts.assets.has(assetId);
  }

  urlFor(assetIds: readonly string[]): string {
    const mints = assetIds.map((id) => this.opts.assets.get(id)?.mint).filter((m): m is string => m !== undefined);
    // Mints are base58 (no characters that need escaping); commas separate them as documented.
    return `${joinUrl(this.baseUrl, '/price/v3')}?ids=${[...new Set(mints)].join(',')}`;
  }

  async latest(assetIds: string[]): Promise<Map<string, PriceQuote>> {
    const wanted = new Map([...this.opts.assets].filter(([id]) => assetIds.includes(id)));
    if (wanted.size === 0) return new Map();
    const headers: Record<string, string> = {};
    if (this.opts.apiKey) headers['x-api-key'] = this.opts.apiKey;
    const { text } = await requestText('jupiter price v3', this.urlFor([...wanted.keys()]), { method: 'GET' }, { fetch: this.opts.fetch, timeoutMs: this.opts.timeoutMs, clock: this.opts.clock, headers });
    return parseJupiterPrices(text, wanted, new Date(this.opts.clock.now()));
  }
}
