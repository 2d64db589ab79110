/**
 * The admin CLI's `screening-log` and `holds` with filters, against the store directly (PGlite under DATA_DIR, no
 * server): the flags are the admin API's query parameters, checked in its words; `--csv` prints the export as it
 * is; a flag a command does not take is a usage error (exit 2), a bad value the API's 400 (exit 1).
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { openDb } from '../../src/store/open-db.ts';
import { recordScreening } from '../../src/store/screening-log-store.ts';
import { systemClock } from '../../src/support/clock.ts';
import { type CliResult, cliEnv, closedPortUrl, json, runInProcess, tempDir } from './admin-cli-harness.ts';

describe('admin CLI: the screening log and the queue, filtered', () => {
  let env: NodeJS.ProcessEnv;
  const run = (...args: string[]): Promise<CliResult> => runInProcess(args, env);

  before(async () => {
    const dataDir = tempDir();
    env = cliEnv({ DATA_DIR: dataDir, HUSH_OPS_URL: await closedPortUrl() });
    const db = await openDb({ dataDir, clock: systemClock });
    try {
      for (let i = 0; i < 3; i++) await recordScreening(db, { stage: 'quote', field: 'senderAddress', address: `So1${i}`, result: 'blocked', list: 'sdn.csv', actor: 'hush', accountId: 'acc_attacker' });
      await recordScreening(db, { trackingId: 'trk_x', stage: 'resolution', result: 'freeze', actor: 'operator:alice', note: '@SUM(1,2)' });
    } finally {
      await db.close();
    }
  });

  it('filters, pages with next, and says what a bad value must be', async () => {
    const decisions = json(await run('screening-log', '--decisions'));
    assert.deepEqual(decisions.entries.map((e: { actor: string }) => e.actor), ['operator:alice']);
    assert.equal(decisions.next, null);
    const page = json(await run('screening-log', '--account-id', 'acc_attacker', '--limit', '2'));
    assert.deepEqual(page.entries.map((e: { address: string }) => e.address), ['So12', 'So11']);
    const rest = json(await run('screening-log', '--account-id', 'acc_attacker', '--before', page.next));
    assert.deepEqual(rest.entries.map((e: { address: string }) => e.address), ['So10']);
    assert.deepEqual(json(await run('screening-log', '--address-prefix', 'So11', '--stage', 'quote')).entries.map((e: { address: string }) => e.address), ['So11']);
    assert.equal(json(await run('screening-log', '--actor-prefix', 'operator:', '--from', '2000-01-01', '--to', '2999-01-01')).entries.length, 1);

    const bad = await run('screening-log', '--stage', 'later');
    assert.equal(bad.code, 1);
    assert.match(bad.stderr, /^error INVALID_REQUEST: Invalid request: stage must be one of: "quote"/);
    assert.match((await run('screening-log', '--from', '2026-02-30')).stderr, /from is not a time on the calendar/);
    assert.match((await run('screening-log', '--decisions', '--stage', 'quote')).stderr, /decisions are the operators' entries/);
  });

  it('--csv prints the export as it is: a header, RFC 4180 records, formulas shown as text', async () => {
    const r = await run('screening-log', '--csv', '--decisions');
    assert.equal(r.code, 0, r.stderr);
    const [header, row, end] = r.stdout.split('\r\n');
    assert.equal(header, 'id,at,trackingId,accountId,stage,field,address,result,list,version,reason,actor,approvedBy,note');
    assert.match(row!, /,trk_x,,resolution,,,freeze,,,,operator:alice,,"'@SUM\(1,2\)"$/);
    assert.equal(end, '');
    const cut = await run('screening-log', '--csv', '--limit', '2');
    assert.match(cut.stdout, /\r\n# cut at 2 entries: older ones match too; export again with before=\d+ for them\r\n$/);
  });

  it('the queue takes its own filters; a flag a command does not take is a usage error', async () => {
    const q = json(await run('holds', '--stage', 'fee', '--account-id', 'acc_attacker'));
    assert.deepEqual(q.counts, { holds: 0, fundHolds: 0, matching: { holds: 0, fundHolds: 0 } });
    assert.deepEqual(json(await run('holds')).counts, { holds: 0, fundHolds: 0 }, 'no filter, no matching');
    assert.match((await run('holds', '--result', 'clear')).stderr, /result must be one of: "blocked", "error"/);
    for (const args of [['holds', '--decisions'], ['holds', '--csv'], ['list-accounts', '--stage', 'quote'], ['screening-log', '--funds-after', '3']]) {
      const r = await run(...args);
      assert.equal(r.code, 2, `${args.join(' ')}: ${r.stderr}`);
      assert.match(r.stderr, new RegExp(`^${args[0]} does not take ${args[1]}`));
    }
    assert.match((await run('help')).stdout, /screening-log: .*\[--decisions\]/);
  });
});
