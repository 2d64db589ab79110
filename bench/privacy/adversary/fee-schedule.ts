/**
 * A2 learns the fee schedule the way anyone can: by asking Hush's public quote endpoint with an API key of
 * its own. One exact_in quote with feeBps = 0 per (source, deposit amount, destination, recipient
 * variant) it needs, memoised; every partner fee is then arithmetic (amount-model.ts).
 */
import pLimit from 'p-limit';
import type { HushApi } from '../hush-api.ts';
import type { AmountSchedule, QuotePoint, Variant } from './amount-model.ts';
import { variantOf } from './amount-model.ts';
import type { AssetInfo, Observation } from './observation.ts';

/** Addresses the adversary quotes with: a wallet that will never hold anything, and one holding every token. */
export interface QuoteWallets {
  sender: string;
  freshRecipient: string;
  holdingRecipient: string;
}

/** docs/spec.md §3: no account may charge more. The adversary does not know a partner's own cap, so it assumes this. */
export const FEE_CEILING_BPS = 1000;

interface Quote {
  amountOut: string;
  fee: string;
  networkFee: string;
}

/**
 * What the quotes taught, as plain data (maps of bigints): it crosses to the thread that scores the rows
 * (score-rows.ts), where scheduleFrom makes it an AmountSchedule again.
 */
export interface ScheduleData {
  assets: AssetInfo[];
  points: Map<string, QuotePoint>;
  shifts: Map<string, bigint>;
}

const key = (src: string, amount: bigint, dst: string, v: Variant) => `${src}|${amount}|${dst}|${v}`;

export async function learnSchedule(api: HushApi, assets: AssetInfo[], obs: Observation, wallets: QuoteWallets, concurrency = 8): Promise<ScheduleData> {
  const byId = new Map(assets.map((a) => [a.assetId, a]));
  const limit = pLimit(concurrency);
  const quote = (src: string, dst: string, amount: bigint, variant: Variant, mode: 'exact_in' | 'exact_out' = 'exact_in') =>
    limit(() =>
      api
        .call<{ quote: Quote }>('POST', '/quote', {
          sourceAssetId: src,
          destinationAssetId: dst,
          amount: amount.toString(),
          mode,
          senderAddress: wallets.sender,
          recipientAddress: variant === 'existing' ? wallets.holdingRecipient : wallets.freshRecipient,
        })
        .then((r) => r.quote)
        .catch(() => undefined), // out of bounds for this pair: no payout of that pair can come from it
    );

  const variants = new Map<string, Set<Variant>>();
  for (const p of obs.payouts) {
    const v = variantOf(p, byId.get(p.assetId)?.native ?? false);
    variants.set(p.assetId, (variants.get(p.assetId) ?? new Set()).add(v));
  }
  const points = new Map<string, QuotePoint | undefined>();
  const jobs: Promise<void>[] = [];
  for (const d of obs.deposits) {
    const src = byId.get(d.assetId);
    if (!src) continue;
    for (const [dst, vs] of variants) {
      const to = byId.get(dst)!;
      if (dst !== d.assetId && !(src.swappable && to.swappable)) continue;
      for (const v of vs) {
        const k = key(d.assetId, d.amount, dst, v);
        if (points.has(k)) continue;
        points.set(k, undefined);
        jobs.push(quote(d.assetId, dst, d.amount, v).then((q) => void (q && points.set(k, { amountOut: BigInt(q.amountOut), fee: BigInt(q.fee) }))));
      }
    }
  }
  // exact_out's network fee against exact_in's, per asset and variant (one pair of quotes each).
  const shifts = new Map<string, bigint>();
  for (const [assetId, vs] of variants) {
    const a = byId.get(assetId)!;
    for (const v of vs) {
      const probe = a.native ? 10n ** BigInt(a.decimals) : 100n * 10n ** BigInt(a.decimals);
      jobs.push(
        Promise.all([quote(assetId, assetId, probe, v), quote(assetId, assetId, probe, v, 'exact_out')]).then(([i, o]) => {
          if (i && o) shifts.set(`${assetId}|${v}`, BigInt(o.networkFee) - BigInt(i.networkFee));
        }),
      );
    }
  }
  await Promise.all(jobs);
  const known = new Map<string, QuotePoint>();
  for (const [k, p] of points) if (p) known.set(k, p);
  return { assets, points: known, shifts };
}

/** The schedule the quotes describe: every partner fee's payout is arithmetic on these points (amount-model.ts). */
export function scheduleFrom({ assets, points, shifts }: ScheduleData): AmountSchedule {
  const byId = new Map(assets.map((a) => [a.assetId, a]));
  return {
    feeCapBps: FEE_CEILING_BPS,
    point: (src, amount, dst, v) => points.get(key(src, amount, dst, v)),
    exactOutShift: (asset, v) => shifts.get(`${asset}|${v}`) ?? 0n,
    grid: (dst) => byId.get(dst)?.swapGrid ?? 1n,
    native: (asset) => byId.get(asset)?.native ?? false,
    swappable: (asset) => byId.get(asset)?.swappable ?? false,
  };
}
