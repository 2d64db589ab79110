import type { Address } from '@solana/kit';
export type ChainTxKind = 'sweep' | 'payout' | 'refund' | 'partner_payout' | 'funding' | 'stray_return' | 'drain';

export type ChainTxStatus = 'pending' | 'confirmed' | 'failed' | 'expired';

/** One deposit (or late funds) a sweep moves: what its settlement books and what a late refund returns. */
export interface SweepItemRecord {
  orderId: string;
  depositAccount: string;
  amount: string;
  late?: boolean;
  /** A wrapped-SOL account's rent reserve as the sweep read it (lamports less token amount); else the standard one. */
  reserve?: string;
}

/** A transfer out of a pool: its part of the order's payout or refund, or of a late refund (`lateOf`). */
export interface TransferMeta {
  part?: number;
  /** A late refund's: the signature of the sweep whose late funds it returns (migration 016). */
  lateOf?: string;
  /** A partner payout's ledger account (payable:partner:…). */
  payable?: string;
  /** A refund of funds sent after the deposit, not the order's own refund. */
  late?: boolean;
  /**
   * An order's own refund: the deposit account's rent (lamports) returned to the sender in the same transaction, from
   * Hush's fee payer (docs/decisions.md "A refund returns the deposit account's rent"). Kept, so a replacement returns it too.
   */
  rentBack?: string;
  /** Set with the fate when it landed (ISO). */
  confirmedAt?: string;
  /** Set with the fate when it landed and failed: the chain's error (RPC JSON). */
  err?: unknown;
  /**
   * When no single pool covered the amount: every pool the one transaction pays from, each signing its
   * own transfer (the row's `source` is then the first of them and its `amount` the total).
   */
  sources?: TransferSource[];
}

/** One pool's share of a transfer paid from several. */
export interface TransferSource {
  holding: string;
  amount: string;
}

/** The pools a transfer pays from and how much each: `sources` when several, else the row's own. */
export function transferSources(t: { source: string; amount: bigint; meta: TransferMeta }): { holding: string; amount: bigint }[] {
  return t.meta.sources?.length ? t.meta.sources.map((s) => ({ holding: s.holding, amount: BigInt(s.amount) })) : [{ holding: t.source, amount: t.amount }];
}

/** What chain_txs.meta holds, by kind (a JSON column: these are the keys written). */
export interface ChainTxMetaByKind {
  payout: TransferMeta;
  refund: TransferMeta;
  partner_payout: TransferMeta;
  sweep: { items: SweepItemRecord[]; lateRefunded?: boolean; confirmedAt?: string };
  funding: { confirmedAt?: string };
  stray_return: { mint?: string; confirmedAt?: string };
  /** A retired wallet's funds into the current seed's (src/settlement/steps/drain-retired.ts). */
  drain: DrainMeta;
}

/** What a drain moves between: a pool's holding or a fee payer, each side. */
export interface DrainMeta {
  from: 'pool' | 'feepayer';
  to: 'pool' | 'feepayer';
  /** A retired pool's token account closed by the same transaction (its rent to the fee payer). */
  closes?: string;
  confirmedAt?: string;
}

interface ChainTxBase {
  id: string;
  orderId: string | null;
  assetId: string;
  amount: bigint;
  source: string;
  destination: Address;
  signature: string;
  wire: string;
  lastValidBlockHeight: bigint;
  status: ChainTxStatus;
  createdAt: Date;
}

/** A recorded transaction of one of the kinds `K`, its meta typed by kind. */
export type ChainTxOf<K extends ChainTxKind> = { [k in K]: ChainTxBase & { kind: k; meta: ChainTxMetaByKind[k] } }[K];

export type ChainTx = ChainTxOf<ChainTxKind>;

export interface ChainTxRow {
  id: string | number;
  kind: ChainTxKind;
  order_id: string | number | null;
  asset_id: string;
  amount: string;
  source: string;
  /** Written only from checked addresses (planned payouts, refunds, sweeps). */
  destination: Address;
  signature: string;
  wire: string;
  last_valid_block_height: string | number;
  status: ChainTxStatus;
  meta: ChainTxMetaByKind[ChainTxKind];
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
  } as ChainTx;
}

/** A signed transaction about to be recorded: a chain_txs row before the store gives it id, status and time. */
export type NewChainTx = Omit<ChainTxBase, 'id' | 'status' | 'createdAt'> & { kind: ChainTxKind; meta?: ChainTxMetaByKind[ChainTxKind] };

/** Pending chain_txs rows from the ten arrays of chainTxParams at $n…$n+9, written at the statement's now(). */
export const CHAIN_TX_INSERT_FROM_PARAMS = (n: number) =>
  `INSERT INTO chain_txs (kind, order_id, asset_id, amount, source, destination, signature, wire, last_valid_block_height, status, meta, created_at, updated_at)
   SELECT t.kind, t.order_id, t.asset_id, t.amount, t.source, t.destination, t.signature, t.wire, t.lvbh, 'pending', t.meta, now(), now()
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
