import type { Queryable } from './db.ts';
import { tryKeyLock } from './idempotency-store.ts';
import { INITIAL_STATUS, STATUS, type OrderStatus } from '../domain/order-state.ts';
import { statusLiteral } from './settlement/final-statuses.ts';

/** Declared once, in the domain (docs/spec.md §5). */
export type { OrderStatus };

import { toOrder, type DepositInfo, type NewOrder, type OrderRecord, type OrderRow } from './order-record.ts';

export { toOrder, type DepositInfo, type NewOrder, type OrderRecord, type OrderRow };

import { ORDER_CHANGED_CHANNEL } from './order-transitions.ts';

export { ORDER_CHANGED_CHANNEL };

const ORDER_COLUMNS = `o.*, (SELECT json_agg(json_build_object('status', h.status, 'at', h.at) ORDER BY h.id) FROM order_history h WHERE h.order_id = o.id) AS history`;

/**
 * `deposit_address`: an address of the order (sender, recipient, fee recipient) is another order's deposit owner or
 * deposit account, and nothing was stored (docs/spec.md §6, INVALID_ADDRESS): the insert checks it itself, so an order
 * costs one statement, not a lookup and then an insert (docs/decisions.md, "The deposit-address rule is checked by the
 * order's insert").
 */
export type InsertOrderResult = { kind: 'created'; id: string } | { kind: 'quote_used' } | { kind: 'deposit_address'; addresses: string[] };

/** The given addresses (SQL expressions, text) that are some order's deposit owner or account, as a text[]: each an index lookup (migration 015, the deposit_account key). */
function depositAddressHits(...addresses: string[]): string {
  const rows = addresses.map((a) => `(${a})`).join(', ');
  return `ARRAY(SELECT a FROM (VALUES ${rows}) AS v(a) WHERE a IS NOT NULL
    AND (EXISTS (SELECT 1 FROM orders WHERE deposit_owner = a) OR EXISTS (SELECT 1 FROM orders WHERE deposit_account = a)))`;
}
/** The hits among orderParams' sender ($15), recipient ($16) and fee recipient ($14). */
const PARAM_DEPOSIT_ADDRESS_HITS = depositAddressHits('$15::text', '$16::text', '$14::text');

const hitsOf = (hit: unknown): string[] => (Array.isArray(hit) ? (hit as string[]) : []);

/** The status an order is born in, as SQL: creation writes no other (test/store/one-status-writer.test.ts). */
const BORN = statusLiteral(INITIAL_STATUS);

const ORDER_INSERT_COLUMNS = `tracking_id, account_id, quote_key, quote, status, source_asset_id, destination_asset_id, mode,
  amount_in, amount_out, service_fee, partner_fee, network_fee, fee_bps, fee_recipient, sender, recipient,
  deposit_owner, deposit_account, expiration, tx_blockhash, tx_last_valid_block_height, tx_expires_at_slot, created_at, updated_at, next_run_at,
  network_fee_price`;
/** $1…$24 of orderParams, typed (they also appear in a SELECT list, where nothing else types them). */
const ORDER_INSERT_VALUES = `$1::text, $2::text, $3::text, $4::jsonb, ${BORN}, $5::text, $6::text, $7::text, $8::numeric, $9::numeric,
  $10::numeric, $11::numeric, $12::numeric, $13::integer, $14::text, $15::text, $16::text, $17::text, $18::text, $19::timestamptz,
  $20::text, $21::bigint, $22::bigint, $23::timestamptz, $23::timestamptz, now(), $24::numeric`;

function orderParams(o: NewOrder): unknown[] {
  return [
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
    o.networkFeePrice?.toString() ?? null,
  ];
}

