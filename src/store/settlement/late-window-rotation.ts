import type { Queryable } from '../db.ts';
import { LATE_COLUMNS, LATE_WINDOW, lateRow, lateWindowStart, type LateCandidate, type LateRow } from './late-window.ts';

/**
 * The next `limit` finished orders of the late-deposit window (finished within 7 days) by id after
 * `after` (null: from the window's start), and where the rotation goes on: past the window's end it
 * starts again.
 */
export async function lateWindowRotation(db: Queryable, after: bigint | null, limit: number): Promise<{ rows: (LateCandidate & { pending: boolean })[]; next: bigint }> {
  const from = after ?? (await lateWindowStart(db));
  const { rows } = await db.query<LateRow>(`SELECT ${LATE_COLUMNS} FROM orders o WHERE o.id > $1 AND ${LATE_WINDOW} ORDER BY o.id LIMIT $2`, [from.toString(), limit]);
  const next = rows.length < limit ? await lateWindowStart(db) : BigInt(rows[rows.length - 1]!.id);
  return { rows: rows.map(lateRow), next };
}
