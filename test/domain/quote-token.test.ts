import assert from 'node:assert/strict';
import { createHmac, randomBytes } from 'node:crypto';
import { describe, it } from 'node:test';
import { type Address, getAddressDecoder } from '@solana/kit';
import fc from 'fast-check';
import { quoteSameAsset } from '../../src/domain/fees.ts';
import { U64_MAX, toAmount } from '../../src/domain/money.ts';
import {
  type QuoteObject,
  type QuoteTerms,
  firstQuoteDifference,
  issueQuote,
  openQuoteId,
  quoteKey,
} from '../../src/domain/quote-token.ts';

const SECRET = new Uint8Array(randomBytes(32));
const ACCOUNT = 'acc_01HZX4Q7';
const addressDecoder = getAddressDecoder();
const addr = (bytes: Uint8Array): Address => addressDecoder.decode(bytes);
const SENDER = addr(new Uint8Array(32).fill(7));
const RECIPIENT = addr(new Uint8Array(32).fill(9));
const FEE_RECIPIENT = addr(new Uint8Array(32).fill(11));

const addressArb = fc.uint8Array({ minLength: 32, maxLength: 32 }).map(addr);
const amountArb = fc.oneof(fc.bigInt({ min: 0n, max: 10n ** 10n }), fc.bigInt({ min: 0n, max: U64_MAX })).map(toAmount);
const assetArb = fc.oneof(fc.constantFrom('sol', 'usdc', 'usdt', 'bonk'), fc.stringMatching(/^[\x21-\x7e]{1,32}$/));
const termsArb: fc.Arbitrary<QuoteTerms> = fc
  .record({
    sourceAssetId: assetArb,
    destinationAssetId: assetArb,
    sameAsset: fc.boolean(),
    mode: fc.constantFrom('exact_in' as const, 'exact_out' as const),
    amountIn: amountArb,
    amountOut: amountArb,
    serviceFee: amountArb.map((a) => toAmount(a / 4n)),
    partnerFee: amountArb.map((a) => toAmount(a / 4n)),
    networkFee: amountArb.map((a) => toAmount(a / 4n)),
    min: amountArb,
    max: amountArb,
    duration: fc.oneof(fc.integer({ min: 0, max: 120 }), fc.maxSafeNat()),
    issuedAtMs: fc.integer({ min: 0, max: 2 ** 47 }),
    ttlMs: fc.oneof(fc.constant(60_000), fc.integer({ min: 0, max: 2 ** 40 })),
    senderAddress: addressArb,
    recipientAddress: addressArb,
    sameWallet: fc.boolean(),
    feeBps: fc.integer({ min: 0, max: 1000 }),
    feeRecipientAddress: fc.option(addressArb, { nil: undefined }),
    nonce: fc.uint8Array({ minLength: 8, maxLength: 8 }),
    standard: fc.boolean(),
    anonymitySet: fc.oneof(fc.integer({ min: 1, max: 64 }), fc.integer({ min: 1, max: Number.MAX_SAFE_INTEGER })),
    likelyAbove: fc.oneof(fc.constant(0), fc.integer({ min: 0, max: 64 })),
    delaySeconds: fc.oneof(fc.integer({ min: 0, max: 600 }), fc.maxSafeNat()),
    suggestedAmounts: fc.array(amountArb, { maxLength: 4 }),
    basis: fc.constantFrom('measured' as const, 'no_traffic' as const),
    requested: fc.option(fc.oneof(fc.integer({ min: 1, max: 1000 }).map((n) => ({ minAnonymitySet: n })), fc.maxSafeNat().map((s) => ({ maxDelaySeconds: s }))), { nil: undefined }),
  })
  .map(({ sameAsset, ttlMs, sameWallet, feeRecipientAddress, requested, likelyAbove, ...t }) => {
    const terms: QuoteTerms = {
      ...t,
      anonymitySetLikely: Math.min(Number.MAX_SAFE_INTEGER, t.anonymitySet + likelyAbove),
      destinationAssetId: sameAsset ? t.sourceAssetId : t.destinationAssetId,
      recipientAddress: sameWallet ? t.senderAddress : t.recipientAddress,
      expiresAtMs: t.issuedAtMs + ttlMs,
    };
    if (feeRecipientAddress !== undefined) terms.feeRecipientAddress = feeRecipientAddress;
    if (requested !== undefined) terms.requested = requested;
    return terms;
  });

