import type { Queryable } from './db.ts';
import { getOrdersByIds, type OrderRecord } from './orders-store.ts';

const FINAL = `('completed', 'expired', 'refunded', 'failed')`;

/**
 * Claims due orders for one worker: a single UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED)
 * RETURNING, with a lease, so several workers share the work and a killed worker's orders come back
 * when its lease runs out.
 */
export async function claimDueOrders(db: Queryable, workerId: string, limit: number, leaseSeconds: number): Promise<OrderRecord[]> {
  const { rows } = await db.query<{ id: string | number }>(
    `UPDATE orders SET locked_by = $1, locked_until = now() + make_interval(secs => $3), attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM orders
       WHERE status NOT IN ${FINAL} AND next_run_at <= now() AND (locked_until IS NULL OR locked_until < now())
       ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING id`,
    [workerId, limit, leaseSeconds],
  );
  // One read for the whole batch (not one per order): the claim is the worker's hottest path.
  return getOrdersByIds(db, rows.map((r) => String(r.id)));
}

/** Claims one order (same lease as claimDueOrders) if it is not final and nobody holds it; null otherwise. */
export async function claimOrder(db: Queryable, id: string, workerId: string, leaseSeconds: number): Promise<OrderRecord | null> {
  const { rows } = await db.query<{ id: string | number }>(
    `UPDATE orders SET locked_by = $2, locked_until = now() + make_interval(secs => $3), attempts = attempts + 1
     WHERE id = $1 AND status NOT IN ${FINAL} AND (locked_until IS NULL OR locked_until < now())
     RETURNING id`,
    [id, workerId, leaseSeconds],
  );
  return rows.length > 0 ? ((await getOrdersByIds(db, [id]))[0] ?? null) : null;
}

/** Gives an order back with its next run time; `afterError` backs off exponentially (computed in SQL). */
export async function releaseOrder(db: Queryable, id: string, workerId: string, opts: { delayMs?: number; at?: Date; afterError?: boolean }): Promise<void> {
  await db.query(
    `UPDATE orders SET locked_by = NULL, locked_until = NULL,
       attempts = CASE WHEN $5::boolean THEN attempts ELSE 0 END,
       next_run_at = CASE
         WHEN $5::boolean THEN now() + least(power(2, least(attempts, 10)) * 0.25, 30) * interval '1 second'
         WHEN $4::timestamptz IS NOT NULL THEN $4::timestamptz
         ELSE now() + make_interval(secs => $3::double precision / 1000) END
     WHERE id = $1 AND locked_by = $2`,
    [id, workerId, opts.delayMs ?? 0, opts.at ?? null, opts.afterError ?? false],
  );
}

/** Sets the payout due time unless one is set already (the first draw wins); returns the one in force. */
export async function setPayoutDue(db: Queryable, id: string, at: Date): Promise<Date | null> {
  const { rows } = await db.query<{ payout_due_at: Date | null }>(
    'UPDATE orders SET payout_due_at = coalesce(payout_due_at, $2) WHERE id = $1 RETURNING payout_due_at',
    [id, at],
  );
  return rows[0]?.payout_due_at ?? null;
}

export type ChainTxKind = 'sweep' | 'payout' | 'refund' | 'partner_payout' | 'funding';
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

