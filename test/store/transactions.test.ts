/**
 * A database transaction either commits everything its callback did or fails loudly. PostgreSQL answers
 * COMMIT of a transaction that hit an error with a silent ROLLBACK; a caller that then sends what it
 * believed recorded (a payout) would pay money no record tracks, and pay it again later.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import type { NewChainTx } from '../../src/store/settlement/chain-tx.ts';
import { insertChainTx } from '../../src/store/settlement/insert-chain-tx.ts';
import { forEachEngine } from '../support/databases.ts';
import type { Address } from '@solana/kit';

forEachEngine('store transactions', (ctx) => {
  const payout = (signature: string, amount: bigint): NewChainTx => ({
    kind: 'partner_payout',
    orderId: null,
    assetId: 'tx-test',
    amount,
    source: 'pool',
    destination: 'recipient' as Address,
    signature,
    wire: 'AA==',
    lastValidBlockHeight: 100n,
    meta: { payable: 'payable:partner:tx-test' },
  });
  const recorded = async (signature: string) =>
    (await ctx.db.query<{ n: number }>('SELECT count(*)::int AS n FROM chain_txs WHERE signature = $1', [signature])).rows[0]!.n;

  it('a transaction whose callback swallowed a failed statement rejects instead of reporting success', async () => {
    const signature = randomBytes(32).toString('hex');
    await assert.rejects(
      ctx.db.transaction(async (tx) => {
        await insertChainTx(tx, payout(signature, 1n));
        await tx.query('SELECT 1 / 0').catch(() => null);
        return 'recorded';
      }),
    );
    assert.equal(await recorded(signature), 0, 'nothing of it was committed');
  });

  it('a transaction that recorded a duplicate signature keeps going: the duplicate is skipped, the rest commits', async () => {
    const [taken, fresh] = [randomBytes(32).toString('hex'), randomBytes(32).toString('hex')];
    assert.notEqual(await insertChainTx(ctx.db, payout(taken, 5n)), null);
    const ids = await ctx.db.transaction(async (tx) => [await insertChainTx(tx, payout(taken, 7n)), await insertChainTx(tx, payout(fresh, 7n))]);
    assert.equal(ids[0], null, 'the same transaction bytes are recorded once');
    assert.notEqual(ids[1], null);
    assert.equal(await recorded(fresh), 1, 'what the transaction recorded after the duplicate is committed');
    const { rows } = await ctx.db.query<{ amount: string }>('SELECT amount::text FROM chain_txs WHERE signature = $1', [taken]);
    assert.deepEqual(rows, [{ amount: '5' }], 'the first record is untouched');
  });
});
