import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Db } from '../../src/store/db.ts';
import { migrate, migrationFiles, SchemaNewerError } from '../../src/store/migrate.ts';
import { openPgliteDb } from '../../src/store/pglite-db.ts';
import { openPostgresDb } from '../../src/store/postgres-db.ts';
import { claimIdempotencyKey } from '../../src/store/idempotency-store.ts';
import { insertOrder } from '../../src/store/orders-store.ts';
import { POSTGRES_URL, dropSchema, forEachEngine, newSchemaName } from '../support/databases.ts';
import { U64_MAX, createTestAccount, fakeAddress, newOrder } from '../support/store-fixtures.ts';
import { systemClock } from '../../src/support/clock.ts';

const ALL_VERSIONS = migrationFiles().map((m) => m.version);
const IDEM = { key: 'none', responseStatus: 200, responseBody: {} };

async function appliedVersions(db: Db): Promise<number[]> {
  const { rows } = await db.query<{ version: number }>('SELECT version FROM schema_migrations ORDER BY version');
  return rows.map((r) => Number(r.version));
}

function rejectsWith(code: string, constraint?: string) {
  return (e: unknown) => {
    const err = e as { code?: string; constraint?: string };
    assert.equal(err.code, code, `expected SQLSTATE ${code}, got ${err.code}: ${String(e)}`);
    if (constraint !== undefined) assert.equal(err.constraint, constraint);
    return true;
  };
}

forEachEngine('migrations', (ctx) => {
  it('has at least one numbered migration file', () => {
    assert.ok(ALL_VERSIONS.length >= 1);
    assert.deepEqual(ALL_VERSIONS, [...new Set(ALL_VERSIONS)].sort((a, b) => a - b));
  });

  it('applies every migration exactly once; a second migrate() is a no-op', async () => {
    assert.deepEqual(await appliedVersions(ctx.db), ALL_VERSIONS);
    assert.deepEqual(await migrate(ctx.db), []);
    assert.deepEqual(await migrate(ctx.db), []);
    assert.deepEqual(await appliedVersions(ctx.db), ALL_VERSIONS);
    const { rows } = await ctx.db.query<{ n: string | number }>(`SELECT count(*) AS n FROM information_schema.tables WHERE table_name = 'orders' AND table_schema = current_schema()`);
    assert.equal(Number(rows[0]!.n), 1);
  });

  it('a store migrated by a newer Hush is refused, naming the migration this code does not know', async () => {
    const unknown = Math.max(...ALL_VERSIONS) + 1;
    await ctx.db.query('INSERT INTO schema_migrations (version, name, applied_at) VALUES ($1, $2, now())', [unknown, `${unknown}-from-the-future.sql`]);
    try {
      await assert.rejects(migrate(ctx.db), (e: unknown) => e instanceof SchemaNewerError && e.message.includes(`${unknown} (${unknown}-from-the-future.sql)`));
    } finally {
      await ctx.db.query('DELETE FROM schema_migrations WHERE version = $1', [unknown]);
    }
    assert.deepEqual(await migrate(ctx.db), [], 'the known schema starts again');
  });

  it('concurrent migrate() calls on a fresh database apply each migration once and all succeed', async () => {
    let dbs: Db[];
    if (ctx.engine === 'postgres') {
      // Four "processes": separate pools on one brand-new schema, created concurrently too.
      const schema = newSchemaName();
      ctx.defer(() => dropSchema(schema));
      dbs = await Promise.all([0, 1, 2, 3].map(() => openPostgresDb(POSTGRES_URL, { clock: systemClock, schema, max: 2 })));
    } else {
      // PGlite is one connection per directory; concurrency here means overlapping calls on it.
      dbs = [await openPgliteDb(null, { clock: systemClock, fromScratch: true })];
      dbs = [dbs[0]!, dbs[0]!, dbs[0]!, dbs[0]!];
    }
    ctx.defer(async () => {
      for (const db of new Set(dbs)) await db.close();
    });
    const results = await Promise.all(dbs.map((db) => migrate(db)));
    const applied = results.flat().sort((a, b) => a - b);
    assert.deepEqual(applied, ALL_VERSIONS, `each version applied by exactly one caller, got ${JSON.stringify(results)}`);
    assert.deepEqual(await appliedVersions(dbs[0]!), ALL_VERSIONS);
    // The schema is usable from every pool.
    for (const db of dbs) assert.deepEqual((await db.query('SELECT id FROM accounts')).rows, []);
  });
});

