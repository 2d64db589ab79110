export interface LedgerLeg {
  account: string;
  assetId: string;
  amount: bigint;
}

export type MovementKind = 'deposit' | 'sweep' | 'payout' | 'refund' | 'fee_income' | 'network_cost' | 'rent' | 'partner_payout' | 'funding' | 'swap' | 'rebalance' | 'frozen' | 'held' | 'drain';

export interface Movement {
  movement: string;
  kind: MovementKind;
  legs: LedgerLeg[];
  orderId?: string | null;
}

interface LedgerRow {
  movement: string;
  kind: MovementKind;
  account: string;
  assetId: string;
  amount: bigint;
  orderId: string | null;
}

/** Checks each movement balances (legs sum to zero per asset) and merges its legs per account and asset. */
export function movementRows(movements: Movement[]): LedgerRow[] {
  const out: LedgerRow[] = [];
  for (const m of movements) {
    const sums = new Map<string, bigint>();
    for (const l of m.legs) sums.set(l.assetId, (sums.get(l.assetId) ?? 0n) + l.amount);
    for (const [asset, sum] of sums) if (sum !== 0n) throw new Error(`unbalanced movement ${m.movement}: ${asset} sums to ${sum}`);
    const merged = new Map<string, LedgerRow>();
    for (const l of m.legs) {
      if (l.amount === 0n) continue;
      const k = `${l.account}\u0000${l.assetId}`;
      const prev = merged.get(k);
      merged.set(k, { movement: m.movement, kind: m.kind, account: l.account, assetId: l.assetId, amount: (prev?.amount ?? 0n) + l.amount, orderId: m.orderId ?? null });
    }
    out.push(...merged.values());
  }
  return out;
}

/** `INSERT … SELECT` of ledger rows passed as six arrays from parameter $n on (legParams); alias x. */
export const LEDGER_INSERT_FROM_PARAMS = (n: number) =>
  `INSERT INTO ledger_entries (movement, kind, account, asset_id, amount, order_id, created_at)
   SELECT x.movement, x.kind, x.account, x.asset_id, x.amount, x.order_id, now()
   FROM unnest($${n}::text[], $${n + 1}::text[], $${n + 2}::text[], $${n + 3}::text[], $${n + 4}::numeric[], $${n + 5}::bigint[])
     AS x(movement, kind, account, asset_id, amount, order_id)`;

export const legParams = (rows: LedgerRow[]) => [
  rows.map((r) => r.movement),
  rows.map((r) => r.kind),
  rows.map((r) => r.account),
  rows.map((r) => r.assetId),
  rows.map((r) => r.amount.toString()),
  rows.map((r) => r.orderId),
];
