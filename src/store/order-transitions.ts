import type { Db, Queryable } from './db.ts';
import type { DepositInfo, OrderRecord } from './order-record.ts';
import { canTransition, isOrderStatus, type OrderStatus } from '../domain/order-state.ts';

/**
 * Notified with an order's tracking id when it is created and whenever its status record changes (the
 * status cache and the deposit watch listen).
 */
export const ORDER_CHANGED_CHANNEL = 'hush_order_changed';

/**
 * The order lifecycle's one module (docs/spec.md §5). Every write of `orders.status` is built here (a test
 * scans src/ for any other), by a registered writer: `orderWriter(name, moves)` claims its moves (from →
 * to, a §5 edge or a route through several) when its module loads, and a second writer of any move throws
 * there and then. A writer builds its statements through `sql` (transitionSql, limited to its moves) and
 * moves one order along a single edge through `move` (transitionOrder, likewise); neither is reachable any
 * other way. Each statement compares-and-sets on the statuses it leaves, writes one history row per status
 * it passes through and notifies the change; the writer supplies only its own part: its input rows, extra
 * columns and effects (ledger legs, recorded chain transactions) as SQL pieces.
 */
export interface TransitionShape {
  /**
   * The statuses an order passes through, each step an edge of docs/spec.md §5 (checked when the statement is
   * built, so a wrong edge fails at module load, before any SQL runs).
   */
  route: readonly OrderStatus[];
  /** How many leading statuses of the route an order may be in to move (default 1: only the first). */
  fromCount?: number;
  /** Where it stops: the route's last status, or a SQL condition choosing between two of the route's statuses. */
  to?: { when: string; then: OrderStatus; else: OrderStatus };
  /** SQL expression of the status each row moves from (required when fromCount > 1). */
  fromExpr?: string;
  /** CTEs before the update (inputs, row locks), without the leading WITH. */
  before?: string;
  /** Extra `col = expr` assignments after status and updated_at. */
  set?: string;
  /** `FROM …` of the update (other tables joined); the order row is aliased `o`. */
  from?: string;
  /** Conditions besides the compare-and-set on status. */
  where?: string;
  /** Extra RETURNING columns of the update (read by effects and the final SELECT through `u`). */
  returning?: string;
  /** CTEs after the history row: the transition's effects, restricted to the rows in `u`. */
  effects?: string;
  /** Extra columns of the final SELECT over `u` (its id and the notification are always there). */
  select?: string;
}

const lit = (s: OrderStatus): string => `'${s}'`;

/** Builds a transition statement; throws (a bug, not a race) if any step of its route is not an order transition. */
function transitionSql(shape: TransitionShape): string {
  const { route } = shape;
  const fromCount = shape.fromCount ?? 1;
  // Statuses are written into the SQL as literals: only the declared ones get through.
  for (const s of route) if (!isOrderStatus(s)) throw new Error(`${String(s)} is not an order status`);
  if (route.length < 2 || fromCount < 1 || fromCount >= route.length) throw new Error(`bad transition route ${route.join(' → ')}`);
  for (let i = 1; i < route.length; i++) {
    if (!canTransition(route[i - 1]!, route[i]!)) throw new Error(`${route[i - 1]} → ${route[i]} is not an order transition`);
  }
  const last = route[route.length - 1]!;
  const index = (s: OrderStatus): number => {
    const i = route.indexOf(s);
    if (i < fromCount) throw new Error(`${s} is not a destination of ${route.join(' → ')}`);
    return i;
  };
  const to = shape.to;
  if (to) {
    index(to.then);
    index(to.else);
  }
  if (fromCount > 1 && !shape.fromExpr) throw new Error('a route with several starting statuses needs fromExpr');
  const toExpr = to ? `CASE WHEN ${to.when} THEN ${lit(to.then)} ELSE ${lit(to.else)} END` : lit(last);
  const fromList = route.slice(0, fromCount).map(lit).join(', ');
  const extraReturning = [to ? 'o.status' : '', fromCount > 1 ? `${shape.fromExpr} AS from_status` : '', shape.returning ?? ''].filter(Boolean).join(', ');
  const update = `u AS (
       UPDATE orders o SET status = ${toExpr}, updated_at = now()${shape.set ? `, ${shape.set}` : ''}
       ${shape.from ?? ''}
       WHERE o.status IN (${fromList})${shape.where ? ` AND ${shape.where}` : ''}
       RETURNING o.id, o.updated_at, o.tracking_id${extraReturning ? `, ${extraReturning}` : ''})`;
  return `WITH ${shape.before ? `${shape.before},\n     ` : ''}${update},
     ${historySql(route, fromCount, to ? `u.status` : undefined)}${shape.effects ? `,\n     ${shape.effects}` : ''}
     SELECT u.id${shape.select ? `, ${shape.select}` : ''}, pg_notify('${ORDER_CHANGED_CHANNEL}', u.tracking_id),
            ${transitionColumns(route, fromCount > 1 ? 'u.from_status' : lit(route[0]!), to ? 'u.status' : lit(last))} FROM u`;
}

