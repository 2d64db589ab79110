/**
 * The quote's `privacy` object (docs/spec.md §4, §9): standard or not by the pinned amount, the class's traffic
 * behind the promised set and delay, the nearest standard amounts, and `duration` including the delay.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, describe, it } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { loadConfig } from '../../src/config/config.ts';
import { openQuoteId } from '../../src/domain/quote-token.ts';
import { releasePolicy } from '../../src/config/privacy-settings.ts';
import { expectedRelease } from '../../src/domain/class-release.ts';
import type { PrivacyChoice } from '../../src/domain/privacy-choice.ts';
import { QuoteService } from '../../src/services/quote-service.ts';
import type { AccountRecord } from '../../src/store/accounts-store.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const dataDir = mkdtempSync(join(tmpdir(), 'hush-quote-privacy-'));
after(() => rmSync(dataDir, { recursive: true, force: true }));
const SECRET = new Uint8Array(32).fill(5);
const account = { id: 'acc_quote_privacy', feeCapBps: 100, feeRecipients: [], status: 'active', rateLimits: null } as unknown as AccountRecord;

/** A class watched so long at `perS` a second that its rate is as good as known. */
const known = (perS: number) => ({ arrivals: perS * 1e9, exposureMs: 1e12, dispersion: 1 });
/** What the domain promises for that class under `env`'s policy: the wait at 4 in 5, seconds, before the spread. */
const promised = (env: Record<string, string>, perS: number, choice?: PrivacyChoice) =>
  expectedRelease(known(perS), releasePolicy(loadConfig({ DATA_DIR: dataDir, SOLANA_RPC_URL: 'http://127.0.0.1:9', ...env })), choice);

/** `rates`: deposits per second per class key; a class not listed is unmeasured, `measured: true` makes it idle instead. */
async function quoteWith(env: Record<string, string>, amount: string, mode: 'exact_in' | 'exact_out', rates: Record<string, number> = {}, measured = false, privacy?: { minAnonymitySet: number } | { maxDelaySeconds: number }) {
  const config = loadConfig({ DATA_DIR: dataDir, SOLANA_RPC_URL: 'http://127.0.0.1:9', ...env });
  const seen: string[] = [];
  const traffic = {
    // A known rate (per ms, as the forecast reads one: a certain Poisson stream).
    arrivalsOf(c: { sourceAssetId: string; destinationAssetId: string; mode: string; pinnedAmount: bigint }) {
      const key = `${c.sourceAssetId}>${c.destinationAssetId}:${c.mode}:${c.pinnedAmount}`;
      seen.push(key);
      const perS = rates[key] ?? (measured ? 0 : undefined);
      return perS === undefined ? undefined : known(perS);
    },
  };
  const service = new QuoteService(config, SECRET, systemClock, systemRandom, undefined, undefined, traffic);
  const quote = await service.quote(account, {
    amount, mode, sourceAssetId: 'usdc', destinationAssetId: 'usdc',
    senderAddress: (await generateKeyPairSigner()).address, recipientAddress: (await generateKeyPairSigner()).address,
    ...(privacy ? { privacy } : {}),
  });
  return { quote, seen };
}