forEachEngine('schema constraints', (ctx) => {
  it('orders: quote_key is unique', async () => {
    const acc = await createTestAccount(ctx.db);
    const first = newOrder(acc);
    const other = newOrder(acc);
    await insertOrder(ctx.db, first, IDEM);
    await assert.rejects(
      ctx.db.query(
        `INSERT INTO orders (tracking_id, account_id, quote_key, quote, status, source_asset_id, destination_asset_id, mode, amount_in, amount_out,
           service_fee, partner_fee, network_fee, fee_bps, fee_recipient, sender, recipient, deposit_owner, deposit_account, expiration, tx_blockhash,
           tx_last_valid_block_height, tx_expires_at_slot, created_at, updated_at, next_run_at)
         SELECT $2, account_id, quote_key, quote, status, source_asset_id, destination_asset_id, mode, amount_in, amount_out,
           service_fee, partner_fee, network_fee, fee_bps, fee_recipient, sender, recipient, deposit_owner, $3, expiration, tx_blockhash,
           tx_last_valid_block_height, tx_expires_at_slot, created_at, updated_at, next_run_at FROM orders WHERE tracking_id = $1`,
        [first.trackingId, other.trackingId, other.depositAccount],
      ),
      rejectsWith('23505', 'orders_quote_key_unique'),
    );
  });

  it('orders: tracking_id and deposit_account are unique, tracking_id is well-formed', async () => {
    const acc = await createTestAccount(ctx.db);
    const first = newOrder(acc);
    await insertOrder(ctx.db, first, IDEM);
    await assert.rejects(insertOrder(ctx.db, newOrder(acc, { trackingId: first.trackingId }), IDEM), rejectsWith('23505'));
    await assert.rejects(insertOrder(ctx.db, newOrder(acc, { depositAccount: first.depositAccount }), IDEM), rejectsWith('23505'));
    await assert.rejects(insertOrder(ctx.db, newOrder(acc, { trackingId: 'trk_0OIl0OIl0OIl0OIl0OIl0O' }), IDEM), rejectsWith('23514'));
    await assert.rejects(insertOrder(ctx.db, newOrder(acc, { trackingId: 'trk_short' }), IDEM), rejectsWith('23514'));
  });

  it('orders: a fee needs a fee recipient; fee_bps stays within 0..1000', async () => {
    const acc = await createTestAccount(ctx.db);
    await assert.rejects(insertOrder(ctx.db, newOrder(acc, { feeBps: 25, feeRecipient: null }), IDEM), rejectsWith('23514'));
    await assert.rejects(insertOrder(ctx.db, newOrder(acc, { feeBps: 1001 }), IDEM), rejectsWith('23514'));
    await assert.rejects(insertOrder(ctx.db, newOrder(acc, { feeBps: -1 }), IDEM), rejectsWith('23514'));
    const zero = await insertOrder(ctx.db, newOrder(acc, { feeBps: 0, feeRecipient: null, partnerFee: 0n }), IDEM);
    assert.equal(zero.kind, 'created');
    const max = await insertOrder(ctx.db, newOrder(acc, { feeBps: 1000 }), IDEM);
    assert.equal(max.kind, 'created');
  });

  it('orders: amounts are positive u64, fees non-negative', async () => {
    const acc = await createTestAccount(ctx.db);
    for (const bad of [{ amountIn: 0n }, { amountOut: 0n }, { amountIn: U64_MAX + 1n }, { amountOut: U64_MAX + 1n }, { amountIn: -5n }, { serviceFee: -1n }, { partnerFee: -1n }, { networkFee: -1n }]) {
      await assert.rejects(insertOrder(ctx.db, newOrder(acc, bad), IDEM), rejectsWith('23514'), JSON.stringify(bad, (_, v) => (typeof v === 'bigint' ? v.toString() : v)));
    }
    const ok = await insertOrder(ctx.db, newOrder(acc, { amountIn: U64_MAX, amountOut: U64_MAX }), IDEM);
    assert.equal(ok.kind, 'created');
    const { rows } = await ctx.db.query<{ amount_in: string }>('SELECT amount_in::text AS amount_in FROM orders WHERE id = $1', [ok.kind === 'created' ? ok.id : '0']);
    assert.equal(rows[0]!.amount_in, U64_MAX.toString());
  });

  it('orders: status and mode are restricted to their enumerations', async () => {
    const acc = await createTestAccount(ctx.db);
    await assert.rejects(insertOrder(ctx.db, newOrder(acc, { mode: 'sideways' as 'exact_in' }), IDEM), rejectsWith('23514'));
    const created = await insertOrder(ctx.db, newOrder(acc), IDEM);
    assert.equal(created.kind, 'created');
    await assert.rejects(ctx.db.query(`UPDATE orders SET status = 'lost' WHERE id = $1`, [created.kind === 'created' ? created.id : '0']), rejectsWith('23514'));
  });

  it('idempotency_keys: one record per (account, key); the same key is free in another account', async () => {
    const a = await createTestAccount(ctx.db);
    const b = await createTestAccount(ctx.db);
    const insert = (acc: string, key: string) =>
      ctx.db.query(`INSERT INTO idempotency_keys (account_id, key, request_hash, state, locked_at, created_at) VALUES ($1, $2, 'h', 'in_progress', now(), now())`, [acc, key]);
    await insert(a, 'k1');
    await assert.rejects(insert(a, 'k1'), rejectsWith('23505'));
    await insert(b, 'k1');
    await assert.rejects(insert(a, ''), rejectsWith('23514'));
    await assert.rejects(insert(a, 'x'.repeat(256)), rejectsWith('23514'));
    await insert(a, 'x'.repeat(255));
    await assert.rejects(
      ctx.db.query(`INSERT INTO idempotency_keys (account_id, key, request_hash, state, locked_at, created_at) VALUES ($1, 'k9', 'h', 'pending', now(), now())`, [a]),
      rejectsWith('23514'),
    );
    // The record belongs to an existing account.
    await assert.rejects(insert('acc_doesnotexist', 'k1'), rejectsWith('23503'));
    assert.equal((await claimIdempotencyKey(ctx.db, b, 'k1', 'other')).kind, 'conflict');
  });

  it('accounts: unique name, fee cap within 0..1000, known status', async () => {
    const name = `dup-${Date.now()}`;
    await createTestAccount(ctx.db, { name });
    await assert.rejects(createTestAccount(ctx.db, { name }), rejectsWith('23505', 'accounts_name_key'));
    await assert.rejects(createTestAccount(ctx.db, { feeCapBps: 1001 }), rejectsWith('23514'));
    await assert.rejects(createTestAccount(ctx.db, { feeCapBps: -1 }), rejectsWith('23514'));
    const acc = await createTestAccount(ctx.db, { feeCapBps: 1000 });
    await assert.rejects(ctx.db.query(`UPDATE accounts SET status = 'deleted' WHERE id = $1`, [acc]), rejectsWith('23514'));
  });

  it('api_keys: id is 12 base32 chars, hash is 32 bytes, account must exist', async () => {
    const acc = await createTestAccount(ctx.db);
    const ins = (id: string, hashLen: number, account = acc) =>
      ctx.db.query('INSERT INTO api_keys (id, account_id, secret_hash, created_at) VALUES ($1, $2, $3, now())', [id, account, Buffer.alloc(hashLen, 7)]);
    await ins('abcdefgh2345', 32);
    await assert.rejects(ins('abcdefgh2345', 32), rejectsWith('23505'));
    await assert.rejects(ins('ABCDEFGH2345', 32), rejectsWith('23514'));
    await assert.rejects(ins('abcdefgh0189', 32), rejectsWith('23514'));
    await assert.rejects(ins('abcdefgh234', 32), rejectsWith('23514'));
    await assert.rejects(ins('bbcdefgh2345', 31), rejectsWith('23514'));
    await assert.rejects(ins('cbcdefgh2345', 32, 'acc_nope'), rejectsWith('23503'));
  });

  it('fee_recipients: one row per (account, address)', async () => {
    const acc = await createTestAccount(ctx.db);
    const addr = fakeAddress();
    await ctx.db.query('INSERT INTO fee_recipients (account_id, address, created_at) VALUES ($1, $2, now())', [acc, addr]);
    await assert.rejects(ctx.db.query('INSERT INTO fee_recipients (account_id, address, created_at) VALUES ($1, $2, now())', [acc, addr]), rejectsWith('23505'));
  });
});