// ---- The transition log: every statement above answers which order moved from where to where.

const T_ID = 'transition_tracking_id';
const T_FROM = 'transition_from';
const T_TO = 'transition_to';
const T_ROUTE = 'transition_route';

function transitionColumns(route: readonly OrderStatus[], from: string, to: string): string {
  return `u.tracking_id AS ${T_ID}, ${from} AS ${T_FROM}, ${to} AS ${T_TO}, '${route.join(',')}' AS ${T_ROUTE}`;
}

/** One order's move along one edge of docs/spec.md §5: no amounts, no addresses. */
export interface OrderTransition {
  trackingId: string;
  from: OrderStatus;
  to: OrderStatus;
}

function transitionsOf(rows: unknown[], into: OrderTransition[]): void {
  const first = rows[0] as Record<string, unknown> | undefined;
  if (!first || !(T_TO in first)) return;
  for (const r of rows as Record<string, string>[]) {
    // A statement along a longer route passes several statuses (as its history rows do): one transition each.
    const route = r[T_ROUTE]!.split(',') as OrderStatus[];
    const start = route.indexOf(r[T_FROM] as OrderStatus);
    const stop = route.indexOf(r[T_TO] as OrderStatus, start + 1);
    if (start < 0 || stop < 0) into.push({ trackingId: r[T_ID]!, from: r[T_FROM] as OrderStatus, to: r[T_TO] as OrderStatus });
    else for (let i = start; i < stop; i++) into.push({ trackingId: r[T_ID]!, from: route[i]!, to: route[i + 1]! });
  }
}

/**
 * The store, reporting each order transition this process makes, once it is committed: a statement's
 * transitions at once, a transaction's when it commits (none when it rolls back). Every status write is a
 * transitionSql statement, so wrapping the one store handle sees them all without touching their callers.
 */
export function observeTransitions(db: Db, onTransition: (t: OrderTransition) => void): Db {
  const report = (ts: OrderTransition[]) => {
    for (const t of ts) {
      try {
        onTransition(t);
      } catch {
        // A log that fails must not fail the transition it reports (already committed).
      }
    }
  };
  const observed = (q: Queryable, into: OrderTransition[]): Queryable['query'] =>
    async function query<T>(sql: string, params?: unknown[]) {
      const r = await q.query<T>(sql, params);
      transitionsOf(r.rows, into);
      return r;
    };
  return {
    kind: db.kind,
    async query<T>(sql: string, params?: unknown[]) {
      const seen: OrderTransition[] = [];
      const r = await observed(db, seen)<T>(sql, params);
      report(seen);
      return r;
    },
    async transaction(fn) {
      const seen: OrderTransition[] = [];
      const out = await db.transaction((tx) => fn({ query: observed(tx, seen) }));
      report(seen);
      return out;
    },
    listen: (channel, onNotify, onLost) => db.listen(channel, onNotify, onLost),
    exec: (sql) => db.exec(sql),
    close: () => db.close(),
  };
}

