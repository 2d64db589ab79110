/**
 * The SDK's human lines for a quote's privacy (describePrivacy): a partner that shows them to its user
 * must not promise a set the class cannot reach. describePrivacy reads only the quote's `privacy`.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { it } from 'node:test';
import { describePrivacy, type Quote } from '../../packages/sdk/src/index.ts';
import { loadAssets } from '../../src/config/assets.ts';
import { nearestStandard } from '../../src/domain/quote-privacy.ts';

const request = { amount: '1000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: 's', recipientAddress: 'r' };
const quoteWith = (privacy: Partial<Quote['privacy']>) =>
  ({ privacy: { standard: true, anonymitySet: 30, anonymitySetLikely: 30, delaySeconds: 120, suggestedAmounts: ['1000000'], basis: 'measured', ...privacy } }) as unknown as Quote;

it('says when a class is not expected to reach the set asked within the ceiling: released with its class, the set it expects, and the way out', () => {
  const [line] = describePrivacy(request, quoteWith({ anonymitySet: 6, anonymitySetLikely: 8, delaySeconds: 10_800, requested: { minAnonymitySet: 20 } }), []);
  assert.match(line!, /not expected to reach the set asked \(asked: wait for a set of 20\) within the ceiling, so it is not held for it: released with its class/);
  assert.match(line!, /4 times in 5 it leaves with at least 6 \(likely 8\) within 10800 s/);
  // Reachable: the set it is promised at those odds, and the likely one.
  const [reached] = describePrivacy(request, quoteWith({ anonymitySet: 20, anonymitySetLikely: 20, delaySeconds: 900, requested: { minAnonymitySet: 20 } }), []);
  assert.match(reached!, /4 times in 5 it leaves with an anonymity set of at least 20 \(likely 20\) within 900 s/);
  // Without traffic, waiting for a set: likely alone at the end of the wait.
  const [cold] = describePrivacy(request, quoteWith({ anonymitySet: 1, delaySeconds: 21_569, basis: 'no_traffic', requested: { minAnonymitySet: 20 } }), []);
  assert.match(cold!, /likely alone/);
});

it('is described one way in both READMEs, and the README shows what it prints', () => {
  const read = (p: string) => readFileSync(new URL(p, import.meta.url), 'utf8').replace(/\s+/g, ' ');
  const sentence = /`describePrivacy\(request, quote, nearby\)` returns the lines to show: [^.]*\./;
  const [root, sdk] = [read('../../README.md'), read('../../packages/sdk/README.md')];
  assert.equal(sentence.exec(root)?.[0], sentence.exec(sdk)?.[0], 'the same sentence in both');
  assert.ok(sentence.test(root));
  // The root README's example output, against the function on the same inputs.
  const text = readFileSync(new URL('../../README.md', import.meta.url), 'utf8');
  const shown = text.slice(text.indexOf('for (const line of describePrivacy(request, quote, choices))')).split('\n').slice(1);
  const comments = shown.slice(0, shown.findIndex((l) => !l.startsWith('  // '))).map((l) => l.slice(5));
  const linkable = { ...request, amount: '25000000' };
  // 25 USDC on the default menu: the standard amounts nearest it, as Hush suggests them, each quoted on a Hush without traffic.
  const usdc = loadAssets().get('usdc')!;
  const suggested = nearestStandard(25_000_000n, usdc.denominations, { min: usdc.min, max: usdc.max }).map(String);
  const quote = { privacy: { standard: false, anonymitySet: 1, delaySeconds: 0, suggestedAmounts: suggested, basis: 'measured' } } as unknown as Quote;
  assert.deepEqual(describePrivacy(linkable, quote, suggested.map((amount) => ({ amount, anonymitySet: 1, anonymitySetLikely: 1, delaySeconds: 1 }))), comments);
});
