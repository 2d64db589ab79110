import type { Queryable } from './db.ts';
import { statusesSql } from './settlement/final-statuses.ts';
import { classKey } from '../domain/class-release.ts';
import type { OpenWindow, SharedGrid } from '../domain/fee-grid-shared.ts';

export type { SharedGrid } from '../domain/fee-grid-shared.ts';

interface Stored {
  step: string;
  above: { since: number; low: string } | null;
  below: { since: number; high: string } | null;
  observedAt: number;
  pending: { from: string; to: string; decidedAt: number; effectiveAt: number } | null;
}

function toStored(g: SharedGrid): Stored {
  return {
    step: g.step.toString(),
    above: g.above && { since: g.above.since, low: g.above.low.toString() },
    below: g.below && { since: g.below.since, high: g.below.high.toString() },
    observedAt: g.observedAt,
    pending: g.pending && { from: g.pending.from.toString(), to: g.pending.to.toString(), decidedAt: g.pending.decidedAt, effectiveAt: g.pending.effectiveAt },
  };
}

function fromStored(s: Stored): SharedGrid {
  return {
    step: BigInt(s.step),
    above: s.above && { since: s.above.since, low: BigInt(s.above.low) },
    below: s.below && { since: s.below.since, high: BigInt(s.below.high) },
    observedAt: s.observedAt,
    pending: s.pending && { from: BigInt(s.pending.from), to: BigInt(s.pending.to), decidedAt: s.pending.decidedAt, effectiveAt: s.pending.effectiveAt },
  };
}

/** The shared grid and its version (null: no worker has read the market yet). */
export async function readFeeGrid(q: Queryable): Promise<{ version: number; grid: SharedGrid } | null> {
  const { rows } = await q.query<{ version: number; state: Stored }>('SELECT version, state FROM fee_grid WHERE id = 1');
  const r = rows[0];
  return r ? { version: Number(r.version), grid: fromStored(r.state) } : null;
}

/** Writes the grid if it is still at `version` (null: if there is none yet); false when another worker moved it first. */
export async function writeFeeGrid(q: Queryable, version: number | null, grid: SharedGrid): Promise<boolean> {
  const state = JSON.stringify(toStored(grid));
  const { rows } =
    version === null
      ? await q.query('INSERT INTO fee_grid (id, version, state, updated_at) VALUES (1, 1, $1::jsonb, now()) ON CONFLICT (id) DO NOTHING RETURNING id', [state])
      : await q.query('UPDATE fee_grid SET version = version + 1, state = $2::jsonb, updated_at = now() WHERE id = 1 AND version = $1 RETURNING id', [version, state]);
  return rows.length > 0;
}

/**
 * The open release windows of the private classes (docs/spec.md §9): per class, its members a release may
 * still take (awaiting their deposit, or confirmed and not released yet) on the menu. A window opens with the
 * quote of its first member (the networkFee a member pays is its quote's), not its deposit; it ends at the
 * latest due time of its members, an unfunded one's deadline plus `maxWaitS` (the longest any member is held).
 */
export async function openClassWindows(q: Queryable, maxWaitS: number): Promise<OpenWindow[]> {
  const { rows } = await q.query<{ source_asset_id: string; destination_asset_id: string; mode: 'exact_in' | 'exact_out'; pinned: string; opened: Date | string; ends: Date | string }>(
    `SELECT source_asset_id, destination_asset_id, mode, (CASE mode WHEN 'exact_in' THEN amount_in ELSE amount_out END)::text AS pinned,
            min(coalesce((quote ->> 'issuedAt')::timestamptz, created_at)) AS opened,
            max(coalesce(payout_due_at, expiration + $1 * interval '1 second')) AS ends
       FROM orders
      WHERE (status IN ${statusesSql('awaitsDeposit')} OR (status IN ${statusesSql('awaitsPayout')} AND class_released_at IS NULL))
        AND quote -> 'privacy' ->> 'standard' = 'true'
      GROUP BY 1, 2, 3, 4`,
    [maxWaitS],
  );
  return rows.map((r) => ({
    key: classKey({ sourceAssetId: r.source_asset_id, destinationAssetId: r.destination_asset_id, mode: r.mode, pinnedAmount: BigInt(r.pinned) }),
    openedAt: new Date(r.opened).getTime(),
    endsAt: new Date(r.ends).getTime(),
  }));
}
