/**
 * ReadPerConnection (src/support/read-per-connection.ts): callers on one connection share a read; a transaction never
 * joins a read made outside it, which on PGlite waits for the transaction (Pools' handed-out blockhashes hung the
 * seed 4 `--faults store` simulation when a partner payout's plan joined such a read).
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { ReadPerConnection } from '../../src/support/read-per-connection.ts';
import type { Queryable } from '../../src/store/db.ts';
import { forEachEngine } from '../support/databases.ts';

forEachEngine('ReadPerConnection', (ctx) => {
  it('a transaction reads on its own connection while a read outside it is in flight, and finishes', { timeout: 60_000 }, async () => {
    let reads = 0;
    const shared = new ReadPerConnection<Queryable, number>(async (q) => {
      reads++;
      const { rows } = await q.query<{ n: number }>('SELECT 1 AS n');
      return rows[0]!.n;
    });
    let outside: Promise<number> | null = null;
    const inside = await ctx.db.transaction(async (tx) => {
      await tx.query('SELECT 1');
      // On PGlite this read waits for the transaction to end.
      outside = shared.get(ctx.db);
      return shared.get(tx);
    });
    assert.equal(inside, 1);
    assert.equal(await outside!, 1);
    assert.equal(reads, 2, 'the transaction made its own read');
  });

  it('callers on the same connection share the read in flight, and a later caller reads again', async () => {
    let reads = 0;
    const shared = new ReadPerConnection<Queryable, number>(async (q) => {
      reads++;
      const { rows } = await q.query<{ n: number }>('SELECT $1::int AS n', [reads]);
      return rows[0]!.n;
    });
    const [a, b] = await Promise.all([shared.get(ctx.db), shared.get(ctx.db)]);
    assert.deepEqual([a, b, reads], [1, 1, 1]);
    assert.equal(await shared.get(ctx.db), 2, 'a read that has ended is not shared');
  });
});
