import type { Queryable } from './db.ts';
import { statusesSql } from './settlement/final-statuses.ts';
import { classKey } from '../domain/class-release.ts';
import type { OpenWindow, SharedGrid } from '../domain/fee-grid-shared.ts';
import type { GridWatch } from '../domain/fee-grid.ts';

export type { SharedGrid } from '../domain/fee-grid-shared.ts';

interface StoredWatch {
  since: number;
  sum2: string;
  ms: number;
  late: { sum2: string; ms: number };
}

interface Stored {
  step: string;
  last?: { at: number; price: string } | null;
  /** A row written before the grid followed the mean held `{ since, low }` / `{ since, high }`: read as no watch. */
  above: StoredWatch | { since: number } | null;
  below: StoredWatch | { since: number } | null;
  observedAt: number;
  pending: { from: string; to: string; decidedAt: number; effectiveAt: number } | null;
}

const watchOut = (w: GridWatch | null): StoredWatch | null => w && { since: w.since, sum2: w.sum2.toString(), ms: w.ms, late: { sum2: w.late.sum2.toString(), ms: w.late.ms } };
const watchIn = (w: Stored['above']): GridWatch | null => (w && 'sum2' in w ? { since: w.since, sum2: BigInt(w.sum2), ms: w.ms, late: { sum2: BigInt(w.late.sum2), ms: w.late.ms } } : null);

function toStored(g: SharedGrid): Stored {
  return {
    step: g.step.toString(),
    last: g.last && { at: g.last.at, price: g.last.price.toString() },
    above: watchOut(g.above),
    below: watchOut(g.below),
    observedAt: g.observedAt,
    pending: g.pending && { from: g.pending.from.toString(), to: g.pending.to.toString(), decidedAt: g.pending.decidedAt, effectiveAt: g.pending.effectiveAt },
  };
}

function fromStored(s: Stored): SharedGrid {
  // An old row's watch starts afresh: it lost at most one wait.
  const old = s.last === undefined;
  return {
    step: BigInt(s.step),
    last: s.last ? { at: s.last.at, price: BigInt(s.last.price) } : null,
    above: old ? null : watchIn(s.above),
    below: old ? null : watchIn(s.below),
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