function quoteUsed(e: unknown): boolean {
  return (e as { code?: string }).code === '23505' && (e as { constraint?: string }).constraint === 'orders_quote_key_unique';
}

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
    const { rows } = await db.query<{ id: string | number | null; hit: unknown }>(
      `WITH d AS (SELECT ${PARAM_DEPOSIT_ADDRESS_HITS} AS hit),
       o AS (INSERT INTO orders (${ORDER_INSERT_COLUMNS}) SELECT ${ORDER_INSERT_VALUES} FROM d WHERE cardinality(d.hit) = 0 RETURNING id, tracking_id, created_at),
       h AS (INSERT INTO order_history (order_id, status, at) SELECT id, ${BORN}, created_at FROM o),
       i AS (UPDATE idempotency_keys SET state = 'done', response_status = $26, response_body = $27
             WHERE account_id = $2 AND key = $25 AND state = 'in_progress' AND EXISTS (SELECT 1 FROM o))
       SELECT (SELECT id FROM o) AS id, (SELECT pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM o) AS notified, (SELECT hit FROM d) AS hit`,
      [...orderParams(o), idempotency.key, idempotency.responseStatus, JSON.stringify(idempotency.responseBody)],
    );
    const { id, hit } = rows[0]!;
    if (id === null) return { kind: 'deposit_address', addresses: hitsOf(hit) };
    return { kind: 'created', id: String(id) };
  } catch (e) {
    if (quoteUsed(e)) return { kind: 'quote_used' };
    throw e;
  }
}

/**
 * The common case in one statement: a key never seen before is recorded as done together with the order
 * it created (nobody can observe it half-way). `key_taken` when the key exists, or another statement is
 * recording it right now (tryKeyLock): the caller then goes the claim-first way, which replays, conflicts
 * or answers ORDER_IN_PROGRESS as the record says, without waiting.
 */
export async function insertOrderWithNewKey(
  db: Queryable,
  o: NewOrder,
  idempotency: { key: string; requestHash: string; responseStatus: number; responseBody: unknown },
): Promise<InsertOrderResult | { kind: 'key_taken' }> {
  try {
    const { rows } = await db.query<{ id: string | number | null; hit: unknown }>(
      `WITH d AS (SELECT ${PARAM_DEPOSIT_ADDRESS_HITS} AS hit),
       l AS (SELECT ${tryKeyLock('$2::text', '$25::text')} AS free FROM d WHERE cardinality(d.hit) = 0),
       k AS (
         INSERT INTO idempotency_keys (account_id, key, request_hash, state, response_status, response_body, locked_at, created_at)
         SELECT $2, $25, $28, 'done', $26::integer, $27::jsonb, now(), now() FROM l WHERE l.free ON CONFLICT (account_id, key) DO NOTHING RETURNING 1),
       o AS (INSERT INTO orders (${ORDER_INSERT_COLUMNS}) SELECT ${ORDER_INSERT_VALUES} FROM k RETURNING id, tracking_id, created_at),
       h AS (INSERT INTO order_history (order_id, status, at) SELECT id, ${BORN}, created_at FROM o)
       SELECT (SELECT id FROM o) AS id, (SELECT pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM o) AS notified, (SELECT hit FROM d) AS hit`,
      [...orderParams(o), idempotency.key, idempotency.responseStatus, JSON.stringify(idempotency.responseBody), idempotency.requestHash],
    );
    const { id, hit } = rows[0]!;
    if (hitsOf(hit).length > 0) return { kind: 'deposit_address', addresses: hitsOf(hit) };
    return id !== null ? { kind: 'created', id: String(id) } : { kind: 'key_taken' };
  } catch (e) {
    if (quoteUsed(e)) return { kind: 'quote_used' };
    throw e;
  }
}

