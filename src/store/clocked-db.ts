import type { Clock } from '../support/clock.ts';
import type { Db, Queryable } from './db.ts';
import { nowBoundCached } from './sql-now.ts';

/**
 * The store on the clock port's time (docs/decisions.md, "Time is a port"): every `now()` a statement's text
 * calls is bound to `clock.date()`, read as the statement is sent, on either engine, in a transaction or not.
 * Leases, due times and stamps are then the clock's, so a simulated or test clock moves what the store
 * compares too, never the database server's clock. One rewrite here instead of a `now` parameter written
 * into each of the ~100 statements that say now(): their text stays as readable as before, and a statement
 * added later cannot forget it.
 *
 * Unlike the server's now() (its transaction's start), each statement reads the clock when it is sent:
 * statements of one transaction may see different instants. Nothing compares a time written by one statement
 * of a transaction for equality with a later statement's now(); the writes that stamped `updated_at` with the
 * server's per-row clock so that each statement of a transaction got its own instant now get that from this.
 */
export function clockedDb(db: Db, clock: Clock): Db {
  const onClock = (q: Queryable): Queryable['query'] =>
    function query<T>(sql: string, params?: unknown[]) {
      const bound = nowBoundCached(sql);
      if (!bound) return q.query<T>(sql, params);
      const given = params ?? [];
      // The server would refuse the mismatch anyway; here the message says why the count is off.
      if (given.length !== bound.param - 1) return Promise.reject(new Error(`a statement calling now() uses $1…$${bound.param - 1} but was given ${given.length} parameters: ${sql.slice(0, 120)}`));
      return q.query<T>(bound.text, [...given, clock.date()]);
    };
  return {
    kind: db.kind,
    query: onClock(db),
    transaction: (fn) => db.transaction((tx) => fn({ query: onClock(tx) })),
    listen: (channel, onNotify, onLost) => db.listen(channel, onNotify, onLost),
    exec: async (sql) => {
      // A script runs as sent, without parameters (several statements): a now() in it would read the
      // server's clock. Schema scripts have no business with the time.
      if (nowBoundCached(sql)) throw new Error('exec: a script cannot call now() (it would read the database server\'s clock): use query');
      await db.exec(sql);
    },
    close: () => db.close(),
  };
}
