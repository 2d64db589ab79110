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

/** Postgres error codes the store turns into domain outcomes. */
export const UNIQUE_VIOLATION = '23505';

export function isUniqueViolation(e: unknown, constraint?: string): boolean {
  const err = e as { code?: string; constraint?: string };
  return err?.code === UNIQUE_VIOLATION && (constraint === undefined || err.constraint === constraint);
}
