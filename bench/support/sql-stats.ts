/**
 * BENCH_SQL_STATS: time per statement (its first line), for "where the store's time goes". Wraps a Db's
 * `query` and `transaction` in place, so every holder of the object (the API, the worker) is counted;
 * statements inside a transaction count under their own text, and the transaction as a whole once more.
 */
import type { Db, Queryable } from '../../src/store/db.ts';

type Stat = { n: number; ms: number; max: number };

export class SqlStats {
  private readonly stats = new Map<string, Stat>();

  constructor(db: Db) {
    const query = db.query.bind(db);
    const transaction = db.transaction.bind(db);
    const timed = <T>(key: string, run: () => Promise<T>): Promise<T> => {
      const t = performance.now();
      return run().finally(() => this.add(key, performance.now() - t));
    };
    const keyOf = (sql: string) => sql.trim().split('\n')[0]!.replace(/\s+/g, ' ').slice(0, 90);
    const wrap = (q: Queryable): Queryable => ({ query: ((sql: string, params?: unknown[]) => timed(keyOf(sql), () => q.query(sql, params))) as Queryable['query'] });
    (db as { query: Db['query'] }).query = ((sql: string, params?: unknown[]) => timed(keyOf(sql), () => query(sql, params))) as Db['query'];
    (db as { transaction: Db['transaction'] }).transaction = ((fn: (tx: Queryable) => Promise<unknown>) => timed('(transaction)', () => transaction((tx) => fn(wrap(tx))))) as Db['transaction'];
  }

  private add(key: string, took: number): void {
    const e = this.stats.get(key) ?? { n: 0, ms: 0, max: 0 };
    e.n++;
    e.ms += took;
    e.max = Math.max(e.max, took);
    this.stats.set(key, e);
  }

  /** The top statements by total time since the last call (then cleared). */
  take(top = 20): string[] {
    const lines = [...this.stats].sort((a, b) => b[1].ms - a[1].ms).slice(0, top).map(([k, v]) => `  ${v.n} × ${(v.ms / v.n).toFixed(2)} ms = ${v.ms.toFixed(0)} ms (longest ${v.max.toFixed(1)} ms)  ${k}`);
    this.stats.clear();
    return lines;
  }
}
