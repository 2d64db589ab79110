import type { Queryable } from './db.ts';
import { ORDER_CHANGED_CHANNEL, toOrder, type DepositInfo, type OrderRecord, type OrderRow } from './orders-store.ts';

const FINAL = `('completed', 'expired', 'refunded', 'failed')`;

/**
 * Claims due orders for one worker: a single UPDATE … WHERE id IN (SELECT … FOR UPDATE SKIP LOCKED)
 * RETURNING, with a lease, so several workers share the work and a killed worker's orders come back
 * when its lease runs out. `except`: orders the caller's deposit watch is about to confirm. The claimed rows come back from the same statement (the claim is the worker's
 * hottest path; the worker never reads an order's history).
 */
export async function claimDueOrders(db: Queryable, workerId: string, limit: number, leaseSeconds: number, except: string[] = []): Promise<OrderRecord[]> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders SET locked_by = $1, locked_until = now() + make_interval(secs => $3), attempts = attempts + 1
     WHERE id IN (
       SELECT id FROM orders
       WHERE status NOT IN ${FINAL} AND next_run_at <= now() AND (locked_until IS NULL OR locked_until < now())
         AND id <> ALL($4::bigint[])
       ORDER BY next_run_at LIMIT $2 FOR UPDATE SKIP LOCKED)
     RETURNING *`,
    [workerId, limit, leaseSeconds, except],
  );
  return rows.map(toOrder);
}

/** Claims one order (same lease as claimDueOrders) if it is not final and nobody holds it; null otherwise. */
export async function claimOrder(db: Queryable, id: string, workerId: string, leaseSeconds: number): Promise<OrderRecord | null> {
  const { rows } = await db.query<OrderRow>(
    `UPDATE orders SET locked_by = $2, locked_until = now() + make_interval(secs => $3), attempts = attempts + 1
     WHERE id = $1 AND status NOT IN ${FINAL} AND (locked_until IS NULL OR locked_until < now())
     RETURNING *`,
    [id, workerId, leaseSeconds],
  );
  return rows[0] ? toOrder(rows[0]) : null;
}

/**
 * Renews this worker's lease on an order while it is still in `status` and nobody else holds it: taken
 * in the transaction that records a payout or refund of the order, so the status it was planned for
 * still stands when the record commits, and the watchdog (transitionOrder `idle`) cannot fail it meanwhile.
 */
export async function holdOrder(tx: Queryable, id: string, status: string, workerId: string, leaseSeconds: number): Promise<boolean> {
  const { rows } = await tx.query(
    `UPDATE orders SET locked_by = $3, locked_until = now() + make_interval(secs => $4)
     WHERE id = $1 AND status = $2 AND (locked_by = $3 OR locked_until IS NULL OR locked_until < now())
     RETURNING id`,
    [id, status, workerId, leaseSeconds],
  );
  return rows.length > 0;
}

export interface Release {
  id: string;
  delayMs?: number;
  at?: Date;
  afterError?: boolean;
}

/** Gives an order back with its next run time; `afterError` backs off exponentially (computed in SQL). */
export async function releaseOrder(db: Queryable, id: string, workerId: string, opts: { delayMs?: number; at?: Date; afterError?: boolean }): Promise<void> {
  await releaseOrders(db, workerId, [{ id, ...opts }]);
}

/** releaseOrder for many orders in one statement (same rules per order). */
export async function releaseOrders(db: Queryable, workerId: string, items: Release[]): Promise<void> {
  if (items.length === 0) return;
  await db.query(
    `UPDATE orders o SET locked_by = NULL, locked_until = NULL,
       attempts = CASE WHEN v.after_error THEN o.attempts ELSE 0 END,
       next_run_at = CASE
         WHEN v.after_error THEN now() + least(power(2, least(o.attempts, 10)) * 0.25, 30) * interval '1 second'
         -- A class release may have brought the payout forward since the worker read its due time.
         WHEN v.at IS NOT NULL AND o.status IN ('deposit_confirmed', 'swapping') THEN least(v.at, coalesce(o.payout_due_at, v.at))
         WHEN v.at IS NOT NULL THEN v.at
         ELSE now() + make_interval(secs => v.delay_ms / 1000) END
     FROM unnest($2::bigint[], $3::double precision[], $4::timestamptz[], $5::boolean[]) AS v(id, delay_ms, at, after_error)
     WHERE o.id = v.id AND o.locked_by = $1`,
    [workerId, items.map((i) => i.id), items.map((i) => i.delayMs ?? 0), items.map((i) => i.at ?? null), items.map((i) => i.afterError ?? false)],
  );
}

export interface DepositConfirmation {
  id: string;
  deposit: DepositInfo;
  /** Payout due time drawn for it (kept if one was drawn before: the first draw wins). */
  dueAt: Date;
  /** Its deposit on the ledger, recorded with the transition (idempotent). */
  movement: Movement;
}

/**
 * Confirms many deposits in one statement: each order still awaiting its deposit (or with it detected)
 * moves, when `held`, if this worker's step holds it (the caller claimed it), else if nobody holds it
 * (the statement claims it: SKIP LOCKED, as claims), to
 * `deposit_confirmed` under this worker's lease, with a `deposit_detected` history entry when it skipped
 * that status and a `deposit_confirmed` one, its payout due time, its deposit's ledger movement and the
 * change notification. The status is compared under the row lock: the compare-and-set. Returns the payout
 * due time in force of every order that moved (those are now held by this worker).
 */
export async function confirmDeposits(db: Queryable, workerId: string, leaseSeconds: number, held: boolean, items: DepositConfirmation[]): Promise<Map<string, Date>> {
  if (items.length === 0) return new Map();
  const legs = movementRows(items.map((i) => i.movement));
  const { rows } = await db.query<{ id: string | number; payout_due_at: Date }>(
    `WITH v AS (SELECT * FROM unnest($1::bigint[], $2::jsonb[], $3::timestamptz[]) AS v(id, deposit, due)),
     s AS (
       SELECT o.id, o.status AS from_status FROM orders o
       WHERE o.id = ANY($1::bigint[]) AND o.status IN ('awaiting_deposit', 'deposit_detected')
         AND CASE WHEN $6::boolean THEN o.locked_by = $4 ELSE (o.locked_until IS NULL OR o.locked_until < now()) END
       FOR UPDATE SKIP LOCKED),
     u AS (
       UPDATE orders o SET status = 'deposit_confirmed', updated_at = clock_timestamp(), deposit = v.deposit,
         payout_due_at = coalesce(o.payout_due_at, v.due), locked_by = $4, locked_until = now() + make_interval(secs => $5)
       FROM v JOIN s ON s.id = v.id WHERE o.id = v.id
       RETURNING o.id, o.updated_at, o.tracking_id, o.payout_due_at, s.from_status),
     h AS (
       INSERT INTO order_history (order_id, status, at)
       SELECT u.id, t.status, u.updated_at FROM u CROSS JOIN (VALUES (1, 'deposit_detected'), (2, 'deposit_confirmed')) AS t(n, status)
       WHERE t.n = 2 OR u.from_status = 'awaiting_deposit' ORDER BY u.id, t.n),
     l AS (${LEDGER_INSERT_FROM_PARAMS(7)} WHERE x.order_id IN (SELECT id FROM u) ON CONFLICT (movement, account, asset_id) DO NOTHING)
     SELECT u.id, u.payout_due_at, pg_notify('${ORDER_CHANGED_CHANNEL}', u.tracking_id) FROM u`,
    [items.map((i) => i.id), items.map((i) => JSON.stringify(i.deposit)), items.map((i) => i.dueAt), workerId, leaseSeconds, held, ...legParams(legs)],
  );
  return new Map(rows.map((r) => [String(r.id), r.payout_due_at]));
}

/**
 * confirmDeposits and startPayouts in one statement, for orders paid as soon as they are confirmed (no
 * privacy delay: the due time drawn now is now, whatever the database's clock says): each order confirmed
 * here whose payout is in `txs`, unless a due time drawn earlier is still ahead, moves straight to
 * `sending` — history `deposit_detected` (if skipped), `deposit_confirmed`, `sending`; its deposit on
 * the ledger; its payout recorded (record-before-send) — and is released; the others stop
 * at `deposit_confirmed`, held by this worker, as with confirmDeposits. One write of each order row
 * instead of two: on PGlite the second statement was half of the time from a confirmed deposit to its
 * payout. Returns the due time in force of every order confirmed, and which of them moved to `sending`.
 */
export async function confirmDepositsAndStartPayouts(
  db: Queryable,
  workerId: string,
  leaseSeconds: number,
  held: boolean,
  items: DepositConfirmation[],
  txs: NewChainTx[],
  nextRunMs: number,
): Promise<{ due: Map<string, Date>; moved: Set<string> }> {
  if (items.length === 0) return { due: new Map(), moved: new Set() };
  const legs = movementRows(items.map((i) => i.movement));
  const { rows } = await db.query<{ id: string | number; payout_due_at: Date; pay: boolean }>(
    `WITH v AS (SELECT * FROM unnest($1::bigint[], $2::jsonb[], $3::timestamptz[]) AS v(id, deposit, due)),
     p AS (SELECT DISTINCT order_id FROM unnest($15::bigint[]) AS p(order_id)),
     s AS (
       SELECT o.id, o.status AS from_status, (p.order_id IS NOT NULL AND (o.payout_due_at IS NULL OR o.payout_due_at <= clock_timestamp())) AS pay
       FROM orders o JOIN v ON v.id = o.id LEFT JOIN p ON p.order_id = o.id
       WHERE o.id = ANY($1::bigint[]) AND o.status IN ('awaiting_deposit', 'deposit_detected')
         AND CASE WHEN $6::boolean THEN o.locked_by = $4 ELSE (o.locked_until IS NULL OR o.locked_until < now()) END
       FOR UPDATE OF o SKIP LOCKED),
     u AS (
       UPDATE orders o SET status = CASE WHEN s.pay THEN 'sending' ELSE 'deposit_confirmed' END, updated_at = clock_timestamp(),
         deposit = v.deposit, payout_due_at = coalesce(o.payout_due_at, v.due),
         locked_by = CASE WHEN s.pay THEN NULL ELSE $4 END,
         locked_until = CASE WHEN s.pay THEN NULL ELSE now() + make_interval(secs => $5) END,
         attempts = CASE WHEN s.pay THEN 0 ELSE o.attempts END,
         next_run_at = CASE WHEN s.pay THEN now() + make_interval(secs => $7::double precision / 1000) ELSE o.next_run_at END
       FROM v JOIN s ON s.id = v.id WHERE o.id = v.id
       RETURNING o.id, o.updated_at, o.tracking_id, o.payout_due_at, s.from_status, s.pay),
     h AS (
       INSERT INTO order_history (order_id, status, at)
       SELECT u.id, t.status, u.updated_at FROM u CROSS JOIN (VALUES (1, 'deposit_detected'), (2, 'deposit_confirmed'), (3, 'sending')) AS t(n, status)
       WHERE t.n = 2 OR (t.n = 1 AND u.from_status = 'awaiting_deposit') OR (t.n = 3 AND u.pay) ORDER BY u.id, t.n),
     l AS (${LEDGER_INSERT_FROM_PARAMS(8)} WHERE x.order_id IN (SELECT id FROM u) ON CONFLICT (movement, account, asset_id) DO NOTHING),
     c AS (${CHAIN_TX_INSERT_FROM_PARAMS(14)} WHERE t.order_id IN (SELECT id FROM u WHERE pay))
     SELECT u.id, u.payout_due_at, u.pay, pg_notify('${ORDER_CHANGED_CHANNEL}', u.tracking_id) FROM u`,
    [
      items.map((i) => i.id),
      items.map((i) => JSON.stringify(i.deposit)),
      items.map((i) => i.dueAt),
      workerId,
      leaseSeconds,
      held,
      nextRunMs,
      ...legParams(legs),
      ...chainTxParams(txs),
    ],
  );
  return { due: new Map(rows.map((r) => [String(r.id), r.payout_due_at])), moved: new Set(rows.filter((r) => r.pay).map((r) => String(r.id))) };
}

/**
 * Records the signed payouts of many claimed orders and moves them `deposit_confirmed → sending`, in one
 * statement (record-before-send: all or nothing). Only orders this worker still holds in
 * `deposit_confirmed` move, and only their transactions are recorded; they are released with their next
 * look in `nextRunMs` (the settle loop steps them sooner). `created_at` is the moment each row is written,
 * just before the commit and the send. A live payout already recorded for an order and part (the unique
 * index) fails the whole statement: the caller falls back to the per-order path.
 * Returns the ids of the orders that moved.
 */
export async function startPayouts(db: Queryable, workerId: string, txs: NewChainTx[], nextRunMs: number): Promise<Set<string>> {
  const orderIds = [...new Set(txs.map((t) => t.orderId!))];
  if (orderIds.length === 0) return new Set();
  const { rows } = await db.query<{ id: string | number }>(
    `WITH u AS (
       UPDATE orders SET status = 'sending', updated_at = clock_timestamp(), locked_by = NULL, locked_until = NULL, attempts = 0,
         next_run_at = now() + make_interval(secs => $3::double precision / 1000)
       WHERE id = ANY($1::bigint[]) AND status = 'deposit_confirmed' AND locked_by = $2
       RETURNING id, updated_at, tracking_id),
     h AS (INSERT INTO order_history (order_id, status, at) SELECT id, 'sending', updated_at FROM u),
     c AS (${CHAIN_TX_INSERT_FROM_PARAMS(4)} WHERE t.order_id IN (SELECT id FROM u))
     SELECT u.id, pg_notify('${ORDER_CHANGED_CHANNEL}', u.tracking_id) FROM u`,
    [orderIds, workerId, nextRunMs, ...chainTxParams(txs)],
  );
  return new Set(rows.map((r) => String(r.id)));
}

export interface PayoutCompletion {
  id: string;
  payouts: OrderRecord['payouts'];
  /** The order's fee income, recorded with the transition (idempotent). */
  movement: Movement;
}

/**
 * `sending → completed` for many orders in one statement: compare-and-set on `sending`, only for orders
 * nobody holds (a step holding one completes it itself), with the history entry, the fee movement
 * and the notification. Returns the ids that moved; the others go the per-order way.
 */
export async function completePayouts(db: Queryable, items: PayoutCompletion[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const legs = movementRows(items.map((i) => i.movement));
  const { rows } = await db.query<{ id: string | number }>(
    `WITH u AS (
       UPDATE orders o SET status = 'completed', updated_at = clock_timestamp(), payouts = v.payouts, locked_by = NULL, locked_until = NULL
       FROM unnest($1::bigint[], $2::jsonb[]) AS v(id, payouts)
       WHERE o.id = v.id AND o.status = 'sending' AND (o.locked_until IS NULL OR o.locked_until < now())
       RETURNING o.id, o.updated_at, o.tracking_id),
     h AS (INSERT INTO order_history (order_id, status, at) SELECT id, 'completed', updated_at FROM u),
     l AS (${LEDGER_INSERT_FROM_PARAMS(3)} WHERE x.order_id IN (SELECT id FROM u) ON CONFLICT (movement, account, asset_id) DO NOTHING)
     SELECT u.id, pg_notify('${ORDER_CHANGED_CHANNEL}', u.tracking_id) FROM u`,
    [items.map((i) => i.id), items.map((i) => JSON.stringify(i.payouts)), ...legParams(legs)],
  );
  return new Set(rows.map((r) => String(r.id)));
}

/** Sets the payout due time unless one is set already (the first draw wins); returns the one in force. */
export async function setPayoutDue(db: Queryable, id: string, at: Date): Promise<Date | null> {
  const { rows } = await db.query<{ payout_due_at: Date | null }>(
    'UPDATE orders SET payout_due_at = coalesce(payout_due_at, $2) WHERE id = $1 RETURNING payout_due_at',
    [id, at],
  );
  return rows[0]?.payout_due_at ?? null;
}

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

/** A signed transaction about to be recorded: a chain_txs row before the store gives it id, status and time. */
export type NewChainTx = Omit<ChainTx, 'id' | 'status' | 'meta' | 'createdAt'> & { meta?: Record<string, unknown> };

/**
 * Records a signed transaction before it is sent. Returns null when a live payout/refund already
 * exists for the same order and part (the partial unique index): that is the "never paid twice" guard;
 * or when the same bytes are recorded already (same signature). ON CONFLICT rather than a caught error:
 * on PostgreSQL an error aborts the caller's transaction, whose COMMIT then silently rolls back
 * everything it recorded before.
 */
export async function insertChainTx(db: Queryable, t: NewChainTx): Promise<string | null> {
  const { rows } = await db.query<{ id: string | number }>(
    `INSERT INTO chain_txs (kind, order_id, asset_id, amount, source, destination, signature, wire, last_valid_block_height, status, meta)
     VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, 'pending', $10) ON CONFLICT DO NOTHING RETURNING id`,
    [t.kind, t.orderId, t.assetId, t.amount.toString(), t.source, t.destination, t.signature, t.wire, t.lastValidBlockHeight.toString(), JSON.stringify(t.meta ?? {})],
  );
  return rows[0] ? String(rows[0].id) : null;
}

/**
 * The attempts of one part of an order's payout or refund (late refund parts included): how many landed
 * and failed, and when the last was recorded.
 */
export async function partAttempts(db: Queryable, orderId: string, kind: ChainTxKind, part: string): Promise<{ failed: number; lastAt: Date | null }> {
  const { rows } = await db.query<{ failed: number; last_at: Date | null }>(
    `SELECT count(*) FILTER (WHERE status = 'failed')::int AS failed, max(created_at) AS last_at FROM chain_txs
     WHERE order_id = $1 AND kind = $2 AND coalesce(meta ->> 'part', '0') = $3`,
    [orderId, kind, part],
  );
  return { failed: rows[0]?.failed ?? 0, lastAt: rows[0]?.last_at ?? null };
}

export async function pendingChainTxs(db: Queryable, limit: number): Promise<ChainTx[]> {
  const { rows } = await db.query<ChainTxRow>(`SELECT * FROM chain_txs WHERE status = 'pending' ORDER BY id LIMIT $1`, [limit]);
  return rows.map(toChainTx);
}

export async function chainTxsOfOrder(db: Queryable, orderId: string, kind: ChainTxKind): Promise<ChainTx[]> {
  const { rows } = await db.query<ChainTxRow>('SELECT * FROM chain_txs WHERE order_id = $1 AND kind = $2 ORDER BY id', [orderId, kind]);
  return rows.map(toChainTx);
}

/** The transactions of a kind of many orders, oldest first. */
export async function chainTxsOfOrders(db: Queryable, orderIds: string[], kind: ChainTxKind): Promise<ChainTx[]> {
  if (orderIds.length === 0) return [];
  const { rows } = await db.query<ChainTxRow>('SELECT * FROM chain_txs WHERE order_id = ANY($1::bigint[]) AND kind = $2 ORDER BY id', [orderIds, kind]);
  return rows.map(toChainTx);
}

/** Several orders by id, without their history (what the worker steps on). */
export async function ordersByIds(db: Queryable, ids: string[]): Promise<OrderRecord[]> {
  if (ids.length === 0) return [];
  const { rows } = await db.query<OrderRow>('SELECT * FROM orders WHERE id = ANY($1::bigint[])', [ids]);
  return rows.map(toOrder);
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

export interface ChainTxFate {
  id: string;
  to: Exclude<ChainTxStatus, 'pending'>;
  feeLamports: bigint | null;
  confirmedAt?: string;
}

/** settleChainTx for many transactions in one statement; returns the ids whose fate this call settled. */
export async function settleChainTxs(db: Queryable, items: ChainTxFate[]): Promise<Set<string>> {
  if (items.length === 0) return new Set();
  const { rows } = await db.query<{ id: string | number }>(
    `UPDATE chain_txs c SET status = v.status, fee_lamports = v.fee, updated_at = now(),
       meta = CASE WHEN v.confirmed_at IS NULL THEN c.meta ELSE c.meta || jsonb_build_object('confirmedAt', v.confirmed_at) END
     FROM unnest($1::bigint[], $2::text[], $3::bigint[], $4::text[]) AS v(id, status, fee, confirmed_at)
     WHERE c.id = v.id AND c.status = 'pending'
     RETURNING c.id`,
    [items.map((i) => i.id), items.map((i) => i.to), items.map((i) => (i.feeLamports === null ? null : i.feeLamports.toString())), items.map((i) => i.confirmedAt ?? null)],
  );
  return new Set(rows.map((r) => String(r.id)));
}

/** Kinds of transaction that pay out of a pool wallet. */
const OUTFLOW_KINDS = `'payout', 'refund', 'partner_payout'`;

/** Amounts of pending outgoing transactions per source account, so pool selection does not overspend. */
export async function pendingOutflows(db: Queryable): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ source: string; total: string }>(
    `SELECT source, sum(amount) AS total FROM chain_txs WHERE status = 'pending' AND kind IN (${OUTFLOW_KINDS}) GROUP BY source`,
  );
  return new Map(rows.map((r) => [r.source, BigInt(r.total)]));
}

// ---- sweeps ----

export interface UnsweptDeposit {
  orderId: string;
  trackingId: string;
  depositAccount: string;
  sourceAssetId: string;
  /** What the order's confirmed deposit put on the ledger (the account may hold more, sent since). */
  depositAmount: bigint;
}

/**
 * What makes a deposit sweepable: confirmed, not yet swept nor in a pending sweep, and every deposit
 * transaction handed out for its order (original and refreshed; the order keeps the greatest
 * lastValidBlockHeight of them) dead at `finalized`. A sweep closes the deposit account, and each of
 * those transactions creates it with the non-idempotent instruction: closed while one of them could still
 * land, the account could be created again and the sender charged a second time (SPEC §4: only one of an
 * order's transactions can ever succeed).
 */
const SWEEPABLE = `swept = false AND sweep_tx_id IS NULL AND deposit IS NOT NULL AND status NOT IN ('awaiting_deposit', 'deposit_detected')
  AND tx_last_valid_block_height < $1::bigint`;

/**
 * Sweepable deposits of an asset (above) with ids after `afterId`, oldest first, locked for the caller's
 * transaction. The caller moves `afterId` along, so deposits that cannot be swept right now never hold
 * back the ones after them.
 */
export async function lockUnsweptDeposits(tx: Queryable, finalizedBlockHeight: bigint, assetId: string, limit: number, afterId = '0'): Promise<UnsweptDeposit[]> {
  const { rows } = await tx.query<{ id: string | number; tracking_id: string; deposit_account: string; source_asset_id: string; deposit_amount: string }>(
    `SELECT id, tracking_id, deposit_account, source_asset_id, deposit ->> 'amount' AS deposit_amount FROM orders
     WHERE ${SWEEPABLE} AND source_asset_id = $2 AND id > $4::bigint
     ORDER BY id LIMIT $3 FOR UPDATE SKIP LOCKED`,
    [finalizedBlockHeight.toString(), assetId, limit, afterId],
  );
  return rows.map((r) => ({ orderId: String(r.id), trackingId: r.tracking_id, depositAccount: r.deposit_account, sourceAssetId: r.source_asset_id, depositAmount: BigInt(r.deposit_amount) }));
}

/** Locks, for the caller's transaction, those of the given deposits still unswept and in no sweep; returns their order ids. */
export async function relockUnsweptDeposits(tx: Queryable, orderIds: string[]): Promise<Set<string>> {
  const { rows } = await tx.query<{ id: string | number }>(
    `SELECT id FROM orders WHERE id = ANY($1::bigint[]) AND swept = false AND sweep_tx_id IS NULL FOR UPDATE SKIP LOCKED`,
    [orderIds],
  );
  return new Set(rows.map((r) => String(r.id)));
}

/**
 * Orders past deposit that nothing moved for `stuckAfterMs`, counted from their last change or, while a
 * privacy delay holds the payout, from when it fell due: an order waiting for its payout time is not stuck.
 */
export async function stuckOrders(db: Queryable, stuckAfterMs: number): Promise<{ id: string; trackingId: string; status: string }[]> {
  const { rows } = await db.query<{ id: string | number; tracking_id: string; status: string }>(
    `SELECT id, tracking_id, status FROM orders WHERE status NOT IN ('completed', 'expired', 'refunded', 'failed', 'awaiting_deposit')
       AND GREATEST(updated_at, coalesce(payout_due_at, updated_at)) < now() - make_interval(secs => $1::double precision / 1000)`,
    [stuckAfterMs],
  );
  return rows.map((r) => ({ id: String(r.id), trackingId: r.tracking_id, status: r.status }));
}

/** A finished order the late-deposit pass reads: its deposit account and deposit owner. */
export interface LateCandidate {
  id: string;
  tracking_id: string;
  deposit_account: string;
  deposit_owner: string;
  source_asset_id: string;
}

const LATE_WINDOW = `o.status IN ${FINAL} AND o.updated_at > now() - interval '7 days' AND (o.swept OR o.deposit IS NULL)`;
const PENDING_SWEEP = `EXISTS (SELECT 1 FROM chain_txs c WHERE c.kind = 'sweep' AND c.status = 'pending'
  AND c.meta -> 'items' @> jsonb_build_array(jsonb_build_object('depositAccount', o.deposit_account)))`;

const LATE_COLUMNS = `o.id, o.tracking_id, o.deposit_account, o.deposit_owner, o.source_asset_id, ${PENDING_SWEEP} AS pending`;
type LateRow = Omit<LateCandidate, 'id'> & { id: string | number; pending: boolean };
const lateRow = (r: LateRow): LateCandidate & { pending: boolean } => ({
  id: String(r.id),
  tracking_id: r.tracking_id,
  deposit_account: r.deposit_account,
  deposit_owner: r.deposit_owner,
  source_asset_id: r.source_asset_id,
  pending: r.pending,
});

/**
 * Where a rotation through the late-deposit window starts: before the first order created in the last
 * 8 days (orders live far less than a day, so that covers every order finished in the last 7).
 */
async function lateWindowStart(db: Queryable): Promise<bigint> {
  const { rows } = await db.query<{ id: string | number }>(`SELECT id FROM orders WHERE created_at > now() - interval '8 days' ORDER BY created_at, id LIMIT 1`);
  return rows[0] ? BigInt(rows[0].id) - 1n : 0n;
}

/**
 * The next `limit` finished orders of the late-deposit window (finished within 7 days) by id after
 * `after` (null: from the window's start), and where the rotation goes on: past the window's end it
 * starts again.
 */
export async function lateWindowRotation(db: Queryable, after: bigint | null, limit: number): Promise<{ rows: (LateCandidate & { pending: boolean })[]; next: bigint }> {
  const from = after ?? (await lateWindowStart(db));
  const { rows } = await db.query<LateRow>(`SELECT ${LATE_COLUMNS} FROM orders o WHERE o.id > $1 AND ${LATE_WINDOW} ORDER BY o.id LIMIT $2`, [from.toString(), limit]);
  const next = rows.length < limit ? await lateWindowStart(db) : BigInt(rows[rows.length - 1]!.id);
  return { rows: rows.map(lateRow), next };
}

/**
 * The finished orders one late-deposit pass reads: the `perPart` most recently finished — late funds
 * mostly follow soon — and the next `perPart` of the rotation through the whole window, however many
 * orders finish meanwhile. Orders with a sweep pending are left out.
 */
export async function lateDepositCandidates(db: Queryable, after: bigint | null, perPart: number): Promise<{ rows: LateCandidate[]; next: bigint }> {
  const recent = await db.query<LateRow>(`SELECT ${LATE_COLUMNS} FROM orders o WHERE ${LATE_WINDOW} ORDER BY o.updated_at DESC LIMIT $1`, [perPart]);
  const rotation = await lateWindowRotation(db, after, perPart);
  const seen = new Set<string>();
  const out: LateCandidate[] = [];
  for (const { pending, ...r } of [...recent.rows.map(lateRow), ...rotation.rows]) {
    if (pending || seen.has(r.id)) continue;
    seen.add(r.id);
    out.push(r);
  }
  return { rows: out, next: rotation.next };
}

/** Whether a sweep of this deposit account is pending, or (with `since`) was settled at or after `since`. */
export async function sweepOfAccount(db: Queryable, depositAccount: string, since?: Date): Promise<boolean> {
  const { rows } = await db.query(
    `SELECT 1 FROM chain_txs WHERE kind = 'sweep' AND meta -> 'items' @> jsonb_build_array(jsonb_build_object('depositAccount', $1::text))
       AND (status = 'pending' OR updated_at >= $2::timestamptz) LIMIT 1`,
    [depositAccount, since ?? 'infinity'],
  );
  return rows.length > 0;
}

export async function assetsWithUnsweptDeposits(db: Queryable, finalizedBlockHeight: bigint): Promise<string[]> {
  const { rows } = await db.query<{ source_asset_id: string }>(`SELECT DISTINCT source_asset_id FROM orders WHERE ${SWEEPABLE}`, [finalizedBlockHeight.toString()]);
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
function movementRows(movements: Movement[]): LedgerRow[] {
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
const LEDGER_INSERT_FROM_PARAMS = (n: number) =>
  `INSERT INTO ledger_entries (movement, kind, account, asset_id, amount, order_id)
   SELECT x.movement, x.kind, x.account, x.asset_id, x.amount, x.order_id
   FROM unnest($${n}::text[], $${n + 1}::text[], $${n + 2}::text[], $${n + 3}::text[], $${n + 4}::numeric[], $${n + 5}::bigint[])
     AS x(movement, kind, account, asset_id, amount, order_id)`;

/** Pending chain_txs rows from the ten arrays of chainTxParams at $n…$n+9, `created_at` as each is written. */
const CHAIN_TX_INSERT_FROM_PARAMS = (n: number) =>
  `INSERT INTO chain_txs (kind, order_id, asset_id, amount, source, destination, signature, wire, last_valid_block_height, status, meta, created_at, updated_at)
   SELECT t.kind, t.order_id, t.asset_id, t.amount, t.source, t.destination, t.signature, t.wire, t.lvbh, 'pending', t.meta, clock_timestamp(), clock_timestamp()
   FROM unnest($${n}::text[], $${n + 1}::bigint[], $${n + 2}::text[], $${n + 3}::numeric[], $${n + 4}::text[], $${n + 5}::text[], $${n + 6}::text[], $${n + 7}::text[], $${n + 8}::bigint[], $${n + 9}::jsonb[])
     AS t(kind, order_id, asset_id, amount, source, destination, signature, wire, lvbh, meta)`;

/** The ten arrays of chain_txs rows that startPayouts and confirmDepositsAndStartPayouts unnest. */
const chainTxParams = (txs: NewChainTx[]) => [
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

const legParams = (rows: LedgerRow[]) => [
  rows.map((r) => r.movement),
  rows.map((r) => r.kind),
  rows.map((r) => r.account),
  rows.map((r) => r.assetId),
  rows.map((r) => r.amount.toString()),
  rows.map((r) => r.orderId),
];

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

export async function ledgerBalances(db: Queryable, accountPrefix?: string): Promise<Map<string, bigint>> {
  const { rows } = await db.query<{ account: string; asset_id: string; total: string }>(
    `SELECT account, asset_id, sum(amount) AS total FROM ledger_entries ${accountPrefix ? 'WHERE account LIKE $1' : ''} GROUP BY account, asset_id`,
    accountPrefix ? [`${accountPrefix}%`] : [],
  );
  return new Map(rows.map((r) => [`${r.account}|${r.asset_id}`, BigInt(r.total)]));
}

/** Late refund parts ('late:<sweep signature>:<n>') are retried this long, then given up. */
const LATE_REFUND_RETRY_DAYS = 7;

/** The latest attempt of each late refund part created in the last `days` days. */
const latestLateRefundAttempts = (days: number) => `SELECT DISTINCT ON (order_id, meta ->> 'part')
    id, order_id, meta ->> 'part' AS part, status, amount, asset_id, created_at FROM chain_txs
  WHERE kind = 'refund' AND meta ->> 'part' LIKE 'late:%' AND created_at > now() - interval '${days} days'
  ORDER BY order_id, meta ->> 'part', id DESC`;

/** Late refund parts whose latest attempt died within the retry window: to be replaced (their chain_txs ids). */
export async function deadLateRefunds(db: Queryable): Promise<string[]> {
  const { rows } = await db.query<{ id: string | number }>(
    `SELECT id FROM (${latestLateRefundAttempts(LATE_REFUND_RETRY_DAYS)}) latest WHERE status IN ('expired', 'failed')`,
  );
  return rows.map((r) => String(r.id));
}

/** Late refund parts given up in the last day: their latest attempt died and is past the retry window. */
export async function abandonedLateRefunds(db: Queryable): Promise<{ id: string; part: string; trackingId: string | null; amount: string; assetId: string }[]> {
  const { rows } = await db.query<{ id: string | number; part: string; tracking_id: string | null; amount: string; asset_id: string }>(
    `SELECT latest.id, latest.part, o.tracking_id, latest.amount::text, latest.asset_id FROM (${latestLateRefundAttempts(LATE_REFUND_RETRY_DAYS + 1)}) latest
     LEFT JOIN orders o ON o.id = latest.order_id
     WHERE latest.status IN ('expired', 'failed') AND latest.created_at <= now() - interval '${LATE_REFUND_RETRY_DAYS} days'`,
  );
  return rows.map((r) => ({ id: String(r.id), part: r.part, trackingId: r.tracking_id, amount: r.amount, assetId: r.asset_id }));
}

/**
 * What the pools are committed to, read in one statement so in one snapshot: `pending`, per source wallet,
 * what pending outgoing transactions will take (as pendingOutflows); `owed`, per asset, what open orders
 * still owe beyond their live (pending or landed) transactions. An order not yet paying owes its
 * amountOut; one sending or refunding whose transaction died owes what no live one covers until its
 * replacement is recorded (a refund: the deposit less the network fee, in the source asset). Late funds
 * (sent after an order ended) are owed back from their sweep until their refund is live. An amount
 * moves from one side to the other when a transaction is recorded or dies: two statements could each
 * miss it.
 */
export async function poolCommitments(db: Queryable): Promise<{ pending: Map<string, bigint>; owed: Map<string, bigint> }> {
  const { rows } = await db.query<{ side: 'pending' | 'owed'; key: string; total: string }>(
    `WITH owed AS (
       SELECT destination_asset_id AS asset_id, amount_out AS amount FROM orders
       WHERE status IN ('awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'swapping')
       UNION ALL
       SELECT o.destination_asset_id, o.amount_out - coalesce(sum(c.amount), 0) FROM orders o
       LEFT JOIN chain_txs c ON c.order_id = o.id AND c.kind = 'payout' AND c.status IN ('pending', 'confirmed')
       WHERE o.status = 'sending' GROUP BY o.id
       UNION ALL
       SELECT o.source_asset_id, coalesce((o.deposit ->> 'amount')::numeric, 0) - o.network_fee - coalesce(sum(c.amount), 0) FROM orders o
       LEFT JOIN chain_txs c ON c.order_id = o.id AND c.kind = 'refund' AND c.status IN ('pending', 'confirmed')
         AND (c.meta ->> 'late') IS DISTINCT FROM 'true'
       WHERE o.status = 'refunding' GROUP BY o.id
       UNION ALL
       -- Late funds swept whose refunds are not recorded yet (the late pass retries them): each late item's
       -- amount less its order's network fee, as refundLate computes it. From the moment the sweep is
       -- recorded: one that landed is in the pools' balances before the worker settles its record.
       SELECT o.source_asset_id, (i.item ->> 'amount')::numeric - o.network_fee
       FROM chain_txs s CROSS JOIN LATERAL jsonb_array_elements(s.meta -> 'items') AS i(item)
       JOIN orders o ON o.id = (i.item ->> 'orderId')::bigint
       WHERE s.kind = 'sweep' AND s.status IN ('pending', 'confirmed') AND NOT (s.meta ? 'lateRefunded')
         AND s.meta -> 'items' @> '[{"late": true}]'::jsonb AND (i.item ->> 'late')::boolean
       UNION ALL
       -- Late refund parts whose latest attempt died, awaiting replacement (deadLateRefunds).
       SELECT asset_id, amount FROM (${latestLateRefundAttempts(LATE_REFUND_RETRY_DAYS)}) latest
       WHERE status IN ('expired', 'failed'))
     SELECT 'owed' AS side, asset_id AS key, sum(amount)::text AS total FROM owed WHERE amount > 0 GROUP BY asset_id
     UNION ALL
     SELECT 'pending', source, sum(amount)::text FROM chain_txs WHERE status = 'pending' AND kind IN (${OUTFLOW_KINDS}) GROUP BY source`,
  );
  const out = { pending: new Map<string, bigint>(), owed: new Map<string, bigint>() };
  for (const r of rows) out[r.side].set(r.key, BigInt(r.total));
  return out;
}
