import { landedBurstSizes } from '../../domain/landed-bursts.ts';
import type { Db } from '../db.ts';
import { ORDER_CHANGED_CHANNEL } from '../orders-store.ts';
import { statusesSql, statusList } from './final-statuses.ts';
import { statusesWhere } from '../../domain/order-state.ts';

/** Members whose payout may still go out or land: their release is not counted until none is left. */
const IN_FLIGHT = statusList([...statusesWhere('awaitsPayout'), 'sending', 'refunding']);

const PINNED = `(CASE mode WHEN 'exact_in' THEN amount_in ELSE amount_out END)`;

/**
 * Counts, for releases with a final member not counted yet (orders_release_uncounted), the burst each
 * final member's payout landed in (landedBurstSizes over the release's landed payouts), once no member of
 * the release is still in flight; writes it as class_landed_size (0: no payout of it landed). A member held
 * by screening is left uncounted and its release counted again when it is final. Returns how many orders
 * it counted. One indexed read while there is nothing to count; no chain call (the slots were recorded
 * when settle-fates settled each payout).
 */
export async function countLandedReleases(db: Db, spanSlots: number, limit = 50): Promise<number> {
  const { rows: releases } = await db.query<{ at: Date | string; source_asset_id: string; destination_asset_id: string; mode: string; pinned: string }>(
    `SELECT DISTINCT class_released_at AS at, source_asset_id, destination_asset_id, mode, ${PINNED}::text AS pinned
       FROM orders
      WHERE class_released_at IS NOT NULL AND class_landed_size IS NULL AND status IN ${statusesSql('final')}
      LIMIT $1`,
    [limit],
  );
  let counted = 0;
  for (const r of releases) {
    counted += await db.transaction(async (tx) => {
      const { rows: members } = await tx.query<{ id: string | number; status: string; slot: string | null }>(
        `SELECT o.id, o.status, (SELECT max(c.landed_slot) FROM chain_txs c WHERE c.order_id = o.id AND c.kind = 'payout' AND c.status = 'confirmed')::text AS slot
           FROM orders o
          WHERE o.class_released_at = $1 AND (o.source_asset_id, o.destination_asset_id, o.mode, ${PINNED}) = ($2, $3, $4, $5::numeric)
          FOR UPDATE OF o`,
        [r.at, r.source_asset_id, r.destination_asset_id, r.mode, r.pinned],
      );
      if (members.some((m) => IN_FLIGHT.includes(`'${m.status}'`))) return 0;
      const final = members.filter((m) => statusesWhere('final').includes(m.status as never));
      const sizes = landedBurstSizes(final.map((m) => ({ id: String(m.id), slot: m.slot === null ? null : BigInt(m.slot) })), spanSlots);
      const ids = final.map((m) => String(m.id));
      // updated_at stays: it is the order's last transition (a receipt's finalAt); the notice refreshes status caches.
      await tx.query(
        `WITH u AS (UPDATE orders o SET class_landed_size = v.size
           FROM unnest($1::bigint[], $2::integer[]) AS v(id, size) WHERE o.id = v.id RETURNING o.tracking_id)
         SELECT pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM u`,
        [ids, ids.map((id) => sizes.get(id) ?? 0)],
      );
      return ids.length;
    });
  }
  return counted;
}