/**
 * One history row per status passed, in route order, all at the row's `updated_at`. A single edge
 * writes its one row; a longer route joins the route's statuses and keeps those after where the row
 * started, up to where it stopped.
 */
function historySql(route: readonly OrderStatus[], fromCount: number, stopExpr: string | undefined): string {
  if (route.length === 2 && !stopExpr) return `h AS (INSERT INTO order_history (order_id, status, at) SELECT id, ${lit(route[1]!)}, updated_at FROM u)`;
  const values = route.map((s, i) => `(${i}, ${lit(s)})`).join(', ');
  const position = (expr: string): string => `CASE ${expr} ${route.map((s, i) => `WHEN ${lit(s)} THEN ${i}`).join(' ')} END`;
  const start = fromCount > 1 ? position('u.from_status') : '0';
  const stop = stopExpr ? position(stopExpr) : String(route.length - 1);
  return `h AS (
       INSERT INTO order_history (order_id, status, at)
       SELECT u.id, t.status, u.updated_at FROM u CROSS JOIN (VALUES ${values}) AS t(n, status)
       WHERE t.n > ${start} AND t.n <= ${stop} ORDER BY u.id, t.n)`;
}

export interface OrderPatch {
  deposit?: DepositInfo | null;
  payouts?: OrderRecord['payouts'];
  refund?: OrderRecord['refund'];
  failureReason?: string | null;
}

// The watchdog's condition (transitionOrder `idle`); late refunds are the order's late funds' business, not its own.
const IDLE = `(o.locked_until IS NULL OR o.locked_until < now())
         AND NOT EXISTS (SELECT 1 FROM chain_txs c WHERE c.order_id = o.id AND c.kind IN ('payout', 'refund')
                         AND c.status IN ('pending', 'confirmed') AND NOT (c.meta ? 'late'))`;

/** transitionOrder's statements, one per edge and option set, built (and checked) on first use. */
const single = new Map<string, string>();

function singleSql(from: OrderStatus, to: OrderStatus, idle: boolean, dead: boolean): string {
  const key = `${from}>${to}>${idle}>${dead}`;
  let sql = single.get(key);
  if (sql === undefined) {
    sql = transitionSql({
      route: [from, to],
      set: `deposit = CASE WHEN $2::boolean THEN $3::jsonb ELSE o.deposit END,
         payouts = coalesce($4::jsonb, o.payouts),
         refund = coalesce($5::jsonb, o.refund),
         failure_reason = coalesce($6, o.failure_reason)`,
      where: ['o.id = $1', idle ? IDLE : '', dead ? 'o.tx_last_valid_block_height < $7::bigint' : ''].filter(Boolean).join(' AND '),
    });
    single.set(key, sql);
  }
  return sql;
}

/**
 * Compare-and-set transition of one order: succeeds only if the order is still in `from`; records the
 * history entry in the same statement. Returns false when another actor moved the order first. An edge
 * outside docs/spec.md §5 throws before any SQL runs (a bug, not a race).
 *
 * `idle`: also only while no worker holds the order (its lease) and no payout or refund of it is pending
 * or landed — the watchdog's condition. A worker records such a transaction while holding the lease it
 * renews in the same transaction (leaseOrder), so a concurrent watchdog update re-checks the renewed row
 * and leaves it.
 */
async function transitionOrder(
  db: Queryable,
  id: string,
  from: OrderStatus,
  to: OrderStatus,
  patch: OrderPatch = {},
  /** deadAtHeight: only if every transaction handed out for the order is dead at that block height (read in the same statement as the status, so a refresh in between counts). */
  opts: { idle?: boolean; deadAtHeight?: bigint } = {},
): Promise<boolean> {
  const { rows } = await db.query(singleSql(from, to, opts.idle === true, opts.deadAtHeight !== undefined), [
    id,
    patch.deposit !== undefined,
    // A cleared deposit is SQL NULL: JSON.stringify(null) would store a JSON null, which `deposit IS NOT NULL`
    // takes for a deposit (an undetected, then expired order looked sweepable, with no amount).
    patch.deposit == null ? null : JSON.stringify(patch.deposit),
    patch.payouts === undefined ? null : JSON.stringify(patch.payouts),
    patch.refund === undefined ? null : JSON.stringify(patch.refund),
    patch.failureReason ?? null,
    ...(opts.deadAtHeight === undefined ? [] : [opts.deadAtHeight.toString()]),
  ]);
  return rows.length > 0;
}

