/** The one SQL dialect Hush speaks: PostgreSQL, embedded (PGlite) or a server (pg). */
export interface Queryable {
  query<T = Record<string, unknown>>(sql: string, params?: unknown[]): Promise<{ rows: T[]; rowCount: number }>;
}

export interface Db extends Queryable {
  readonly kind: 'pglite' | 'postgres';
  /** Runs `fn` in one transaction on one connection; rolls back if it throws. */
  transaction<T>(fn: (tx: Queryable) => Promise<T>): Promise<T>;
  /**
   * Subscribes to NOTIFY on a channel; `onLost` runs when notifications may have been missed (connection
   * dropped), so caches relying on them can drop everything. Returns an unsubscribe function.
   */
  listen(channel: string, onNotify: (payload: string) => void, onLost?: () => void): Promise<() => Promise<void>>;
  /** Runs a script of several statements (migrations). */
  exec(sql: string): Promise<void>;
  close(): Promise<void>;
}

const ROLLBACK = Symbol('rollback');

/** One transaction that commits only when `fn` returns true: false rolls back whatever it wrote. */
export async function allOrNothing(db: Db, fn: (tx: Queryable) => Promise<boolean>): Promise<boolean> {
  try {
    return await db.transaction(async (tx) => {
      if (await fn(tx)) return true;
      throw ROLLBACK;
    });
  } catch (e) {
    if (e === ROLLBACK) return false;
    throw e;
  }
}

/** Postgres error codes the store turns into domain outcomes. */
const UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(e: unknown, constraint?: string): boolean {
  const err = e as { code?: string; constraint?: string };
  return err?.code === UNIQUE_VIOLATION && (constraint === undefined || err.constraint === constraint);
}

const UNREACHABLE_ERRNO = new Set(['ECONNREFUSED', 'ECONNRESET', 'ETIMEDOUT', 'EPIPE', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);
/** Server states that mean "not now" rather than "wrong": shutting down, starting, out of connections. */
const UNAVAILABLE_SQLSTATE = new Set(['57P01', '57P02', '57P03', '53300']);
const UNREACHABLE_MESSAGE = /Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error|connection is closed|PGlite is closed/i;

/** The store cannot be reached right now (as opposed to a statement that failed): a 503, not a 500. */
export function isStoreUnavailable(e: unknown): boolean {
  const err = e as { code?: unknown; message?: unknown } | null;
  if (!err || typeof err !== 'object') return false;
  const code = typeof err.code === 'string' ? err.code : '';
  return UNREACHABLE_ERRNO.has(code) || UNAVAILABLE_SQLSTATE.has(code) || code.startsWith('08') || (typeof err.message === 'string' && UNREACHABLE_MESSAGE.test(err.message));
}
