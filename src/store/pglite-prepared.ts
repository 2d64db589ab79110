import { parse, protocol, type PGlite } from '@electric-sql/pglite';

/**
 * Named prepared statements on PGlite. `PGlite.query` parses and plans every statement afresh (an unnamed
 * statement, Describe, Bind, Describe, Execute: five trips into the WASM backend); planning is most of a short
 * statement's CPU, and on the order path it is the largest single cost (docs/performance.md). PGlite offers no
 * prepared statements of its own, so this keeps one named statement per SQL text, built from PGlite's own
 * protocol serializer and result parser: the first use parses and describes it, every later one only binds and
 * executes. What PostgreSQL does for `pg`'s named statements and for PL/pgSQL.
 *
 * A statement's cached plan stays valid across schema changes (PostgreSQL re-plans it), except that its result
 * type may not change: `forgetAll` drops every statement, and the store calls it before any script (migrations).
 */

type BackendMessage = Awaited<ReturnType<PGlite['execProtocolStream']>>[number];

interface Prepared {
  name: string;
  /** The parameters' type oids, to serialize values as PGlite's own query does. */
  paramTypes: number[];
  /** The RowDescription (or NoData) the result parser needs before the rows. */
  shape: BackendMessage[];
}

const SYNC = protocol.serialize.sync();
/** What follows every Bind in the same trip into the backend. */
const EXECUTE_SYNC = Buffer.concat([protocol.serialize.execute({}), SYNC]);

/**
 * A Bind message (PostgreSQL protocol, text parameters, text results) for a named statement, in one allocation.
 * PGlite's serializer measures each value's UTF-8 length in a JavaScript loop, twice, and grows its buffer as it
 * writes; Buffer measures and writes natively. On the order path, whose batched insert carries tens of kilobytes
 * in one parameter, that serializer was most of the store's JavaScript (docs/performance.md, run 11).
 */
export function bindMessage(statement: string, values: readonly (string | null)[], trailer: Uint8Array = new Uint8Array(0)): Uint8Array {
  const lengths = values.map((v) => (v === null ? -1 : Buffer.byteLength(v)));
  const nameBytes = Buffer.byteLength(statement);
  // 'B', length, portal "" (one NUL), statement and NUL, format codes (count, then one per value: text), values
  // (count, then length and bytes each), result format codes (none: text); then `trailer`, in the same allocation.
  let size = 1 + 4 + 1 + nameBytes + 1 + 2 + 2 * values.length + 2 + 2;
  for (const n of lengths) size += 4 + (n > 0 ? n : 0);
  const out = Buffer.allocUnsafe(size + trailer.length);
  let at = out.writeUInt8(0x42, 0);
  at = out.writeInt32BE(size - 1, at);
  at = out.writeUInt8(0, at);
  at += out.write(statement, at, 'utf8');
  at = out.writeUInt8(0, at);
  at = out.writeUInt16BE(values.length, at);
  for (let i = 0; i < values.length; i++) at = out.writeUInt16BE(0, at);
  at = out.writeUInt16BE(values.length, at);
  for (let i = 0; i < values.length; i++) {
    at = out.writeInt32BE(lengths[i]!, at);
    if (lengths[i]! > 0) at += out.write(values[i]!, at, 'utf8');
  }
  out.set(trailer, out.writeUInt16BE(0, at));
  return out;
}

/** Distinct SQL texts kept prepared; beyond it (a statement built per call) a text goes the unprepared way. */
const MAX_PREPARED = 256;

export interface PreparedStatements {
  /** One statement, run inside the caller's transaction (the caller holds PGlite's transaction lock). */
  queryInTransaction<T>(sql: string, params?: unknown[]): Promise<{ rows: T[]; affectedRows?: number }>;
  /** One statement on its own, as `PGlite.query` runs it. */
  query<T>(sql: string, params?: unknown[]): Promise<{ rows: T[]; affectedRows?: number }>;
  /** Deallocates every statement (before a script that may change the schema). */
  forgetAll(): Promise<void>;
}

/** One set per PGlite: statement names are the session's, and a session may have more than one store wrapper. */
const sets = new WeakMap<PGlite, PreparedStatements>();

export function preparedStatements(pg: PGlite): PreparedStatements {
  const known = sets.get(pg);
  if (known) return known;
  const made = makePrepared(pg);
  sets.set(pg, made);
  return made;
}

function makePrepared(pg: PGlite): PreparedStatements {
  const statements = new Map<string, Prepared>();
  let next = 0;
  const send = (message: Uint8Array) => pg.execProtocolStream(message, { syncToFs: false });

  async function prepare(sql: string): Promise<Prepared> {
    const name = `hush_${next++}`;
    await send(protocol.serialize.parse({ name, text: sql }));
    const described = await send(protocol.serialize.describe({ type: 'S', name }));
    const shape = described.filter((m) => m.name === 'rowDescription' || m.name === 'noData');
    return { name, paramTypes: parse.parseDescribeStatementResults(described), shape };
  }

  async function run<T>(sql: string, params: unknown[]): Promise<{ rows: T[]; affectedRows?: number }> {
    let statement = statements.get(sql);
    let messages: BackendMessage[] = [];
    let synced = false;
    try {
      if (!statement) {
        statement = await prepare(sql);
        if (statements.size < MAX_PREPARED) statements.set(sql, statement);
      }
      const { paramTypes } = statement;
      const values = params.map((v, i): string | null => {
        if (v === null || v === undefined) return null;
        const serialize = pg.serializers[paramTypes[i]!];
        return serialize ? serialize(v) : String(v);
      });
      // Bind, Execute and Sync in one trip into the backend, which reads them in turn (as a pipelining client
      // sends them): one call instead of three. On an error the backend skips to the Sync, which this trip
      // carries, so the call has synced whether it returns or throws.
      synced = true;
      messages = await send(bindMessage(statement.name, values, EXECUTE_SYNC));
    } finally {
      if (!synced) messages.push(...(await send(SYNC)));
      // A statement too many to keep is closed again, not left in the session.
      if (statement && statements.get(sql) !== statement) {
        await send(protocol.serialize.close({ type: 'S', name: statement.name }));
        await send(SYNC);
      }
    }
    return parse.parseResults([...statement.shape, ...messages], pg.parsers)[0] as unknown as { rows: T[]; affectedRows?: number };
  }

  return {
    queryInTransaction: (sql, params = []) => pg._runExclusiveQuery(() => run(sql, params)),
    query: async <T>(sql: string, params: unknown[] = []) => {
      // As PGlite's own query: a closed or closing store says so ("PGlite is closed": a 503, not a 500).
      await pg._checkReady();
      const result = await pg._runExclusiveTransaction(() => pg._runExclusiveQuery(() => run<T>(sql, params)));
      await pg.syncToFs();
      return result;
    },
    forgetAll: async () => {
      if (statements.size === 0) return;
      statements.clear();
      await pg.exec('DEALLOCATE ALL');
    },
  };
}
