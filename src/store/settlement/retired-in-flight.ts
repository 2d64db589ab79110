import type { Queryable } from '../db.ts';

/**
 * What of the retired wallets is still in flight (docs/operations.md "Rotate the treasury seed"): the holdings a
 * pending transaction moves money out of (its source, or one of its sources), and whether any transaction signed
 * before `before` (the rotation: signed by a retired fee payer) is still pending. A retired wallet waits for both.
 */
export async function retiredInFlight(db: Queryable, holdings: readonly string[], before: Date): Promise<{ busy: Set<string>; signedBefore: boolean }> {
  const { rows } = await db.query<{ holding: string | null; old: boolean }>(
    `SELECT h.holding, false AS old FROM unnest($1::text[]) AS h(holding)
     WHERE EXISTS (SELECT 1 FROM chain_txs t WHERE t.status = 'pending'
       AND (t.source = h.holding OR t.meta -> 'sources' @> jsonb_build_array(jsonb_build_object('holding', h.holding))))
     UNION ALL
     SELECT NULL, true WHERE EXISTS (SELECT 1 FROM chain_txs WHERE status = 'pending' AND created_at < $2)`,
    [holdings, before.toISOString()],
  );
  return { busy: new Set(rows.flatMap((r) => (r.holding ? [r.holding] : []))), signedBefore: rows.some((r) => r.old) };
}