/** By tracking id; with `accountId`, only that account's (another's is not read at all, as an unknown id). */
export async function getOrderByTrackingId(db: Queryable, trackingId: string, accountId?: string): Promise<OrderRecord | null> {
  const { rows } =
    accountId === undefined
      ? await db.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.tracking_id = $1`, [trackingId])
      : await db.query<OrderRow>(`SELECT ${ORDER_COLUMNS} FROM orders o WHERE o.tracking_id = $1 AND o.account_id = $2`, [trackingId, accountId]);
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

export type { OrderPatch } from './order-transitions.ts';

/**
 * Records a refreshed deposit transaction; only while the order still awaits its deposit. Not a change of
 * the status record (which shows no transaction), so `updated_at` and the ETag stay.
 */
export async function updateOrderTransaction(
  db: Queryable,
  id: string,
  tx: { blockhash: string; lastValidBlockHeight: bigint; expiresAtSlot: bigint },
): Promise<boolean> {
  const { rows } = await db.query(
    `WITH u AS (UPDATE orders SET tx_blockhash = $2, tx_last_valid_block_height = GREATEST(tx_last_valid_block_height, $3::bigint),
       tx_expires_at_slot = GREATEST(tx_expires_at_slot, $4::bigint)
     WHERE id = $1 AND status = ${statusLiteral(STATUS.awaiting_deposit)} RETURNING tracking_id)
     SELECT pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM u`,
    [id, tx.blockhash, tx.lastValidBlockHeight.toString(), tx.expiresAtSlot.toString()],
  );
  return rows.length > 0;
}

/**
 * Shows landed refunds of funds sent after the deposit (reason `late_deposit`) on an order that has no
 * refund of its own and is not making one (`refunding`, whose own refund would replace it): no transition
 * (a final order stays final), but the partner can see where the funds went. The signature is the first
 * landed one; the amount is the sum of every landed late refund of the order (parts split across pools,
 * and later late deposits), read from the recorded transactions: recording one twice changes nothing,
 * and the amount never shrinks.
 */
export async function recordLateRefund(db: Queryable, id: string, refund: { signature: string }): Promise<boolean> {
  const { rows } = await db.query(
    `WITH total AS (
       SELECT coalesce(sum(amount), 0)::text AS amount FROM chain_txs
       WHERE order_id = $1 AND kind = 'refund' AND status = 'confirmed' AND (meta ->> 'late')::boolean
     ), u AS (
       UPDATE orders SET refund = jsonb_build_object('signature', coalesce(refund ->> 'signature', $2), 'amount', (SELECT amount FROM total), 'reason', 'late_deposit'),
         updated_at = now()
       WHERE id = $1 AND (refund IS NULL OR refund ->> 'reason' = 'late_deposit') AND status <> ${statusLiteral(STATUS.refunding)}
         -- Only ever up: a statement that waited for the row behind a later one has an older total.
         AND coalesce((refund ->> 'amount')::numeric, 0) < (SELECT amount FROM total)::numeric
       RETURNING tracking_id)
     SELECT pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM u`,
    [id, refund.signature],
  );
  return rows.length > 0;
}

export async function addDepositHint(db: Queryable, orderId: string, signature: string): Promise<void> {
  await db.query('INSERT INTO deposit_hints (order_id, signature, created_at) VALUES ($1, $2, now()) ON CONFLICT DO NOTHING', [orderId, signature]);
}

/**
 * Hints are an audit record (the deposit account's watch finds every deposit, hinted or not), kept as long
 * as the late-deposit window, so the table does not grow without bound.
 */
export async function purgeDepositHints(db: Queryable): Promise<number> {
  const { rowCount } = await db.query(`DELETE FROM deposit_hints WHERE created_at < now() - interval '7 days'`);
  return rowCount;
}

export async function countOrdersByStatus(db: Queryable): Promise<Map<OrderStatus, number>> {
  const { rows } = await db.query<{ status: OrderStatus; n: string | number }>('SELECT status, count(*) AS n FROM orders GROUP BY status');
  return new Map(rows.map((r) => [r.status, Number(r.n)]));
}

export interface NewOrderWithKey {
  order: NewOrder;
  key: string;
  requestHash: string;
  responseBody: unknown;
}

/**
 * insertOrderWithNewKey for many orders in ONE statement (group commit): each order whose key is new is
 * created with its history entry and its done idempotency record; the others (keys that exist or that
 * another statement is recording right now) are left out of the result, and an order with an address that is
 * another order's deposit address is not stored, its key is not recorded, and it is answered in `refused` (as insertOrderWithNewKey's
 * `deposit_address`). Callers keep keys and quote keys unique within a batch. Any error (a quote already backing an
 * order among them) fails the whole batch, and the caller retries its orders one by one.
 *
 * The batch travels as one JSON document (jsonb_to_recordset), not 26 parallel arrays: JSON.stringify is
 * native, while an array parameter is quoted and escaped element by element in JavaScript (the quote and
 * the answer, JSON inside an array literal, are most of an order's bytes), and PGlite counts a text
 * parameter's UTF-8 length character by character. On PGlite this took ~10 % off the insert's CPU
 * (docs/performance.md, run 11). Each column keeps the type the arrays gave it, in the record's definition.
 */
export async function insertOrdersWithNewKeys(db: Queryable, items: readonly NewOrderWithKey[]): Promise<{ created: Map<string, string>; refused: Map<string, string[]> }> {
  const doc = items.map(({ order: o, key, requestHash, responseBody }) => ({
    tracking_id: o.trackingId,
    account_id: o.accountId,
    quote_key: o.quoteKey,
    quote: o.quote,
    source_asset_id: o.sourceAssetId,
    destination_asset_id: o.destinationAssetId,
    mode: o.mode,
    amount_in: o.amountIn.toString(),
    amount_out: o.amountOut.toString(),
    service_fee: o.serviceFee.toString(),
    partner_fee: o.partnerFee.toString(),
    network_fee: o.networkFee.toString(),
    network_fee_price: o.networkFeePrice?.toString() ?? null,
    fee_bps: o.feeBps,
    fee_recipient: o.feeRecipient,
    sender: o.sender,
    recipient: o.recipient,
    deposit_owner: o.depositOwner,
    deposit_account: o.depositAccount,
    expiration: o.expiration.toISOString(),
    tx_blockhash: o.txBlockhash,
    tx_last_valid_block_height: o.txLastValidBlockHeight.toString(),
    tx_expires_at_slot: o.txExpiresAtSlot.toString(),
    created_at: o.createdAt.toISOString(),
    idem_key: key,
    request_hash: requestHash,
    response_body: responseBody,
  }));
  const { rows } = await db.query<{ tracking_id: string; id: string | number | null; hit: unknown }>(
    `WITH input AS (
       SELECT * FROM jsonb_to_recordset($1::jsonb) AS t(tracking_id text, account_id text, quote_key text, quote jsonb, source_asset_id text,
         destination_asset_id text, mode text, amount_in numeric, amount_out numeric, service_fee numeric, partner_fee numeric,
         network_fee numeric, network_fee_price numeric, fee_bps integer, fee_recipient text, sender text, recipient text, deposit_owner text, deposit_account text,
         expiration timestamptz, tx_blockhash text, tx_last_valid_block_height bigint, tx_expires_at_slot bigint, created_at timestamptz,
         idem_key text, request_hash text, response_body jsonb)),
     l AS (SELECT input.*, ${depositAddressHits('input.sender', 'input.recipient', 'input.fee_recipient')} AS hit,
       ${tryKeyLock('account_id', 'idem_key')} AS free FROM input),
     k AS (
       INSERT INTO idempotency_keys (account_id, key, request_hash, state, response_status, response_body, locked_at, created_at)
       SELECT account_id, idem_key, request_hash, 'done', 200, response_body, now(), now() FROM l WHERE l.free AND cardinality(l.hit) = 0
       ON CONFLICT (account_id, key) DO NOTHING RETURNING account_id, key),
     o AS (
       INSERT INTO orders (${ORDER_INSERT_COLUMNS})
       SELECT i.tracking_id, i.account_id, i.quote_key, i.quote, ${BORN}, i.source_asset_id, i.destination_asset_id, i.mode,
         i.amount_in, i.amount_out, i.service_fee, i.partner_fee, i.network_fee, i.fee_bps, i.fee_recipient, i.sender, i.recipient,
         i.deposit_owner, i.deposit_account, i.expiration, i.tx_blockhash, i.tx_last_valid_block_height, i.tx_expires_at_slot, i.created_at, i.created_at, now(),
         i.network_fee_price
       FROM l i JOIN k ON k.account_id = i.account_id AND k.key = i.idem_key
       RETURNING id, tracking_id, created_at),
     h AS (INSERT INTO order_history (order_id, status, at) SELECT id, ${BORN}, created_at FROM o)
     SELECT tracking_id, id, NULL::text[] AS hit, pg_notify('${ORDER_CHANGED_CHANNEL}', tracking_id) FROM o
     UNION ALL SELECT tracking_id, NULL, hit, NULL FROM l WHERE cardinality(hit) > 0`,
    [JSON.stringify(doc)],
  );
  const created = new Map<string, string>();
  const refused = new Map<string, string[]>();
  for (const r of rows) {
    if (r.id === null) refused.set(r.tracking_id, hitsOf(r.hit));
    else created.set(r.tracking_id, String(r.id));
  }
  return { created, refused };
}
