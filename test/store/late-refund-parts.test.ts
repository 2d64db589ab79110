/** Migration 016: a late refund's part, once the string 'late:<sweep signature>:<n>', is meta.part and meta.lateOf. */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { migrate, migrationFiles } from '../../src/store/migrate.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { lateRefundsExist } from '../../src/store/settlement/late-refunds-exist.ts';
import { partAttempts } from '../../src/store/settlement/part-attempts.ts';
import { settleChainTx } from '../../src/store/settlement/settle-chain-txs.ts';
import { forEachEngine } from '../support/databases.ts';
import { newTx, orderIn } from '../support/settlement-fixtures.ts';

const m016 = migrationFiles().find((m) => m.name === '016-late-refund-parts.sql');

forEachEngine('late refund parts', (ctx) => {
  it('rows written in the old shape are rewritten to part and lateOf, and read as such', async () => {
    assert.ok(m016, 'migration 016-late-refund-parts.sql');
    const db = (await ctx.fresh()).db;
    const { id: orderId } = await orderIn(db, 'completed');
    const sig = `s${Math.random().toString(36).slice(2)}`;
    // As rows were written before: the order's own refund and a late one, both live, and a late one that died.
    const own = (await insertChainTx(db, newTx({ kind: 'refund', orderId, meta: { part: 0 } })))!;
    const live = (await insertChainTx(db, newTx({ kind: 'refund', orderId, meta: { late: true, part: 0, lateOf: 'placeholder' } })))!;
    const dead = (await insertChainTx(db, newTx({ kind: 'refund', orderId, meta: { late: true, part: 0, lateOf: 'placeholder2' } })))!;
    await settleChainTx(db, dead, 'failed', null);
    await db.query(`UPDATE chain_txs SET meta = jsonb_build_object('late', true, 'part', $2::text) WHERE id = ANY($1::bigint[])`, [[live, dead], `late:${sig}:0`]);
    assert.equal(await lateRefundsExist(db, sig), false, 'the old shape is not read');

    // The store is migrated already: forget 016 so that migrate() applies it to these rows.
    await db.query('DELETE FROM schema_migrations WHERE version = $1', [m016!.version]);
    assert.deepEqual(await migrate(db), [m016!.version]);
    const { rows } = await db.query<{ id: string | number; meta: unknown }>('SELECT id, meta FROM chain_txs WHERE order_id = $1 ORDER BY id', [orderId]);
    assert.deepEqual(
      rows.map((r) => r.meta),
      [{ part: 0 }, { late: true, part: 0, lateOf: sig }, { late: true, part: 0, lateOf: sig }],
    );
    assert.equal(await lateRefundsExist(db, sig), true);
    assert.equal((await partAttempts(db, orderId, 'refund', 0, sig)).failed, 1, 'the late part');
    assert.equal((await partAttempts(db, orderId, 'refund', 0)).failed, 0, "the order's own part");
    assert.equal(String(rows[0]!.id), own);
    // Never paid twice still holds per order, sweep and part: a second live late part 0 of that sweep is refused.
    assert.equal(await insertChainTx(db, newTx({ kind: 'refund', orderId, meta: { late: true, part: 0, lateOf: sig } })), null);
    assert.ok(await insertChainTx(db, newTx({ kind: 'refund', orderId, meta: { late: true, part: 0, lateOf: `${sig}2` } })), 'another sweep');
  });
});