/** A realistic quote: 100 USDC send, exact_in, partner fee 50 bps, distinct sender and recipient. */
function typicalTerms(over: Partial<QuoteTerms> = {}): QuoteTerms {
  const fees = quoteSameAsset({
    mode: 'exact_in', amount: toAmount(100_000_000n), feeBps: 50, serviceFeeBps: 30, networkFee: toAmount(2_100n),
    min: toAmount(1_000_000n), max: toAmount(1_000_000_000_000n),
  });
  const issuedAtMs = Date.parse('2026-11-21T10:00:00.123Z');
  return {
    ...fees, sourceAssetId: 'usdc', destinationAssetId: 'usdc', duration: 25, standard: true, anonymitySet: 8,
    anonymitySetLikely: 10, delaySeconds: 20, suggestedAmounts: [toAmount(50_000_000n), toAmount(100_000_000n), toAmount(200_000_000n)], basis: 'measured', min: toAmount(1_000_000n),
    max: toAmount(1_000_000_000_000n), issuedAtMs, expiresAtMs: issuedAtMs + 60_000, senderAddress: SENDER,
    recipientAddress: RECIPIENT, feeBps: 50, feeRecipientAddress: FEE_RECIPIENT, nonce: new Uint8Array(randomBytes(8)), ...over,
  };
}

const FIELD_PATHS = [
  'sourceAssetId', 'destinationAssetId', 'mode', 'amountIn', 'amountOut', 'fee', 'protocolFee', 'networkFee',
  'feeBreakdown.serviceFee', 'feeBreakdown.partnerFee', 'feeBreakdown.networkFee', 'feeBreakdown.depositAccountRent', 'duration', 'min', 'max',
  'privacy.standard', 'privacy.anonymitySet', 'privacy.delaySeconds', 'privacy.suggestedAmounts', 'quoteId', 'issuedAt', 'expiresAt',
];

function setPath(obj: Record<string, unknown>, path: string, value: unknown): void {
  const [head, tail] = path.split('.') as [string, string | undefined];
  if (tail === undefined) obj[head] = value;
  else (obj[head] as Record<string, unknown>)[tail] = value;
}
function deletePath(obj: Record<string, unknown>, path: string): void {
  const [head, tail] = path.split('.') as [string, string | undefined];
  if (tail === undefined) delete obj[head];
  else delete (obj[head] as Record<string, unknown>)[tail];
}
const wireCopy = (q: QuoteObject): Record<string, unknown> => JSON.parse(JSON.stringify(q));