interface ChainTxRow {
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

function toChainTx(r: ChainTxRow): ChainTx {
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

export interface NewChainTx {
  kind: ChainTxKind;
  orderId: string | null;
  assetId: string;
  amount: bigint;
  source: string;
  destination: string;
  signature: string;
  wire: string;
  lastValidBlockHeight: bigint;
  meta?: Record<string, unknown>;
}

/**
 * Records a signed transaction before it is sent. Returns null when a live payout/refund already
 * exists for the same order and part (the partial unique index): that is the "never paid twice" guard.
 */
export async function insertChainTx(db: Queryable, t: NewChainTx): Promise<string | null> {
  try {
    const { rows } = await db.query<{ id: string | number }>(
      `INSERT INTO chain_txs (kind, order_id, asset_id, amount, source, destination, signature, wire, last_valid_block_height, status, meta)
       VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10) RETURNING id`,
      [t.kind, t.orderId, t.assetId, t.amount.toString(), t.source, t.destination, t.signature, t.wire, t.lastValidBlockHeight.toString(), JSON.stringify(t.meta ?? {})],
    );
    return String(rows[0]!.id);
  } catch (e) {
    if ((e as { code?: string }).code === '23505') return null;
    throw e;
  }
}

export async function pendingChainTxs(db: Queryable, limit: number): Promise<ChainTx[]> {
  const { rows } = await db.query<ChainTxRow>(`SELECT * FROM chain_txs WHERE status = 'pending' ORDER BY id LIMIT $1`, [limit]);
  return rows.map(toChainTx);
}

export async function chainTxsOfOrder(db: Queryable, orderId: string, kind: ChainTxKind): Promise<ChainTx[]> {
  const { rows } = await db.query<ChainTxRow>('SELECT * FROM chain_txs WHERE order_id = $1 AND kind = $2 ORDER BY id', [orderId, kind]);
  return rows.map(toChainTx);
}

export async function getChainTx(db: Queryable, id: string): Promise<ChainTx | null> {
  const { rows } = await db.query<ChainTxRow>('SELECT * FROM chain_txs WHERE id = $1', [id]);
  return rows[0] ? toChainTx(rows[0]) : null;
}

/** Compare-and-set on a recorded transaction's fate; `confirmedAt` (ISO) goes into its meta in the same statement. */
export async function settleChainTx(db: Queryable, id: string, to: Exclude<ChainTxStatus, 'pending'>, feeLamports: bigint | null, confirmedAt?: string): Promise<boolean> {
  const { rowCount } = await db.query(
    `UPDATE chain_txs SET status = $2, fee_lamports = $3, updated_at = now(),
       meta = CASE WHEN $4::text IS NULL THEN meta ELSE meta || jsonb_build_object('confirmedAt', $4::text) END
     WHERE id = $1 AND status = 'pending'`,
    [id, to, feeLamports === null ? null : feeLamports.toString(), confirmedAt ?? null],
  );
  return rowCount > 0;
}

/** Amounts of pending outgoing transactions per source account, so pool selection does not overspend. */
export async function pendingOutflows(db: Queryable): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ source: string; total: string }>(
    `SELECT source, sum(amount) AS total FROM chain_txs WHERE status = 'pending' AND kind IN ('payout', 'refund', 'partner_payout') GROUP BY source`,
  );
  return new Map(rows.map((r) => [r.source, BigInt(r.total)]));
}

// ---- sweeps ----

export interface UnsweptDeposit {
  orderId: string;
  trackingId: string;
  depositAccount: string;
  sourceAssetId: string;
}

/** Deposits confirmed but not yet swept nor in a pending sweep, locked for the caller's transaction. */
export async function lockUnsweptDeposits(tx: Queryable, assetId: string, limit: number): Promise<UnsweptDeposit[]> {
  const { rows } = await tx.query<{ id: string | number; tracking_id: string; deposit_account: string; source_asset_id: string }>(
    `SELECT id, tracking_id, deposit_account, source_asset_id FROM orders
     WHERE swept = false AND sweep_tx_id IS NULL AND deposit IS NOT NULL AND source_asset_id = $1
       AND status NOT IN ('awaiting_deposit', 'deposit_detected')
     ORDER BY id LIMIT $2 FOR UPDATE SKIP LOCKED`,
    [assetId, limit],
  );
  return rows.map((r) => ({ orderId: String(r.id), trackingId: r.tracking_id, depositAccount: r.deposit_account, sourceAssetId: r.source_asset_id }));
}

