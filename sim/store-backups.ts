/**
 * A store taken back in time, as an operator's restore does it (docs/operations.md "Restore"): every table's
 * rows as they were at the backup, its sequences with them. Engine-neutral (one JSON document per table,
 * json_populate_recordset to put it back), so the simulator and the drills take one path on PGlite and on
 * PostgreSQL; the drills that need the operator's own tools (pg_dump, a copy of DATA_DIR) use those instead.
 */
import type { Db } from '../src/store/db.ts';

export interface StoreBackup {
  tables: { name: string; rows: string }[];
  sequences: { name: string; value: string; called: boolean }[];
}

async function tableNames(db: Pick<Db, 'query'>): Promise<string[]> {
  const { rows } = await db.query<{ t: string }>(
    `SELECT table_name AS t FROM information_schema.tables WHERE table_schema = current_schema() AND table_type = 'BASE TABLE' AND table_name <> 'schema_migrations' ORDER BY table_name`,
  );
  return rows.map((r) => r.t);
}

/** Every row of every table of Hush's, and every sequence's position: a backup. */
export async function backupStore(db: Db): Promise<StoreBackup> {
  return db.transaction(async (q) => {
    await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ');
    const tables: StoreBackup['tables'] = [];
    for (const name of await tableNames(q)) {
      const { rows } = await q.query<{ j: string }>(`SELECT coalesce(json_agg(t), '[]')::text AS j FROM "${name}" t`);
      tables.push({ name, rows: rows[0]!.j });
    }
    const { rows: seqs } = await q.query<{ s: string }>(`SELECT sequence_name AS s FROM information_schema.sequences WHERE sequence_schema = current_schema()`);
    const sequences: StoreBackup['sequences'] = [];
    for (const { s } of seqs) {
      const { rows } = await q.query<{ v: string; c: boolean }>(`SELECT last_value::text AS v, is_called AS c FROM "${s}"`);
      sequences.push({ name: s, value: rows[0]!.v, called: rows[0]!.c });
    }
    return { tables, sequences };
  });
}

/** The store as the backup was: everything written since is gone, as after a restore. */
export async function restoreStore(db: Db, backup: StoreBackup): Promise<void> {
  await db.transaction(async (q) => {
    const names = await tableNames(q);
    await q.query(`TRUNCATE ${names.map((n) => `"${n}"`).join(', ')} CASCADE`);
    // Rows go back in any order: the foreign keys held when they were backed up.
    await q.query('SET LOCAL session_replication_role = replica');
    for (const t of backup.tables) await q.query(`INSERT INTO "${t.name}" SELECT * FROM json_populate_recordset(NULL::"${t.name}", $1::json)`, [t.rows]);
    for (const s of backup.sequences) await q.query(`SELECT setval('"${s.name}"', $1::bigint, $2)`, [s.value, s.called]);
  });
}

/** The store emptied, as a lost disk leaves it (the schema is kept: what a fresh start would migrate). */
export async function wipeStore(db: Db): Promise<void> {
  await restoreStore(db, { tables: [], sequences: [] });
}

/** The deposit accounts of the identities the backup held (in the pool, or claimed by an API): a restore hands them back. */
export function backedUpIdentities(backup: StoreBackup): Set<string> {
  const rows = (name: string) => {
    const table = backup.tables.find((t) => t.name === name);
    return table ? (JSON.parse(table.rows) as { deposit_account: string }[]).map((r) => r.deposit_account) : [];
  };
  return new Set([...rows('deposit_identities'), ...rows('claimed_identities')]);
}
