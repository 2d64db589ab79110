import type { Queryable } from './db.ts';

export type OrderStatus =
  | 'awaiting_deposit'
  | 'deposit_detected'
  | 'deposit_confirmed'
  | 'swapping'
  | 'sending'
  | 'completed'
  | 'expired'
  | 'refunding'
  | 'refunded'
  | 'failed';

export interface NewOrder {
  trackingId: string;
  accountId: string;
  quoteKey: string;
  quote: unknown;
  sourceAssetId: string;
  destinationAssetId: string;
  mode: 'exact_in' | 'exact_out';
  amountIn: bigint;
  amountOut: bigint;
  serviceFee: bigint;
  partnerFee: bigint;
  networkFee: bigint;
  feeBps: number;
  feeRecipient: string | null;
  sender: string;
  recipient: string;
  depositOwner: string;
  depositAccount: string;
  expiration: Date;
  txBlockhash: string;
  txLastValidBlockHeight: bigint;
  txExpiresAtSlot: bigint;
  createdAt: Date;
}

export interface DepositInfo {
  signature: string;
  amount: string;
  confirmedAt: string | null;
}

export interface OrderRecord extends NewOrder {
  id: string;
  status: OrderStatus;
  deposit: DepositInfo | null;
  payouts: { signature: string; amount: string; confirmedAt: string | null }[];
  refund: { signature: string; amount: string; reason: string } | null;
  failureReason: string | null;
  updatedAt: Date;
  history: { status: OrderStatus; at: Date }[];
}

export interface OrderRow {
  id: string | number;
  tracking_id: string;
  account_id: string;
  quote_key: string;
  quote: unknown;
  status: OrderStatus;
  source_asset_id: string;
  destination_asset_id: string;
  mode: 'exact_in' | 'exact_out';
  amount_in: string;
  amount_out: string;
  service_fee: string;
  partner_fee: string;
  network_fee: string;
  fee_bps: number;
  fee_recipient: string | null;
  sender: string;
  recipient: string;
  deposit_owner: string;
  deposit_account: string;
  expiration: Date;
  tx_blockhash: string;
  tx_last_valid_block_height: string | number;
  tx_expires_at_slot: string | number;
  deposit: DepositInfo | null;
  payouts: OrderRecord['payouts'];
  refund: OrderRecord['refund'];
  failure_reason: string | null;
  created_at: Date;
  updated_at: Date;
  history: { status: OrderStatus; at: string }[] | null;
}

/** A row of `orders` (history, when not selected, comes back empty). */
export function toOrder(r: OrderRow): OrderRecord {
  return {
    id: String(r.id),
    trackingId: r.tracking_id,
    accountId: r.account_id,
    quoteKey: r.quote_key,
    quote: r.quote,
    status: r.status,
    sourceAssetId: r.source_asset_id,
    destinationAssetId: r.destination_asset_id,
    mode: r.mode,
    amountIn: BigInt(r.amount_in),
    amountOut: BigInt(r.amount_out),
    serviceFee: BigInt(r.service_fee),
    partnerFee: BigInt(r.partner_fee),
    networkFee: BigInt(r.network_fee),
    feeBps: r.fee_bps,
    feeRecipient: r.fee_recipient,
    sender: r.sender,
    recipient: r.recipient,
    depositOwner: r.deposit_owner,
    depositAccount: r.deposit_account,
    expiration: r.expiration,
    txBlockhash: r.tx_blockhash,
    txLastValidBlockHeight: BigInt(r.tx_last_valid_block_height),
    txExpiresAtSlot: BigInt(r.tx_expires_at_slot),
    deposit: r.deposit,
    payouts: r.payouts,
    refund: r.refund,
    failureReason: r.failure_reason,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
    history: (r.history ?? []).map((h) => ({ status: h.status, at: new Date(h.at) })),
  };
}

/** NOTIFY channel carrying the trackingId of every order that changed (status caches listen). */
export const ORDER_CHANGED_CHANNEL = 'hush_order_changed';

const ORDER_COLUMNS = `o.*, (SELECT json_agg(json_build_object('status', h.status, 'at', h.at) ORDER BY h.id) FROM order_history h WHERE h.order_id = o.id) AS history`;

export type InsertOrderResult = { kind: 'created'; id: string } | { kind: 'quote_used' };

/**
 * Creates the order, its first history entry and completes the idempotency claim in ONE statement, so
 * an order exists if and only if its idempotency record says so.
 */