// ---- The registry: one writer per move.

/**
 * A move a writer makes, from the status it compares on to the one it sets: an edge of docs/spec.md §5,
 * or a route of several edges when one statement passes a status (its history row written too).
 */
export type Move = readonly [OrderStatus, OrderStatus, ...OrderStatus[]];

/** Which writer owns each move, `from>to`; filled as writer modules load. */
const owners = new Map<string, OrderWriter>();
const names = new Set<string>();

/** The moves a statement of this shape makes: each starting status to each status it may stop at. */
function movesOf(shape: TransitionShape): [OrderStatus, OrderStatus][] {
  const { route } = shape;
  const froms = route.slice(0, shape.fromCount ?? 1);
  const tos = shape.to ? [shape.to.then, shape.to.else] : [route[route.length - 1]!];
  return froms.flatMap((f) => tos.filter((t) => route.indexOf(t) > route.indexOf(f)).map((t): [OrderStatus, OrderStatus] => [f, t]));
}

/** A move's key, `from>to`: a route is owned by its ends. */
const keyOf = (m: readonly OrderStatus[]): string => `${m[0]}>${m[m.length - 1]}`;

export interface OrderWriter {
  readonly name: string;
  readonly moves: readonly Move[];
  /** A transition statement (TransitionShape) along this writer's moves only. */
  sql(shape: TransitionShape): string;
  /** One order along one of this writer's single-edge moves: compare-and-set on `from`, false when another actor moved it first. */
  move(db: Queryable, id: string, from: OrderStatus, to: OrderStatus, patch?: OrderPatch, opts?: { idle?: boolean; deadAtHeight?: bigint }): Promise<boolean>;
}

/**
 * Registers a writer of `moves`; throws (when its module loads: writers are module constants) if a move is
 * not a way along docs/spec.md §5, if another writer owns one of them already, or if the name is taken.
 */
export function orderWriter(name: string, moves: readonly Move[]): OrderWriter {
  if (names.has(name)) throw new Error(`an order writer named ${name} is registered already`);
  for (const m of moves) {
    const edges = m.slice(1).map((to, i) => [m[i]!, to] as const);
    if (!m.every(isOrderStatus) || !edges.every(([f, t]) => canTransition(f, t))) throw new Error(`${name}: ${m.map(String).join(' → ')} is not a move of docs/spec.md §5`);
    const owner = owners.get(keyOf(m));
    if (owner !== undefined) throw new Error(`${m[0]} → ${m[m.length - 1]} has a writer already: ${owner.name} (and now ${name})`);
  }
  const owns = new Set(moves.map(keyOf));
  const check = (ms: [OrderStatus, OrderStatus][]) => {
    for (const m of ms) if (!owns.has(keyOf(m))) throw new Error(`${name} is not the writer of ${m[0]} → ${m[1]}`);
  };
  const writer: OrderWriter = {
    name,
    moves,
    sql(shape) {
      check(movesOf(shape));
      return transitionSql(shape);
    },
    async move(db, id, from, to, patch = {}, opts = {}) {
      check([[from, to]]);
      return transitionOrder(db, id, from, to, patch, opts);
    },
  };
  names.add(name);
  for (const m of moves) owners.set(keyOf(m), writer);
  return writer;
}

/** The writer of `from → to` among the modules loaded so far (the lifecycle's test; test fixtures move orders through it). */
export function writerOf(from: OrderStatus, to: OrderStatus): OrderWriter | undefined {
  return owners.get(`${from}>${to}`);
}
