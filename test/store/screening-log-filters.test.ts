/**
 * The screening log's filters and paging (src/store/screening-log-filter.ts, `listScreeningLog`, migration 033):
 * each filter alone and together, a partner's rows (its refused quotes, which keep the account, and its orders'
 * rows), a prefix as a range over code points, a time range, id-cursor paging that new rows never shift, and the
 * plans: with many refused quotes in the log, the operator's decisions and an address prefix are read from their
 * indexes, not by reading the log from its newest row.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { insertOrder } from '../../src/store/orders-store.ts';
import { prefixBound } from '../../src/store/screening-log-filter.ts';
import { listScreeningLog, recordScreening, recordScreenings, type NewScreeningLogEntry } from '../../src/store/screening-log-store.ts';
import { forEachEngine } from '../support/databases.ts';
import { createTestAccount, newOrder } from '../support/store-fixtures.ts';

it('a prefix bound is the least string above every string with that prefix, by code point', () => {
  assert.equal(prefixBound('So1'), 'So2');
  assert.equal(prefixBound('abz'), 'ab{');
  assert.equal(prefixBound('operator:'), 'operator;');
  assert.equal(prefixBound('a\u{10ffff}'), 'b', 'the highest code point carries into the one before');
  assert.equal(prefixBound('\u{d7ff}'), '\u{e000}', 'surrogates are skipped');
  assert.equal(prefixBound('\u{10ffff}'), null, 'nothing is above it: the range has no upper end');
  // Code point order (UTF-8's byte order), not JavaScript's UTF-16 order: they differ past U+FFFF.
  const below = (x: string, y: string) => Buffer.compare(Buffer.from(x), Buffer.from(y)) < 0;
  for (const [prefix, inside, outside] of [['So1', 'So1xyz', 'So2'], ['é', 'é\u{10ffff}', 'ê'], ['a\u{10ffff}', 'a\u{10ffff}\u{10ffff}', 'b']] as const) {
    const bound = prefixBound(prefix)!;
    assert.ok(!below(inside, prefix) && below(inside, bound), `${inside} is inside the range of ${prefix}`);
    assert.ok(!below(outside, bound), `${outside} is outside it`);
  }
});

forEachEngine('screening log filters', (ctx) => {
  const ids = (rows: { id: string }[]) => rows.map((r) => r.id);

  it('filters by stage, result, actor (exact or prefix), partner, address (exact or prefix), time, and pages by id', async () => {
    const [a, b] = [await createTestAccount(ctx.db), await createTestAccount(ctx.db)];
    const [oa, ob] = [newOrder(a), newOrder(b)];
    for (const o of [oa, ob]) await insertOrder(ctx.db, o, { key: `k-${o.trackingId}`, responseStatus: 200, responseBody: {} });
    const row = async (e: NewScreeningLogEntry) => {
      await recordScreening(ctx.db, e);
      return (await listScreeningLog(ctx.db, { limit: 1 }))[0]!.id;
    };
    const quoteA = await row({ stage: 'quote', field: 'senderAddress', address: 'So1aaaa', result: 'blocked', list: 'sdn.csv', actor: 'hush', accountId: a });
    const quoteB = await row({ stage: 'quote', field: 'senderAddress', address: 'So1bbbb', result: 'blocked', list: 'sdn.csv', actor: 'hush', accountId: b });
    const depositA = await row({ trackingId: oa.trackingId, stage: 'deposit', field: 'senderAddress', address: 'So2cccc', result: 'blocked', actor: 'worker-1' });
    const depositB = await row({ trackingId: ob.trackingId, stage: 'deposit', address: 'So1dddd', result: 'error', actor: 'worker-1' });
    const alice = await row({ trackingId: oa.trackingId, stage: 'resolution', result: 'freeze', actor: 'operator:alice', note: 'confirmed' });
    const bob = await row({ trackingId: ob.trackingId, stage: 'resolution', result: 'release', actor: 'operator:bob', note: 'a different person' });
    const feeB = await row({ stage: 'fee', field: 'feeRecipientAddress', address: 'Fee1111', result: 'clear', actor: 'worker-1', accountId: b });

    assert.deepEqual(ids(await listScreeningLog(ctx.db, { stage: 'resolution' })), [bob, alice]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { result: 'blocked' })), [depositA, quoteB, quoteA]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { stage: 'deposit', result: 'error' })), [depositB]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { actor: 'operator:alice' })), [alice]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { actor: 'operator' })), [], 'exact means exact');
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { actorPrefix: 'operator:' })), [bob, alice]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { address: 'So1aaaa' })), [quoteA]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { addressPrefix: 'So1' })), [depositB, quoteB, quoteA]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { addressPrefix: 'So1b' })), [quoteB]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { addressPrefix: 'S' })), [depositB, depositA, quoteB, quoteA]);

    // A partner's rows: its refused quotes and fee rows (their own account) and its orders' rows (the order's).
    const ofB = await listScreeningLog(ctx.db, { accountId: b });
    assert.deepEqual(ids(ofB), [feeB, bob, depositB, quoteB]);
    assert.ok(ofB.every((r) => r.accountId === b), 'each row shows the partner');
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { accountId: a })), [alice, depositA, quoteA]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { accountId: b, limit: 2 })), [feeB, bob], 'the limit holds across both reads');
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { accountId: b, beforeId: bob, limit: 2 })), [depositB, quoteB], 'and paging');
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { accountId: b, stage: 'resolution' })), [bob]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { accountId: 'acc_nobody' })), []);
    assert.equal((await listScreeningLog(ctx.db)).find((r) => r.id === alice)!.accountId, a, 'the unfiltered log names the partner too');

    // Paging by id: a page read with its cursor is the same after new rows arrive.
    const first = await listScreeningLog(ctx.db, { limit: 3 });
    const second = await listScreeningLog(ctx.db, { limit: 3, beforeId: first.at(-1)!.id });
    await row({ stage: 'quote', address: 'So1eeee', result: 'blocked', actor: 'hush', accountId: a });
    assert.deepEqual(await listScreeningLog(ctx.db, { limit: 3, beforeId: first.at(-1)!.id }), second);
    assert.deepEqual(ids(second), [depositB, depositA, quoteB]);

    // Time: from (inclusive) to (exclusive).
    await ctx.db.query(`UPDATE screening_log SET at = '2026-01-01T00:00:00Z' WHERE id = $1`, [quoteA]);
    await ctx.db.query(`UPDATE screening_log SET at = '2026-01-02T00:00:00Z' WHERE id = $1`, [quoteB]);
    await ctx.db.query(`UPDATE screening_log SET at = '2026-01-03T00:00:00Z' WHERE id = $1`, [depositA]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { from: '2026-01-02T00:00:00Z', to: '2026-01-03T00:00:00Z' })), [quoteB]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { to: '2026-01-03T00:00:00.001Z' })), [depositA, quoteB, quoteA]);
    assert.deepEqual(ids(await listScreeningLog(ctx.db, { from: '2026-01-01T00:00:00Z', to: '2026-01-02T00:00:00Z', accountId: a })), [quoteA]);
  });

  it('a prefix reaches addresses and actors in any script, and no further', async () => {
    for (const actor of ['operator:Åsa', 'operator:Åsb', 'operator:Å', 'operator:B']) await recordScreening(ctx.db, { stage: 'resolution', result: 'release', actor, trackingId: 'trk_x' });
    const actors = async (actorPrefix: string) => (await listScreeningLog(ctx.db, { actorPrefix, stage: 'resolution' })).map((r) => r.actor).sort();
    assert.deepEqual(await actors('operator:Å'), ['operator:Å', 'operator:Åsa', 'operator:Åsb']);
    assert.deepEqual(await actors('operator:Åsa'), ['operator:Åsa']);
  });

  it('with many refused quotes in the log, decisions, a partner, an actor and an address prefix are read from their indexes', async () => {
    const acct = await createTestAccount(ctx.db);
    const quotes: NewScreeningLogEntry[] = Array.from({ length: 5_000 }, (_, i) => ({ stage: 'quote', field: 'senderAddress', address: `Q${String(i).padStart(43, '1')}`, result: 'blocked', actor: 'hush', accountId: acct }));
    for (let i = 0; i < quotes.length; i += 1_000) await recordScreenings(ctx.db, quotes.slice(i, i + 1_000));
    await recordScreening(ctx.db, { trackingId: 'trk_x', stage: 'resolution', result: 'freeze', actor: 'operator:carol' });
    await ctx.db.query('ANALYZE screening_log');
    const plan = async (sql: string, params: unknown[]) => (await ctx.db.query<Record<string, string>>(`EXPLAIN ${sql}`, params)).rows.map((r) => Object.values(r)[0]).join('\n');
    const newest = 'ORDER BY l.id DESC LIMIT 100';
    assert.match(await plan(`SELECT l.* FROM screening_log l WHERE l.stage = $1 ${newest}`, ['resolution']), /screening_log_by_stage/);
    assert.match(await plan(`SELECT l.* FROM screening_log l WHERE l.account_id = $1 ${newest}`, ['acc_other']), /screening_log_by_account/);
    assert.match(await plan(`SELECT l.* FROM screening_log l WHERE l.actor = $1 ${newest}`, ['operator:carol']), /screening_log_by_actor/);
    assert.match(await plan(`SELECT l.* FROM screening_log l WHERE l.address ~>=~ $1 AND l.address ~<~ $2 ${newest}`, ['So1', 'So2']), /screening_log_by_address/);
    assert.equal((await listScreeningLog(ctx.db, { stage: 'resolution', limit: 1 }))[0]!.actor, 'operator:carol', 'the decision, behind 5,000 refused quotes');
    assert.equal((await listScreeningLog(ctx.db, { limit: 1, beforeId: (await listScreeningLog(ctx.db, { limit: 1 }))[0]!.id }))[0]!.stage, 'quote', 'which fill the unfiltered page');
  });
});