export async function insertOrder(
  db: Queryable,
  o: NewOrder,
  idempotency: { key: string; responseStatus: number; responseBody: unknown },
): Promise<InsertOrderResult> {
  try {
    const { rows } = await db.query<{ id: string | number }>(
      `WITH o AS (
         INSERT INTO orders (tracking_id, account_id, quote_key, quote, status, source_asset_id, destination_asset_id, mode,
           amount_in, amount_out, service_fee, partner_fee, network_fee, fee_bps, fee_recipient, sender, recipient,
           deposit_owner, deposit_account, expiration, tx_blockhash, tx_last_valid_block_height, tx_expires_at_slot, created_at, updated_at)
         VALUES ($1, $2, $3, $4, 'awaiting_deposit', $5, $6, $7, $8, $9, $10, $11, $12, $13, $14, $15, $16, $17, $18, $19, $20, $21, $22, $23, $23)
         RETURNING id, created_at),
       h AS (INSERT INTO order_history (order_id, status, at) SELECT id, 'awaiting_deposit', created_at FROM o),
       i AS (UPDATE idempotency_keys SET state = 'done', response_status = $25, response_body = $26
             WHERE account_id = $2 AND key = $24 AND state = 'in_progress')
       SELECT id FROM o`,
      [
        o.trackingId,
        o.accountId,
        o.quoteKey,
        JSON.stringify(o.quote),
        o.sourceAssetId,
        o.destinationAssetId,
        o.mode,
        o.amountIn.toString(),
        o.amountOut.toString(),
        o.serviceFee.toString(),
        o.partnerFee.toString(),
        o.networkFee.toString(),
        o.feeBps,
        o.feeRecipient,
        o.sender,
        o.recipient,
        o.depositOwner,
        o.depositAccount,
        o.expiration,
        o.txBlockhash,
        o.txLastValidBlockHeight.toString(),
        o.txExpiresAtSlot.toString(),
        o.createdAt,
        idempotency.key,
        idempotency.responseStatus,
        JSON.stringify(idempotency.responseBody),
      ],
    );
    return { kind: 'created', id: String(rows[0]!.id) };
  } catch (e) {
    if ((e as { code?: string; constraint?: string }).code === '23505' && (e as { constraint?: string }).constraint === 'orders_quote_key_unique') {
      return { kind: 'quote_used' };
    }
    throw e;
  }
}

export async function getOrderByTrackingId(db: Queryable, trackingId: string): Promise<OrderRecord | null> {
  const { rows } = await db.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.tracking_id = $1`, [trackingId]);
  return rows[0] ? toOrder(rows[0]) : null;
}

export async function getOrderById(db: Queryable, id: string): Promise<OrderRecord | null> {
  const { rows } = await db.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.id = $1`, [id]);
  return rows[0] ? toOrder(rows[0]) : null;
}

/** Several orders by id in one query, in the order of `ids` (missing ones left out). */
export async function getOrdersByIds(db: Queryable, ids: string[]): Promise<OrderRecord[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.id = ANY($1::bigint[])`, [ids]);
  const byId = new Map(rows.map((r) => [String(r.id), toOrder(r)]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}

export interface OrderPatch {
  deposit?: DepositInfo | null;
  payouts?: OrderRecord['payouts'];
  refund?: OrderRecord['refund'];
  failureReason?: string | null;
}

/**
 * Compare-and-set transition: succeeds only if the order is still in `from`; records the history entry
 * in the same statement. Returns false when another actor moved the order first.
 */
export async function transitionOrder(db: Queryable, id: string, from: OrderStatus, to: OrderStatus, patch: OrderPatch = {}): Promise<boolean> {
  const { rows } = await db.query(
    `WITH u AS (
       UPDATE orders SET status = $3, updated_at = clock_timestamp(),
         deposit = CASE WHEN $4::boolean THEN $5::jsonb ELSE deposit END,
         payouts = coalesce($6::jsonb, payouts),
         refund = coalesce($7::jsonb, refund),
         failure_reason = coalesce($8, failure_reason)
       WHERE id = $1 AND status = $2
       RETURNING id, updated_at, tracking_id),
     h AS (INSERT INTO order_history (order_id, status, at) SELECT id, $3, updated_at FROM u)
     SELECT pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM u`,
    [
      id,
      from,
      to,
      patch.deposit !== undefined,
      patch.deposit === undefined ? null : JSON.stringify(patch.deposit),
      patch.payouts === undefined ? null : JSON.stringify(patch.payouts),
      patch.refund === undefined ? null : JSON.stringify(patch.refund),
      patch.failureReason ?? null,
    ],
  );
  return rows.length > 0;
}

/** Records a refreshed deposit transaction; only while the order still awaits its deposit. */
export async function updateOrderTransaction(
  db: Queryable,
  id: string,
  tx: { blockhash: string; lastValidBlockHeight: bigint; expiresAtSlot: bigint },
): Promise<boolean> {
  const { rows } = await db.query(
    `WITH u AS (UPDATE orders SET tx_blockhash = $2, tx_last_valid_block_height = GREATEST(tx_last_valid_block_height, $3::bigint),
       tx_expires_at_slot = GREATEST(tx_expires_at_slot, $4::bigint), updated_at = clock_timestamp()
     WHERE id = $1 AND status = 'awaiting_deposit' RETURNING tracking_id)
     SELECT pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM u`,
    [id, tx.blockhash, tx.lastValidBlockHeight.toString(), tx.expiresAtSlot.toString()],
  );
  return rows.length > 0;
}

export async function addDepositHint(db: Queryable, orderId: string, signature: string): Promise<void> {
  await db.query('INSERT INTO deposit_hints (order_id, signature) VALUES ($1, $2) ON CONFLICT DO NOTHING', [orderId, signature]);
}

export async function countOrdersByStatus(db: Queryable): Promise<Map<OrderStatus, number>> {
  const { rows } = await db.query<{ status: OrderStatus; n: string | number }>('SELECT status, count(*) AS n FROM orders GROUP BY status');
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}
