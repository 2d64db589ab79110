import type { Queryable } from '../db.ts';
import { lateWindowRotation } from './late-window-rotation.ts';
import { LATE_COLUMNS, LATE_WINDOW, lateRow, type LateCandidate, type LateRow } from './late-window.ts';

/**
 * The finished orders one late-deposit pass reads: the `perPart` most recently finished — late funds
 * mostly follow soon — and the next `perPart` of the rotation through the whole window, however many
 * orders finish meanwhile. Orders with a sweep pending are left out.
 */
export async function lateDepositCandidates(db: Queryable, after: bigint | null, perPart: number): Promise<{ rows: LateCandidate[]; next: bigint }> {
  const recent = await db.query<LateRow>(`SELECT ${LATE_COLUMNS} FROM orders o WHERE ${LATE_WINDOW} ORDER BY o.updated_at DESC LIMIT $1`, [perPart]);
  const rotation = await lateWindowRotation(db, after, perPart);
  const seen = new Set<string>();
  const out: LateCandidate[] = [];
  for (const { pending, ...r } of [...recent.rows.map(lateRow), ...rotation.rows]) {
    if (pending || seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(r);
  }
  return { rows: out, next: rotation.next };
}