describe('quote token', () => {
  it('round trips random quotes exactly as issued, with their request terms', () => {
    fc.assert(
      fc.property(termsArb, (terms) => {
        const quote = issueQuote(SECRET, ACCOUNT, terms);
        const opened = openQuoteId(SECRET, ACCOUNT, quote.quoteId);
        assert.ok(opened);
        assert.deepEqual(opened.quote, quote);
        assert.equal(JSON.stringify(opened.quote), JSON.stringify(quote)); // same key order too
        assert.equal(firstQuoteDifference(opened.quote, wireCopy(quote)), null);
        const request: Record<string, unknown> = {
          senderAddress: terms.senderAddress, recipientAddress: terms.recipientAddress, feeBps: terms.feeBps,
        };
        if (terms.feeRecipientAddress !== undefined) request.feeRecipientAddress = terms.feeRecipientAddress;
        assert.deepEqual(opened.request, request);
        assert.equal(opened.nonce, Buffer.from(terms.nonce!).toString('hex'));
        assert.equal(opened.key, quoteKey(quote.quoteId));
        // The wire shape the partner sees.
        assert.equal(quote.fee, (terms.serviceFee + terms.partnerFee + terms.networkFee).toString());
        assert.equal(quote.protocolFee, (terms.serviceFee + terms.partnerFee).toString());
        assert.equal(quote.expiresAt, new Date(terms.expiresAtMs).toISOString());
        assert.equal(quote.issuedAt, new Date(terms.issuedAtMs).toISOString());
      }),
      { numRuns: 1000 },
    );
  });

  it('tags every quote with HMAC-SHA256 over domain, account and payload, for any secret and accountId', () => {
    fc.assert(
      fc.property(
        termsArb,
        fc.uint8Array({ minLength: 16, maxLength: 200 }), // longer than a SHA-256 block too (the key is hashed first)
        fc.oneof(fc.string({ minLength: 1, maxLength: 40 }), fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }), fc.string({ unit: 'grapheme', minLength: 300, maxLength: 600 })),
        (terms, secret, accountId) => {
          const bytes = Buffer.from(issueQuote(secret, accountId, terms).quoteId.slice(2), 'base64url');
          const len = Buffer.alloc(2);
          len.writeUInt16BE(Buffer.byteLength(accountId));
          const want = createHmac('sha256', secret).update('hush/quote/v1').update(len).update(accountId).update(bytes.subarray(0, -16)).digest().subarray(0, 16);
          assert.deepEqual(bytes.subarray(-16), want);
          assert.ok(openQuoteId(secret, accountId, 'q_' + bytes.toString('base64url')));
        },
      ),
      { numRuns: 500 },
    );
  });

  it('rejects every single-byte change of the payload or MAC, and every single-character change of the id', () => {
    for (const terms of [typicalTerms(), typicalTerms({ recipientAddress: SENDER, feeRecipientAddress: undefined, feeBps: 0 })]) {
      const { quoteId } = issueQuote(SECRET, ACCOUNT, terms);
      const bytes = Buffer.from(quoteId.slice(2), 'base64url');
      for (let i = 0; i < bytes.length; i++) {
        for (let bit = 0; bit < 8; bit++) {
          const t = Buffer.from(bytes);
          t[i]! ^= 1 << bit;
          assert.equal(openQuoteId(SECRET, ACCOUNT, 'q_' + t.toString('base64url')), null, `byte ${i} bit ${bit}`);
        }
      }
      const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_+/=. ';
      for (let i = 0; i < quoteId.length; i++) {
        for (const c of alphabet) {
          if (c === quoteId[i]) continue;
          const t = quoteId.slice(0, i) + c + quoteId.slice(i + 1);
          assert.equal(openQuoteId(SECRET, ACCOUNT, t), null, `char ${i} → ${c}`);
        }
      }
      for (let n = 0; n < quoteId.length; n++) assert.equal(openQuoteId(SECRET, ACCOUNT, quoteId.slice(0, n)), null);
      for (const extra of ['A', 'AA', 'AAAA', '=']) assert.equal(openQuoteId(SECRET, ACCOUNT, quoteId + extra), null);
      assert.ok(openQuoteId(SECRET, ACCOUNT, quoteId));
    }
  });

  it('rejects a quoteId presented by another account or checked with another secret', () => {
    const { quoteId } = issueQuote(SECRET, ACCOUNT, typicalTerms());
    assert.equal(openQuoteId(SECRET, 'acc_other', quoteId), null);
    assert.equal(openQuoteId(SECRET, ACCOUNT + 'x', quoteId), null);
    assert.equal(openQuoteId(new Uint8Array(randomBytes(32)), ACCOUNT, quoteId), null);
    assert.ok(openQuoteId(SECRET, ACCOUNT, quoteId));
  });

  it('rejects malformed ids and validly MACed payloads it cannot read', () => {
    for (const bad of ['', 'q_', 'q', 'x_AAAA', 'q_!!!!', 'q_' + 'A'.repeat(600), 5, null, {}]) {
      assert.equal(openQuoteId(SECRET, ACCOUNT, bad as string), null, String(bad));
    }
    // Re-MAC payloads with the real key to prove the parser, not only the MAC, is strict.
    const { quoteId } = issueQuote(SECRET, ACCOUNT, typicalTerms());
    const payload = Buffer.from(quoteId.slice(2), 'base64url').subarray(0, -16);
    const sign = (p: Buffer): string => {
      const len = Buffer.alloc(2);
      len.writeUInt16BE(Buffer.byteLength(ACCOUNT));
      const tag = createHmac('sha256', SECRET).update('hush/quote/v1').update(len).update(ACCOUNT).update(p).digest().subarray(0, 16);
      return 'q_' + Buffer.concat([p, tag]).toString('base64url');
    };
    assert.ok(openQuoteId(SECRET, ACCOUNT, sign(payload)), 'test re-signing matches the implementation');
    for (const version of [1, 2, 3, 4, 6]) {
      const other = Buffer.from(payload);
      other[0] = version;
      assert.equal(openQuoteId(SECRET, ACCOUNT, sign(other)), null, `version ${version}`);
    }
    // The tail is: anonymitySet 8, anonymitySetLikely 10, delaySeconds 20, 3 suggestions (varints of 4 bytes each).
    const tail = payload.length - 1 - 3 * 4;
    assert.equal(payload[tail], 3, 'test knows where the suggestion count is');
    const tooMany = Buffer.from(payload);
    tooMany[tail] = 5;
    assert.equal(openQuoteId(SECRET, ACCOUNT, sign(tooMany)), null, 'more than 4 suggestions');
    const noSet = Buffer.from(payload);
    noSet[tail - 3] = 0;
    assert.equal(openQuoteId(SECRET, ACCOUNT, sign(noSet)), null, 'an anonymity set of 0');
    const likelyBelow = Buffer.from(payload);
    likelyBelow[tail - 2] = 7;
    assert.equal(openQuoteId(SECRET, ACCOUNT, sign(likelyBelow)), null, 'a likely set below the promised one');
    const flags = Buffer.from(payload);
    flags[1]! |= 0x80;
    assert.equal(openQuoteId(SECRET, ACCOUNT, sign(flags)), null, 'unknown flag');
    assert.equal(openQuoteId(SECRET, ACCOUNT, sign(Buffer.concat([payload, Buffer.from([0])]))), null, 'trailing byte');
    assert.equal(openQuoteId(SECRET, ACCOUNT, sign(payload.subarray(0, -1))), null, 'truncated');
  });

  it('refuses weak secrets and invalid terms at issue', () => {
    assert.throws(() => issueQuote(new Uint8Array(8), ACCOUNT, typicalTerms()), RangeError);
    assert.throws(() => issueQuote(SECRET, '', typicalTerms()), RangeError);
    assert.throws(() => issueQuote(SECRET, ACCOUNT, typicalTerms({ sourceAssetId: 'x'.repeat(33) })), RangeError);
    assert.throws(() => issueQuote(SECRET, ACCOUNT, typicalTerms({ duration: 1.5 })), RangeError);
    assert.throws(() => issueQuote(SECRET, ACCOUNT, typicalTerms({ expiresAtMs: 0 })), RangeError);
    assert.throws(() => issueQuote(SECRET, ACCOUNT, typicalTerms({ anonymitySet: 0 })), RangeError);
    assert.throws(() => issueQuote(SECRET, ACCOUNT, typicalTerms({ delaySeconds: -1 })), RangeError);
    assert.throws(() => issueQuote(SECRET, ACCOUNT, typicalTerms({ suggestedAmounts: Array(5).fill(toAmount(1n)) })), RangeError);
    assert.throws(() => issueQuote(SECRET, ACCOUNT, typicalTerms({ senderAddress: 'not-an-address' as Address })));
  });

  it('carries the fee grid rung networkFee was priced at, outside the quote object; none given reads as null', () => {
    const priced = issueQuote(SECRET, ACCOUNT, typicalTerms({ networkFeePrice: 4_000n }));
    assert.equal(openQuoteId(SECRET, ACCOUNT, priced.quoteId)!.networkFeePrice, 4_000n);
    assert.ok(!('networkFeePrice' in priced), 'not a field of the public quote');
    assert.equal(openQuoteId(SECRET, ACCOUNT, issueQuote(SECRET, ACCOUNT, typicalTerms()).quoteId)!.networkFeePrice, null);
    assert.throws(() => issueQuote(SECRET, ACCOUNT, typicalTerms({ networkFeePrice: -1n })), RangeError);
  });

  it('quoteKey is stable per quote and distinct across quotes whose terms differ only in their nonce', () => {
    const terms = typicalTerms();
    const a = issueQuote(SECRET, ACCOUNT, terms);
    const b = issueQuote(SECRET, ACCOUNT, { ...terms, nonce: new Uint8Array(randomBytes(8)) });
    assert.notEqual(a.quoteId, b.quoteId);
    assert.notEqual(quoteKey(a.quoteId), quoteKey(b.quoteId));
    assert.equal(quoteKey(a.quoteId), openQuoteId(SECRET, ACCOUNT, a.quoteId)!.key);
    assert.match(quoteKey(a.quoteId), /^[0-9a-f]{32}$/);
    assert.throws(() => quoteKey('nope'), RangeError);
  });

  it('finds the first added, removed, changed, nested or type-changed field', () => {
    const quote = issueQuote(SECRET, ACCOUNT, typicalTerms());
    for (const path of FIELD_PATHS) {
      const changed = wireCopy(quote);
      setPath(changed, path, path === 'duration' ? 26 : 'x');
      assert.equal(firstQuoteDifference(quote, changed), path, `changed ${path}`);
      const removed = wireCopy(quote);
      deletePath(removed, path);
      assert.equal(firstQuoteDifference(quote, removed), path, `removed ${path}`);
      const retyped = wireCopy(quote);
      const v = path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], retyped);
      setPath(retyped, path, typeof v === 'number' ? String(v) : /^\d+$/.test(String(v)) ? Number(v) : null);
      assert.equal(firstQuoteDifference(quote, retyped), path, `retyped ${path}`);
    }
    const t = (mut: (q: Record<string, unknown>) => void): string | null => {
      const c = wireCopy(quote);
      mut(c);
      return firstQuoteDifference(quote, c);
    };
    assert.equal(t((q) => (q.extraField = 1)), 'extraField');
    assert.equal(t((q) => ((q.feeBreakdown as Record<string, unknown>).bonus = '1')), 'feeBreakdown.bonus');
    assert.equal(t((q) => (q.feeBreakdown = [])), 'feeBreakdown');
    assert.equal(t((q) => (q.feeBreakdown = null)), 'feeBreakdown');
    assert.equal(t((q) => (q.feeBreakdown = '{}')), 'feeBreakdown');
    assert.equal(t((q) => (q.amountIn = { value: q.amountIn })), 'amountIn');
    assert.equal(t((q) => { q.max = '1'; q.amountOut = '1'; }), 'amountOut'); // canonical order, not edit order
    assert.equal(t((q) => { q.zzz = 1; q.expiresAt = 'x'; }), 'expiresAt'); // own fields before added ones
    assert.equal(t((q) => { q.fee = ' ' + q.fee; }), 'fee');
    const privacy = (q: Record<string, unknown>): Record<string, unknown> => q.privacy as Record<string, unknown>;
    const suggested = (q: Record<string, unknown>): string[] => privacy(q).suggestedAmounts as string[];
    assert.equal(t((q) => (suggested(q)[1] = '1')), 'privacy.suggestedAmounts[1]');
    assert.equal(t((q) => suggested(q).push('1')), 'privacy.suggestedAmounts[3]');
    assert.equal(t((q) => suggested(q).pop()), 'privacy.suggestedAmounts[2]');
    assert.equal(t((q) => suggested(q).reverse()), 'privacy.suggestedAmounts[0]');
    assert.equal(t((q) => (privacy(q).suggestedAmounts = { 0: '1' })), 'privacy.suggestedAmounts');
    assert.equal(t((q) => (privacy(q).standard = 'true')), 'privacy.standard');
    assert.equal(firstQuoteDifference(quote, { ...JSON.parse('{"__proto__": 1}'), ...wireCopy(quote) }), '__proto__');
    // Key order on the wire is irrelevant.
    const reversed = Object.fromEntries(Object.entries(wireCopy(quote)).reverse());
    assert.equal(firstQuoteDifference(quote, reversed), null);
    for (const notObject of [null, 'q', 5, [], undefined]) assert.equal(firstQuoteDifference(quote, notObject), '$');
  });

  it('detects any single random leaf tamper', () => {
    fc.assert(
      fc.property(termsArb, fc.constantFrom(...FIELD_PATHS), fc.oneof(fc.string(), fc.integer(), fc.constant(null)), (terms, path, value) => {
        const quote = issueQuote(SECRET, ACCOUNT, terms);
        const c = wireCopy(quote);
        const before = path.split('.').reduce<unknown>((o, k) => (o as Record<string, unknown>)[k], c);
        fc.pre(!Object.is(before, value));
        setPath(c, path, value);
        assert.equal(firstQuoteDifference(quote, c), path);
      }),
      { numRuns: 500 },
    );
  });

  it('reports id length and speed (informational)', (t) => {
    const variants: Record<string, QuoteTerms> = {
      'send, sender = recipient, no partner fee': typicalTerms({ recipientAddress: SENDER, feeBps: 0, feeRecipientAddress: undefined }),
      'send, distinct recipient, no partner fee': typicalTerms({ feeBps: 0, feeRecipientAddress: undefined }),
      'send, distinct recipient, partner fee': typicalTerms(),
      'swap sol→usdc, distinct recipient, partner fee': typicalTerms({ sourceAssetId: 'sol', destinationAssetId: 'usdc' }),
    };
    for (const [name, terms] of Object.entries(variants)) {
      t.diagnostic(`quoteId length, ${name}: ${issueQuote(SECRET, ACCOUNT, terms).quoteId.length} chars`);
    }
    const terms = typicalTerms();
    const n = 20_000;
    const ids: string[] = [];
    for (let i = 0; i < 2000; i++) openQuoteId(SECRET, ACCOUNT, issueQuote(SECRET, ACCOUNT, terms).quoteId); // warm up
    let start = process.hrtime.bigint();
    for (let i = 0; i < n; i++) ids.push(issueQuote(SECRET, ACCOUNT, terms).quoteId);
    const issueUs = Number(process.hrtime.bigint() - start) / 1000 / n;
    start = process.hrtime.bigint();
    for (const id of ids) openQuoteId(SECRET, ACCOUNT, id);
    const openUs = Number(process.hrtime.bigint() - start) / 1000 / n;
    t.diagnostic(`issueQuote ${issueUs.toFixed(1)} µs, openQuoteId ${openUs.toFixed(1)} µs (n=${n})`);
  });
});