export async function assetsWithUnsweptDeposits(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ source_asset_id: string }>(
    `SELECT DISTINCT source_asset_id FROM orders WHERE swept = false AND sweep_tx_id IS NULL AND deposit IS NOT NULL AND status NOT IN ('awaiting_deposit', 'deposit_detected')`,
  );
  return rows.map((r) => r.source_asset_id);
}

export async function attachSweep(tx: Queryable, orderIds: string[], sweepTxId: string): Promise<void> {
  await tx.query('UPDATE orders SET sweep_tx_id = $2 WHERE id = ANY($1::bigint[]) AND sweep_tx_id IS NULL', [orderIds, sweepTxId]);
}

export async function finishSweep(tx: Queryable, sweepTxId: string, landed: boolean): Promise<void> {
  if (landed) await tx.query('UPDATE orders SET swept = true WHERE sweep_tx_id = $1', [sweepTxId]);
  else await tx.query('UPDATE orders SET sweep_tx_id = NULL WHERE sweep_tx_id = $1 AND swept = false', [sweepTxId]);
}

// ---- ledger ----

export interface LedgerLeg {
  account: string;
  assetId: string;
  amount: bigint;
}

export type MovementKind = 'deposit' | 'sweep' | 'payout' | 'refund' | 'fee_income' | 'network_cost' | 'rent' | 'partner_payout' | 'funding' | 'swap' | 'rebalance';

/**
 * Records one balanced movement (legs sum to zero per asset). Idempotent: a movement id is recorded once,
 * so replaying a step after a crash cannot double-count.
 */
export async function recordMovement(db: Queryable, movement: string, kind: MovementKind, legs: LedgerLeg[], orderId: string | null = null): Promise<void> {
  const sums = new Map<string, bigint>();
  for (const l of legs) sums.set(l.assetId, (sums.get(l.assetId) ?? 0n) + l.amount);
  for (const [asset, sum] of sums) if (sum !== 0n) throw new Error(`unbalanced movement ${movement}: ${asset} sums to ${sum}`);
  const merged = new Map<string, LedgerLeg>();
  for (const l of legs) {
    if (l.amount === 0n) continue;
    const k = `${l.account}\u0000${l.assetId}`;
    const prev = merged.get(k);
    merged.set(k, { ...l, amount: (prev?.amount ?? 0n) + l.amount });
  }
  if (merged.size === 0) return;
  // All legs in one statement (one round trip; all or none, even outside a transaction).
  const legsOf = [...merged.values()];
  await db.query(
    `INSERT INTO ledger_entries (movement, kind, account, asset_id, amount, order_id)
     SELECT $1::text, $2::text, l.account, l.asset_id, l.amount, $6::bigint FROM unnest($3::text[], $4::text[], $5::numeric[]) AS l(account, asset_id, amount)
     ON CONFLICT (movement, account, asset_id) DO NOTHING`,
    [movement, kind, legsOf.map((l) => l.account), legsOf.map((l) => l.assetId), legsOf.map((l) => l.amount.toString()), orderId],
  );
}

export async function ledgerBalances(db: Queryable, accountPrefix?: string): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ account: string; asset_id: string; total: string }>(
    `SELECT account, asset_id, sum(amount) AS total FROM ledger_entries ${accountPrefix ? 'WHERE account LIKE $1' : ''} GROUP BY account, asset_id`,
    accountPrefix ? [`${accountPrefix}%`] : [],
  );
  return new Map(rows.map((r) => [`${r.account}|${r.asset_id}`, BigInt(r.total)]));
}

/** Sum of amountOut that confirmed-but-unpaid orders will still take from each destination asset. */
export async function reservedByOpenOrders(db: Queryable): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ destination_asset_id: string; total: string }>(
    `SELECT destination_asset_id, sum(amount_out) AS total FROM orders
     WHERE status IN ('awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'swapping') GROUP BY destination_asset_id`,
  );
  return new Map(rows.map((r) => [r.destination_asset_id, BigInt(r.total)]));
}
