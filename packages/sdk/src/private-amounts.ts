import type { HushClient } from './client.ts';
import { HushApiError } from './errors.ts';
import type { Quote, QuoteRequest } from './types.ts';

/** One private amount near the one asked for, with what Hush expects for it right now. */
export interface PrivateAmountOption {
  /** Base units, in the request's mode (amountIn under exact_in, amountOut under exact_out). */
  amount: string;
  /**
   * The quote's anonymity set and release delay for it, each what the order gets at least 4 times in 5, and
   * the set it most likely gets; null when Hush would not quote it now.
   */
  anonymitySet: number | null;
  anonymitySetLikely: number | null;
  delaySeconds: number | null;
  /** Why it could not be quoted (an error code such as AMOUNT_TOO_HIGH). */
  unavailable?: string;
}

/**
 * The private amounts Hush suggests near a quote's amount (quote.privacy.suggestedAmounts), each quoted
 * with the same terms for its expected set and delay: what a wallet shows beside an amount that is not
 * private, or to let its user pick a busier class. One quote per suggestion (at most four).
 */
export async function privateAmountsNearby(client: HushClient, request: QuoteRequest, quote: Quote): Promise<PrivateAmountOption[]> {
  return Promise.all(
    quote.privacy.suggestedAmounts.map(async (amount): Promise<PrivateAmountOption> => {
      const option = (q: Quote) => ({ amount, anonymitySet: q.privacy.anonymitySet, anonymitySetLikely: q.privacy.anonymitySetLikely, delaySeconds: q.privacy.delaySeconds });
      if (amount === request.amount) return option(quote);
      try {
        return option(await client.quote({ ...request, amount }));
      } catch (e) {
        if (e instanceof HushApiError) return { amount, anonymitySet: null, anonymitySetLikely: null, delaySeconds: null, unavailable: e.code };
        throw e;
      }
    }),
  );
}

/**
 * Human lines for a terminal: whether the amount is private, and the private amounts nearby. The quote's
 * set and wait are promises at odds of 4 in 5 (the set at least, the wait at most), the likely set beside
 * them (docs/spec.md §9).
 */
export function describePrivacy(request: QuoteRequest, quote: Quote, nearby: PrivateAmountOption[]): string[] {
  const asset = request.sourceAssetId;
  const mode = request.mode ?? 'exact_in';
  const p = quote.privacy;
  const asked = p.requested === undefined ? '' : 'minAnonymitySet' in p.requested ? ` (asked: wait for a set of ${p.requested.minAnonymitySet})` : ` (asked: wait at most ${p.requested.maxDelaySeconds} s)`;
  const own = !p.standard
    ? `${request.amount} ${asset} is NOT a private amount: not held for a class, and its amount alone links it (anonymity set 1)`
    : p.basis === 'no_traffic' && p.requested === undefined
      ? `${request.amount} ${asset} is a private amount, but its class has no traffic yet: no company expected (anonymity set 1), sent within about ${p.delaySeconds} s; to wait for company, quote with privacy: { minAnonymitySet: n }`
      : p.basis === 'no_traffic'
        ? `${request.amount} ${asset} is a private amount; its class has no traffic yet, so nothing measured says who will join: held up to ${p.delaySeconds} s for the set asked${asked}, then released with whoever of its class is waiting (likely alone, and then its delay links it)`
        : p.requested !== undefined && 'minAnonymitySet' in p.requested && p.anonymitySet < p.requested.minAnonymitySet
          ? `${request.amount} ${asset} is a private amount, but its class is not expected to reach the set asked${asked} within the ceiling, so it is not held for it: released with its class when the oldest member's wait runs out; 4 times in 5 it leaves with at least ${p.anonymitySet} (likely ${p.anonymitySetLikely}) within ${p.delaySeconds} s; a busier amount hides it better`
          : `${request.amount} ${asset} is a private amount: 4 times in 5 it leaves with an anonymity set of at least ${p.anonymitySet} (likely ${p.anonymitySetLikely}) within ${p.delaySeconds} s, measured from its class's traffic${asked} (once deposited, the status record's privacy.releaseBy says the latest moment)`;
  const lines = [own, `private amounts nearby (${mode}, base units of ${asset}):`];
  for (const o of nearby) {
    const mark = o.amount === request.amount ? '  ← this amount' : '';
    lines.push(`  ${o.amount.padStart(16)}  ${o.unavailable ? `not quotable now (${o.unavailable})` : `set ≥ ${o.anonymitySet} (likely ${o.anonymitySetLikely}), wait ≤ ${o.delaySeconds} s, 4 times in 5`}${mark}`);
  }
  return lines;
}
