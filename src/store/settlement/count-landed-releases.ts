import { landedBurstSizes } from '../../domain/landed-bursts.ts';
import { ORDER_STATUSES, STATUS_HANDLING, statusesWhere } from '../../domain/order-state.ts';
import type { Queryable } from '../db.ts';
import { ORDER_CHANGED_CHANNEL } from '../orders-store.ts';
import { statusesSql } from './final-statuses.ts';

const PINNED = `(CASE o.mode WHEN 'exact_in' THEN o.amount_in ELSE o.amount_out END)`;
const LANDED_SLOT = `(SELECT max(c.landed_slot) FROM chain_txs c WHERE c.order_id = o.id AND c.kind = 'payout' AND c.status = 'confirmed')`;
const FINAL = new Set<string>(statusesWhere('final'));
/**
 * How far around a release's landed slots its class's other payouts are read, in burst spans: a chain of
 * bursts longer than this (a class paid without a gap for that long) is counted from its part within reach,
 * a lower bound — never more than the chain shows.
 */
const NEIGHBOURHOOD_SPANS = 10;
const AWAITS_PAYOUT = new Set<string>(statusesWhere('awaitsPayout'));
/** Sending or refunding (the order loop's advancePayout step): in flight while none of its payouts has landed. */
const PAYING = new Set<string>(ORDER_STATUSES.filter((s) => STATUS_HANDLING[s].step === 'advancePayout'));

/**
 * Counts the burst each member's payout of a class release landed in (landedBurstSizes over the class's
 * landed payouts, docs/privacy.md's rule: the release's own and any other of its class landed near them,
 * which an outside reader cannot tell apart from it) once the release has nothing left in flight: no member waiting
 * for its payout, no payout pending, no member sending or refunding without a landed payout. Writes it as
 * class_landed_size for members whose payout landed, 0 for final members without one; a member held by
 * screening stays uncounted, and its release is counted again once its payout lands or it is final.
 * Looks at releases with such a member not counted yet (orders_release_uncounted): one indexed read while
 * there is nothing to count, and no chain call (settle-fates recorded each payout's landed slot).
 * Returns how many orders it counted. Nothing is locked: a release is written only once nothing of it is in
 * flight, when its landed slots no longer change, so two passes counting it at once write the same sizes.
 */
export async function countLandedReleases(db: Queryable, spanSlots: number, limit = 50): Promise<number> {
  // The stamp as text: a release stamps now(), to the microsecond, which a JavaScript Date read back would
  // cut to the millisecond, and the members would then never match it.
  const { rows: releases } = await db.query<{ at: string; source_asset_id: string; destination_asset_id: string; mode: string; pinned: string }>(
    `SELECT DISTINCT o.class_released_at::text AS at, o.source_asset_id, o.destination_asset_id, o.mode, ${PINNED}::text AS pinned
       FROM orders o
      WHERE o.class_released_at IS NOT NULL AND o.class_landed_size IS NULL
        AND (o.status IN ${statusesSql('final')} OR ${LANDED_SLOT} IS NOT NULL)
      LIMIT $1`,
    [limit],
  );
  let counted = 0;
  for (const r of releases) counted += await countRelease(db, r, spanSlots);
  return counted;
}

/** One release (its stamp and class): its members' sizes once nothing of it is in flight; how many it wrote. */
async function countRelease(db: Queryable, r: { at: string; source_asset_id: string; destination_asset_id: string; mode: string; pinned: string }, spanSlots: number): Promise<number> {
  const { rows: members } = await db.query<{ id: string | number; status: string; slot: string | null; pending: boolean }>(
    `SELECT o.id, o.status, ${LANDED_SLOT}::text AS slot,
            EXISTS (SELECT 1 FROM chain_txs c WHERE c.order_id = o.id AND c.kind = 'payout' AND c.status = 'pending') AS pending
       FROM orders o
      WHERE o.class_released_at = $1::timestamptz AND (o.source_asset_id, o.destination_asset_id, o.mode, ${PINNED}) = ($2, $3, $4, $5::numeric)`,
    [r.at, r.source_asset_id, r.destination_asset_id, r.mode, r.pinned],
  );
  const inFlight = members.some((m) => AWAITS_PAYOUT.has(m.status) || m.pending || (PAYING.has(m.status) && m.slot === null));
  if (inFlight) return 0;
  const own = members.map((m) => ({ id: String(m.id), slot: m.slot === null ? null : BigInt(m.slot) }));
  const sizes = landedBurstSizes([...own, ...(await classNeighbours(db, r, own, spanSlots))], spanSlots);
  const counting = members.filter((m) => m.slot !== null || FINAL.has(m.status)).map((m) => String(m.id));
  // updated_at stays: it is the order's last transition (a receipt's finalAt); the notice refreshes status caches.
  await db.query(
    `WITH u AS (UPDATE orders o SET class_landed_size = v.size
       FROM unnest($1::bigint[], $2::integer[]) AS v(id, size) WHERE o.id = v.id RETURNING o.tracking_id)
     SELECT pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM u`,
    [counting, counting.map((id) => sizes.get(id) ?? 0)],
  );
  return counting.length;
}

/**
 * The class's other payouts (any release, or none: a payout sent at its budget) landed within
 * NEIGHBOURHOOD_SPANS spans of the release's landed slots. Payouts landing there later are not waited for:
 * the count is then below the chain's, never above.
 */
async function classNeighbours(
  db: Queryable,
  r: { at: string; source_asset_id: string; destination_asset_id: string; mode: string; pinned: string },
  own: { id: string; slot: bigint | null }[],
  spanSlots: number,
): Promise<{ id: string; slot: bigint }[]> {
  const slots = own.flatMap((m) => (m.slot === null ? [] : [m.slot]));
  if (slots.length === 0) return [];
  const reach = BigInt(NEIGHBOURHOOD_SPANS * spanSlots);
  const lo = slots.reduce((a, b) => (a < b ? a : b)) - reach;
  const hi = slots.reduce((a, b) => (a > b ? a : b)) + reach;
  const { rows } = await db.query<{ id: string | number; slot: string }>(
    `SELECT c.order_id AS id, max(c.landed_slot)::text AS slot
       FROM chain_txs c JOIN orders o ON o.id = c.order_id
      WHERE c.kind = 'payout' AND c.status = 'confirmed' AND c.landed_slot BETWEEN $1 AND $2
        AND o.class_released_at IS DISTINCT FROM $3::timestamptz
        AND (o.source_asset_id, o.destination_asset_id, o.mode, ${PINNED}) = ($4, $5, $6, $7::numeric)
      GROUP BY c.order_id`,
    [lo.toString(), hi.toString(), r.at, r.source_asset_id, r.destination_asset_id, r.mode, r.pinned],
  );
  return rows.map((n) => ({ id: `other:${n.id}`, slot: BigInt(n.slot) }));
}
