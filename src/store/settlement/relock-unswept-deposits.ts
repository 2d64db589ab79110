import type { Queryable } from '../db.ts';

/** Locks, for the caller's transaction, those of the given deposits still unswept and in no sweep; returns their order ids. */
export async function relockUnsweptDeposits(tx: Queryable, orderIds: string[]): Promise<Set<string>> {
  const { rows } = await tx.query<{ id: string | number }>(
    `SELECT id FROM orders WHERE id = ANY($1::bigint[]) AND swept = false AND sweep_tx_id IS NULL FOR UPDATE SKIP LOCKED`,
    [orderIds],
  );
  return new Set(rows.map((r) => String(r.id)));
}