forEachEngine('db abstraction', (ctx) => {
  it('rowCount means the same on both engines (rows returned, else rows affected)', async () => {
    const t = `rc_${Math.random().toString(36).slice(2, 10)}`;
    await ctx.db.exec(`CREATE TABLE ${t} (x integer)`);
    ctx.defer(() => ctx.db.exec(`DROP TABLE ${t}`));
    assert.equal((await ctx.db.query(`INSERT INTO ${t} SELECT * FROM generate_series(1, 3)`)).rowCount, 3);
    assert.equal((await ctx.db.query(`SELECT * FROM ${t}`)).rowCount, 3);
    assert.equal((await ctx.db.query(`SELECT * FROM ${t} WHERE x > 10`)).rowCount, 0);
    assert.equal((await ctx.db.query(`UPDATE ${t} SET x = x + 10 WHERE x >= 2`)).rowCount, 2);
    assert.equal((await ctx.db.query(`UPDATE ${t} SET x = x WHERE x < 0`)).rowCount, 0);
    assert.equal((await ctx.db.query(`UPDATE ${t} SET x = x + 1 RETURNING x`)).rowCount, 3);
    assert.equal((await ctx.db.query(`WITH u AS (UPDATE ${t} SET x = x + 1 RETURNING x) SELECT x FROM u`)).rowCount, 3);
    assert.equal((await ctx.db.query(`DELETE FROM ${t} WHERE x = 3`)).rowCount, 1);
  });

  it('transaction commits, or rolls back everything when the callback throws', async () => {
    const acc = await createTestAccount(ctx.db);
    await ctx.db.transaction(async (tx) => {
      await tx.query(`UPDATE accounts SET fee_cap_bps = 7 WHERE id = $1`, [acc]);
    });
    await assert.rejects(
      ctx.db.transaction(async (tx) => {
        await tx.query(`UPDATE accounts SET fee_cap_bps = 8 WHERE id = $1`, [acc]);
        throw new Error('abort');
      }),
      /abort/,
    );
    await assert.rejects(
      ctx.db.transaction(async (tx) => {
        await tx.query(`UPDATE accounts SET fee_cap_bps = 9 WHERE id = $1`, [acc]);
        await tx.query(`UPDATE accounts SET fee_cap_bps = 5000 WHERE id = $1`, [acc]);
      }),
      rejectsWith('23514'),
    );
    const { rows } = await ctx.db.query<{ fee_cap_bps: number }>('SELECT fee_cap_bps FROM accounts WHERE id = $1', [acc]);
    assert.equal(rows[0]!.fee_cap_bps, 7);
  });
});