describe('quote privacy', () => {
  it('a private amount in a busy class: the target set, the time the class takes to fill four times in five plus the spread at the same odds, in duration', async () => {
    const { quote, seen } = await quoteWith({ HUSH_PAYOUT_DELAY_S: '5-30' }, '10000000', 'exact_in', { 'usdc>usdc:exact_in:10000000': 2 });
    assert.deepEqual(seen, ['usdc>usdc:exact_in:10000000']);
    assert.equal(quote.privacy.standard, true);
    assert.equal(quote.privacy.anonymitySet, 30, 'the default target set');
    assert.equal(quote.privacy.anonymitySetLikely, 30);
    assert.equal(quote.privacy.basis, 'measured');
    const fill = promised({ HUSH_PAYOUT_DELAY_S: '5-30' }, 2).promisedDelaySeconds;
    // 29 more at 2 a second take 14.5 s on average and about 17 s four times in five.
    assert.ok(fill > 29 / 2 && fill < 20, `filled within ${fill} s at 4 in 5`);
    assert.equal(quote.privacy.delaySeconds, Math.ceil(fill + 5 + 0.8 * 25));
    assert.equal(quote.duration, 5 + quote.privacy.delaySeconds);
    assert.ok(quote.privacy.suggestedAmounts.includes('10000000'));
    const fixed = await quoteWith({ HUSH_PRIVACY_K: '8', HUSH_PAYOUT_DELAY_S: '5-30' }, '10000000', 'exact_in', { 'usdc>usdc:exact_in:10000000': 2 });
    assert.equal(fixed.quote.privacy.anonymitySet, 8, 'HUSH_PRIVACY_K overrides the target');
    assert.equal(fixed.quote.privacy.delaySeconds, Math.ceil(promised({ HUSH_PRIVACY_K: '8', HUSH_PAYOUT_DELAY_S: '5-30' }, 2).promisedDelaySeconds + 25));
  });

  it('20 USDC is not private under the default decade menu, and is under 1-2-5', async () => {
    assert.equal((await quoteWith({}, '20000000', 'exact_in')).quote.privacy.standard, false);
    assert.equal((await quoteWith({ HUSH_DENOMINATIONS: '1-2-5' }, '20000000', 'exact_in')).quote.privacy.standard, true);
  });

  it('exact_out pins amountOut: the class is the amount the recipient gets', async () => {
    const { quote, seen } = await quoteWith({}, '100000000', 'exact_out', { 'usdc>usdc:exact_out:100000000': 1 });
    assert.deepEqual(seen, ['usdc>usdc:exact_out:100000000']);
    assert.equal(quote.amountOut, '100000000');
    assert.equal(quote.privacy.standard, true);
    assert.notEqual(quote.amountIn, '100000000');
  });

  it('a class not measured yet, or measured idle, is not held for nothing: a set of 1 after two slots, basis no_traffic', async () => {
    const env = { HUSH_PRIVACY_MAX_DELAY_S: '100', HUSH_PAYOUT_DELAY_S: '2-4' };
    for (const measured of [false, true]) {
      const { quote } = await quoteWith(env, '10000000', 'exact_in', {}, measured);
      assert.deepEqual([quote.privacy.anonymitySet, quote.privacy.delaySeconds, quote.privacy.basis], [1, 1, 'no_traffic'], `measured ${measured}`);
    }
  });

  it('the partner\'s choice: echoed and sealed; a set asked for in an idle class is quoted the whole ceiling; a wait past the ceiling is refused', async () => {
    const env = { HUSH_PRIVACY_MAX_DELAY_S: '100', HUSH_PAYOUT_DELAY_S: '2-4', HUSH_PRIVACY_MAX_WAIT_S: '1000' };
    const patient = await quoteWith(env, '10000000', 'exact_in', {}, true, { minAnonymitySet: 10 });
    assert.deepEqual(patient.quote.privacy.requested, { minAnonymitySet: 10 });
    assert.deepEqual([patient.quote.privacy.anonymitySet, patient.quote.privacy.delaySeconds, patient.quote.privacy.basis], [1, Math.ceil(1000 - 4 - 2 + 2 + 0.8 * 2), 'no_traffic']);
    assert.deepEqual(openQuoteId(SECRET, account.id, patient.quote.quoteId)!.quote, patient.quote);
    const busy = await quoteWith(env, '10000000', 'exact_in', { 'usdc>usdc:exact_in:10000000': 1 }, true, { minAnonymitySet: 10 });
    assert.deepEqual([busy.quote.privacy.anonymitySet, busy.quote.privacy.delaySeconds, busy.quote.privacy.basis], [10, Math.ceil(promised(env, 1, { minAnonymitySet: 10 }).promisedDelaySeconds + 2 + 0.8 * 2), 'measured']);
    const bounded = await quoteWith(env, '10000000', 'exact_in', { 'usdc>usdc:exact_in:10000000': 0.01 }, true, { maxDelaySeconds: 60 });
    assert.ok(bounded.quote.privacy.delaySeconds <= 60, `${bounded.quote.privacy.delaySeconds} s quoted for at most 60`);
    await assert.rejects(quoteWith(env, '10000000', 'exact_in', {}, true, { maxDelaySeconds: 1001 }), (e: any) => e.code === 'INVALID_REQUEST' && e.details.field === 'privacy.maxDelaySeconds');
  });

  it('a free amount: not standard, a set of 1, no wait, and the nearest standard amounts to choose instead', async () => {
    const { quote, seen } = await quoteWith({}, '19370000', 'exact_in');
    assert.deepEqual(seen, [], 'no traffic lookup for a class of one');
    assert.deepEqual(quote.privacy, { standard: false, anonymitySet: 1, anonymitySetLikely: 1, delaySeconds: 0, suggestedAmounts: ['1000000', '10000000', '100000000', '1000000000'], basis: 'measured' });
    assert.equal(quote.duration, 5);
  });

  it('the privacy object is sealed in the quoteId like every other field', async () => {
    const { quote } = await quoteWith({}, '10000000', 'exact_in', { 'usdc>usdc:exact_in:10000000': 0.5 });
    assert.deepEqual(openQuoteId(SECRET, account.id, quote.quoteId)!.quote, quote);
  });
});
