import type { Queryable } from '../db.ts';
import { LEDGER_INSERT_FROM_PARAMS, legParams, movementRows, type LedgerLeg, type Movement, type MovementKind } from './movements.ts';

/**
 * Records one balanced movement (legs sum to zero per asset). Idempotent: a movement id is recorded once,
 * so replaying a step after a crash cannot double-count.
 */
export async function recordMovement(db: Queryable, movement: string, kind: MovementKind, legs: LedgerLeg[], orderId: string | null = null): Promise<void> {
  await recordMovements(db, [{ movement, kind, legs, orderId }]);
}

/** recordMovement for many movements: all legs in one statement (one round trip; all or none). */
export async function recordMovements(db: Queryable, movements: Movement[]): Promise<void> {
  const rows = movementRows(movements);
  if (rows.length === 0) return;
  await db.query(`${LEDGER_INSERT_FROM_PARAMS(1)} ON CONFLICT (movement, account, asset_id) DO NOTHING`, legParams(rows));
}
