/**
 * The admin CLI's `claim`, `unclaim`, `comment` and `history` (src/cli/admin-hold-commands.ts), the same tour through
 * the store directly (PGlite under DATA_DIR: the CLI is `admin-cli`) and through a server's admin API as a named
 * operator (HUSH_OPERATOR_TOKEN: the CLI is that person): the answers are the same JSON either way.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildOpsApp } from '../../src/api/ops-app.ts';
import { createMetrics } from '../../src/api/metrics.ts';
import { AdminService } from '../../src/admin/admin-service.ts';
import { HoldsService } from '../../src/admin/holds-service.ts';
import { HoldNotesService } from '../../src/admin/hold-notes-service.ts';
import { OperatorsService } from '../../src/admin/operators-service.ts';
import type { Db } from '../../src/store/db.ts';
import { openDb } from '../../src/store/open-db.ts';
import { SCREENING_OFF } from '../../src/screening/screening-port.ts';
import { holdForScreening } from '../../src/store/settlement/hold-for-screening.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { openTestDb, type TestDatabase } from '../support/databases.ts';
import { orderIn } from '../support/settlement-fixtures.ts';
import { type CliResult, cliEnv, closedPortUrl, json, runInProcess, tempDir } from './admin-cli-harness.ts';

const verdict = { stage: 'deposit' as const, result: 'blocked' as const, field: 'senderAddress', address: 'Sender1111', list: 'own.txt', version: 'v1', reason: 'listed' };

const BOB = { by: 'operator:bob (op_bob)', operatorId: 'op_bob' };

/** Two held orders in `db`, the first claimed by bob, the second resolved (frozen) with a comment: their tracking ids. */
async function holds(db: Db): Promise<[string, string]> {
  const made: string[] = [];
  for (let i = 0; i < 2; i++) {
    const { id, order } = await orderIn(db, 'deposit_confirmed');
    assert.ok(await holdForScreening(db, id, 'deposit_confirmed', verdict, 'hush'));
    made.push(order.trackingId);
  }
  await new HoldNotesService(db).comment({ kind: 'order', trackingId: made[1]! }, { by: 'operator:erin', operatorId: null }, 'kept apart');
  await new HoldsService(db, SCREENING_OFF).resolve(made[1]!, 'freeze', 'OFAC match', 'operator:erin');
  await new HoldNotesService(db).claim({ kind: 'order', trackingId: made[0]! }, BOB, false);
  return [made[0]!, made[1]!];
}

/** The tour: the same commands and answers in either mode, the CLI being `me` to the log. */
async function tour(run: (args: string[]) => Promise<CliResult>, me: string, open: string, resolved: string): Promise<void> {
  const refused = await run(['claim', open]);
  assert.equal(refused.code, 1);
  assert.match(refused.stderr, /^error HOLD_CLAIMED: operator:bob \(op_bob\) claimed this hold; send takeOver: true to take it over/);
  assert.equal(json(await run(['claim', open, '--take-over'])).claim.by, me);
  assert.equal(json(await run(['claim', open])).claim.by, me, 'claimed by me already: the same claim');
  const comment = json(await run(['comment', open, '  checked the payer — clean ✓ '])).comment;
  assert.deepEqual([comment.by, comment.text], [me, 'checked the payer — clean ✓']);
  const bad = await run(['comment', open, 'two\nlines']);
  assert.equal(bad.code, 1);
  assert.match(bad.stderr, /^error INVALID_REQUEST: text may not hold control characters/);
  assert.equal(json(await run(['unclaim', open])).claim, null);
  assert.match((await run(['claim', 'trk_1111111111111111111111'])).stderr, /^error NOT_FOUND/);
  assert.match((await run(['comment', resolved, 'too late'])).stderr, /^error ORDER_NOT_HELD/);

  const page = json(await run(['history', '--limit', '1']));
  assert.equal(page.items.length, 1);
  assert.deepEqual([page.items[0].trackingId, page.items[0].action, page.items[0].resolvedBy, page.items[0].note], [resolved, 'freeze', 'operator:erin', 'OFAC match']);
  assert.deepEqual(page.items[0].comments.map((c: { text: string }) => c.text), ['kept apart']);
  assert.equal(page.next, page.items[0].historyId);
  assert.deepEqual(json(await run(['history', '--before', page.next])), { success: true, items: [], next: null });

  // The history's flags are the admin API's query parameters, refused in its words (exit 1) in either mode.
  for (const bad of [['--limit', '0'], ['--limit', '101'], ['--limit', 'ten'], ['--before', 'x1']]) {
    const r = await run(['history', ...bad]);
    assert.equal(r.code, 1, bad.join(' '));
    assert.match(r.stderr, /^error INVALID_REQUEST/, bad.join(' '));
  }
  for (const usage of [['claim', open, '--before', 'r1'], ['comment', open], ['claim', open, '--operator', 'someone'], ['resolve', open, 'refund', 'x', '--take-over']]) {
    assert.equal((await run(usage)).code, 2, usage.join(' '));
  }
}

describe('admin CLI: claims, comments and the history of holds', () => {
  it('directly on the store (PGlite under DATA_DIR)', async () => {
    const dataDir = tempDir();
    const db = await openDb({ dataDir, clock: systemClock });
    const [open, resolved] = await holds(db).finally(() => db.close());
    const env = cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: await closedPortUrl() });
    await tour((args) => runInProcess(args, env), 'admin-cli', open, resolved);
  });

  describe('through a server, as a named operator (HUSH_OPERATOR_TOKEN)', () => {
    const token = 'cli-holds-admin-token-0123456789';
    let t: TestDatabase;
    let app: FastifyInstance;
    let url: string;
    let operators: OperatorsService;
    before(async () => {
      t = await openTestDb('pglite');
      const service = new HoldsService(t.db, SCREENING_OFF);
      operators = new OperatorsService(t.db, systemRandom);
      const api = Object.assign(new AdminService(t.db, { clock: systemClock, random: systemRandom }), {
        holds: (limit?: number) => service.list(limit),
        operators,
        holdNotes: new HoldNotesService(t.db),
      });
      app = await buildOpsApp({ ready: async () => ({ store: true, chain: true }), metrics: createMetrics(async () => new Map()), clock: systemClock, random: systemRandom, admin: { token, api } });
      url = await app.listen({ host: '127.0.0.1', port: 0 });
    });
    after(async () => {
      await app?.close();
      await t?.close();
    });

    it('the same answers, the claims and comments in the name of the token\'s operator', async () => {
      const [open, resolved] = await holds(t.db);
      const carol = await operators.create({ name: 'Carol Ñ', role: 'resolver' });
      const { token: personal } = await operators.mintToken(carol.operatorId, { label: 'cli' });
      const env = cliEnv({ HUSH_OPERATOR_TOKEN: personal, HUSH_OPS_URL: url, DATABASE_URL: 'postgres://nobody@127.0.0.1:1/none' });
      await tour((args) => runInProcess(args, env), `operator:Carol Ñ (${carol.operatorId})`, open, resolved);
    });
  });
});

