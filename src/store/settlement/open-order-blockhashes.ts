import type { Queryable } from '../db.ts';
import { FINAL } from './final-statuses.ts';

/**
 * The blockhashes in the deposit transactions of every open order (as handed out last): a payout must
 * not carry one of them, or it would share a blockhash with a deposit that may have just landed, and
 * the pair would link itself (docs/spec.md §9).
 */
export async function openOrderBlockhashes(db: Queryable): Promise<Set<string>> {
  const { rows } = await db.query<{ tx_blockhash: string }>(`SELECT DISTINCT tx_blockhash FROM orders WHERE status NOT IN ${FINAL}`);
  return new Set(rows.map((r) => r.tx_blockhash));
}
