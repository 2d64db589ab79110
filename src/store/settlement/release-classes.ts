import type { Db, Queryable } from '../db.ts';
import { ORDER_CHANGED_CHANNEL } from '../orders-store.ts';
import { statusesSql } from './final-statuses.ts';
import { CLASS_RELEASE_LOCK, tryTransactionLock } from './advisory-locks.ts';
import { classKey } from '../../domain/class-release.ts';
import { recentClassCounts, type ClassCount } from '../class-traffic-store.ts';

export interface HeldPayout {
  id: string;
  sourceAssetId: string;
  destinationAssetId: string;
  mode: 'exact_in' | 'exact_out';
  pinnedAmount: bigint;
  /** Deposit confirmation, ms since epoch. */
  confirmedAt: number;
  /** The quote's privacy.requested as stored (the partner's choice), or null. */
  requested: unknown;
  /** The deposit's sender: its own deposits are no company for it (class-traffic-store.ts). */
  sender: string;
}

/**
 * A class's deposits in the traffic window but the one that opened its waiting set (its oldest waiting
 * member), by age bucket: the class's traffic as the pass sees it (class-forecast.ts). The members still
 * waiting count, but for the first: a crowd still arriving is traffic (issue 51), a lone user is not.
 */
export type OtherDeposits = ClassCount;
/** A class's latest release still near enough to merge with a new one on the chain: its last payout's due time. */
export interface RecentBurst {
  sourceAssetId: string;
  destinationAssetId: string;
  mode: 'exact_in' | 'exact_out';
  pinnedAmount: bigint;
  /** ms since epoch. */
  lastAt: number;
}

/**
 * One class-release pass in one transaction: reads the payouts still waiting for their class (their quote
 * promised privacy, not released, due in the future) and locks them, lets `decide` pick which go and
 * when, and brings their due and run times forward. Only one worker decides at a time (an advisory lock;
 * the others skip the pass), and the locks keep every member of a release in its status until the
 * release is written, so its size is exact. A worker holding one of these orders may give it back with
 * the due time it read before: releaseOrders never sets such an order's run time past its payout_due_at.
 * Each released order keeps its release's size (the status record's privacy.releasedWith), and its
 * change is stamped and notified, so status caches and pollers see it. Returns how many were released.
 */
export async function releaseClasses(
  db: Db,
  decide: (held: HeldPayout[], recent: RecentBurst[], others: OtherDeposits[]) => { id: string; at: Date; releasedWith: number }[],
  opts: { recentWithinMs: number; trafficSince: Date; now: Date; bucketMs: number },
): Promise<number> {
  return db.transaction(async (tx) => {
    if (!(await tryTransactionLock(tx, CLASS_RELEASE_LOCK))) return 0;
    const held = await lockWaiting(tx);
    if (held.length === 0) return 0;
    const release = decide(held, await recentBursts(tx, opts.recentWithinMs), await otherDeposits(tx, held, opts));
    if (release.length === 0) return 0;
    return writeRelease(tx, release);
  });
}

type ClassRow = { source_asset_id: string; destination_asset_id: string; mode: 'exact_in' | 'exact_out'; pinned: string };

/** The payouts still waiting for their class, locked until the pass's transaction ends. */
async function lockWaiting(tx: Queryable): Promise<HeldPayout[]> {
  const { rows } = await tx.query<ClassRow & { id: string | number; confirmed_at: string; requested: unknown; sender: string }>(
    `SELECT id, source_asset_id, destination_asset_id, mode, (CASE mode WHEN 'exact_in' THEN amount_in ELSE amount_out END)::text AS pinned,
            deposit ->> 'confirmedAt' AS confirmed_at, quote -> 'privacy' -> 'requested' AS requested, sender
       FROM orders
      WHERE status IN ${statusesSql('awaitsPayout')} AND class_released_at IS NULL
        AND payout_due_at > now() AND deposit ->> 'confirmedAt' IS NOT NULL
        AND quote -> 'privacy' ->> 'standard' = 'true'
        -- A short or over deposit waits only for its refund: counted in a release, it would be company nobody had.
        AND (deposit ->> 'amount')::numeric = amount_in
      FOR UPDATE`,
  );
  return rows.map((r) => ({
    id: String(r.id),
    sourceAssetId: r.source_asset_id,
    destinationAssetId: r.destination_asset_id,
    mode: r.mode,
    pinnedAmount: BigInt(r.pinned),
    confirmedAt: Date.parse(r.confirmed_at),
    requested: r.requested,
    sender: r.sender,
  }));
}

