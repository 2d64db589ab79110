export type ChainTxKind = 'sweep' | 'payout' | 'refund' | 'partner_payout' | 'funding' | 'stray_return';

export type ChainTxStatus = 'pending' | 'confirmed' | 'failed' | 'expired';

export interface ChainTx {
  id: string;
  kind: ChainTxKind;
  orderId: string | null;
  assetId: string;
  amount: bigint;
  source: string;
  destination: string;
  signature: string;
  wire: string;
  lastValidBlockHeight: bigint;
  status: ChainTxStatus;
  meta: Record<string, unknown>;
  createdAt: Date;
}

export interface ChainTxRow {
  id: string | number;
  kind: ChainTxKind;
  order_id: string | number | null;
  asset_id: string;
  amount: string;
  source: string;
  destination: string;
  signature: string;
  wire: string;
  last_valid_block_height: string | number;
  status: ChainTxStatus;
  meta: Record<string, unknown>;
  created_at: Date;
}

export function toChainTx(r: ChainTxRow): ChainTx {
  return {
    id: String(r.id),
    kind: r.kind,
    orderId: r.order_id === null ? null : String(r.order_id),
    assetId: r.asset_id,
    amount: BigInt(r.amount),
    source: r.source,
    destination: r.destination,
    signature: r.signature,
    wire: r.wire,
    lastValidBlockHeight: BigInt(r.last_valid_block_height),
    status: r.status,
    meta: r.meta,
    createdAt: r.created_at,
  };
}

/** A signed transaction about to be recorded: a chain_txs row before the store gives it id, status and time. */
export type NewChainTx = Omit<ChainTx, 'id' | 'status' | 'meta' | 'createdAt'> & { meta?: Record<string, unknown> };

/** Pending chain_txs rows from the ten arrays of chainTxParams at $n…$n+9, `created_at` as each is written. */
export const CHAIN_TX_INSERT_FROM_PARAMS = (n: number) =>
  `INSERT INTO chain_txs (kind, order_id, asset_id, amount, source, destination, signature, wire, last_valid_block_height, status, meta, created_at, updated_at)
   SELECT t.kind, t.order_id, t.asset_id, t.amount, t.source, t.destination, t.signature, t.wire, t.lvbh, 'pending', t.meta, clock_timestamp(), clock_timestamp()
   FROM unnest($${n}::text[], $${n + 1}::bigint[], $${n + 2}::text[], $${n + 3}::numeric[], $${n + 4}::text[], $${n + 5}::text[], $${n + 6}::text[], $${n + 7}::text[], $${n + 8}::bigint[], $${n + 9}::jsonb[])
     AS t(kind, order_id, asset_id, amount, source, destination, signature, wire, lvbh, meta)`;

/** The ten arrays of chain_txs rows that startPayouts and confirmDepositsAndStartPayouts unnest. */
export const chainTxParams = (txs: NewChainTx[]) => [
  txs.map((t) => t.kind),
  txs.map((t) => t.orderId),
  txs.map((t) => t.assetId),
  txs.map((t) => t.amount.toString()),
  txs.map((t) => t.source),
  txs.map((t) => t.destination),
  txs.map((t) => t.signature),
  txs.map((t) => t.wire),
  txs.map((t) => t.lastValidBlockHeight.toString()),
  txs.map((t) => JSON.stringify(t.meta ?? {})),
];