/** Released lately, by class: a new release of the class waits for the last one to clear (burstGapMs). */
async function recentBursts(tx: Queryable, withinMs: number): Promise<RecentBurst[]> {
  const { rows } = await tx.query<ClassRow & { last_at: Date | string }>(
    `SELECT source_asset_id, destination_asset_id, mode, (CASE mode WHEN 'exact_in' THEN amount_in ELSE amount_out END)::text AS pinned,
            max(payout_due_at) AS last_at
       FROM orders
      WHERE class_released_at > now() - $1 * interval '1 millisecond'
      GROUP BY 1, 2, 3, 4`,
    [withinMs],
  );
  return rows.map((b) => ({
    sourceAssetId: b.source_asset_id,
    destinationAssetId: b.destination_asset_id,
    mode: b.mode,
    pinnedAmount: BigInt(b.pinned),
    lastAt: new Date(b.last_at).getTime(),
  }));
}

/**
 * Counted here, in the pass's own transaction, rather than from the rates refreshed every few seconds: the
 * deposit that opened a class's waiting set must never count as its class's traffic (a lone user is not
 * held for nothing), and the members that joined it since must (a crowd is).
 */
async function otherDeposits(tx: Queryable, held: HeldPayout[], opts: { trafficSince: Date; now: Date; bucketMs: number }): Promise<OtherDeposits[]> {
  const pinned = [...new Set(held.map((h) => h.pinnedAmount))];
  return recentClassCounts(tx, opts.trafficSince, pinned, { now: opts.now, bucketMs: opts.bucketMs }, [...openers(held).values()].map((h) => h.id));
}

/** Each class's waiting set's opener, by class key: its oldest waiting member (the lower id on a tie). */
export function openers(held: readonly HeldPayout[]): Map<string, HeldPayout> {
  const out = new Map<string, HeldPayout>();
  for (const h of held) {
    const key = classKey(h);
    const o = out.get(key);
    if (!o || h.confirmedAt < o.confirmedAt || (h.confirmedAt === o.confirmedAt && h.id < o.id)) out.set(key, h);
  }
  return out;
}

/**
 * Brings each released payout's due and run times forward, keeps its release's size, notifies its change.
 * Members released together are paid one amount (docs/decisions.md, "The network fee on a grid: one payout per
 * release"): a same-asset `exact_in` payout is the deposit less the fees, so two networkFees in one release (a
 * member quoted at a rung before a grid move, funded after its window released, joining a window quoted at the
 * next rung; or two prices of SOL in a token's figure) would split it by amount on the chain. Each member takes
 * the release's lowest networkFee and its rung, and its amountOut grows by what that saves it: never less than
 * its quote promised, and Hush absorbs the difference (the ledger splits the payout's fee at the rung it keeps
 * here, the rest `expense:network_absorbed`). Swaps' outputs move with the price of their quote anyway, and an
 * `exact_out` member's payout is the pinned amount: neither is touched.
 */
async function writeRelease(tx: Queryable, release: { id: string; at: Date; releasedWith: number }[]): Promise<number> {
  const { rows: notified } = await tx.query(
    `WITH v AS (SELECT * FROM unnest($1::bigint[], $2::timestamptz[], $3::integer[]) AS v(id, at, size)),
     low AS (SELECT o.id, first_value(o.network_fee) OVER w AS fee, first_value(o.network_fee_price) OVER w AS price
       FROM orders o JOIN v ON v.id = o.id
      WHERE o.class_released_at IS NULL AND o.status IN ${statusesSql('awaitsPayout')}
        AND o.mode = 'exact_in' AND o.source_asset_id = o.destination_asset_id
     WINDOW w AS (PARTITION BY o.source_asset_id, o.amount_in ORDER BY o.network_fee, o.network_fee_price NULLS LAST)),
     u AS (UPDATE orders o SET class_released_at = now(), class_release_size = v.size, updated_at = now(),
            payout_due_at = least(o.payout_due_at, v.at), next_run_at = least(o.next_run_at, v.at),
            amount_out = o.amount_out + greatest(o.network_fee - coalesce(low.fee, o.network_fee), 0),
            network_fee = least(o.network_fee, coalesce(low.fee, o.network_fee)),
            network_fee_price = CASE WHEN low.fee < o.network_fee THEN coalesce(low.price, o.network_fee_price) ELSE o.network_fee_price END
       FROM v LEFT JOIN low ON low.id = v.id
      WHERE o.id = v.id AND o.class_released_at IS NULL AND o.status IN ${statusesSql('awaitsPayout')}
       RETURNING o.tracking_id)
     SELECT pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM u`,
    [release.map((r) => r.id), release.map((r) => r.at.toISOString()), release.map((r) => r.releasedWith)],
  );
  return notified.length;
}
