/**
 * docs/spec.md §12 "Named operators" and "Four eyes": what an operator sends to the admin API is judged, never a
 * 500 — a NUL (which PostgreSQL text cannot hold) in a resolution's note, a decision's note, a token's label or a
 * registered subject is a 400 INVALID_REQUEST naming the field; a provider's verified email binds the operator
 * registered with that email, not one whose email it becomes only by Unicode case mapping (a Kelvin sign is no `k`).
 * A reader's query is judged too: a cursor past what the store can key, a zone offset PostgreSQL cannot read, a 400.
 * On a simulated Hush, its ops listener by inject.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { OperatorsService } from '../../src/admin/operators-service.ts';
import { holdFeeRecipient } from '../../src/store/holds/fund-holds.ts';
import { systemRandom } from '../../src/support/random.ts';
import { expectError, expectOk } from '../support/api-responses.ts';
import type { HushClient } from '../support/hush-client.ts';
import { namedOperator } from '../support/operators.ts';
import { startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimHush } from '../support/sim-hush.ts';

let h: SimHush;
let admin: HushClient;
let ana: Awaited<ReturnType<typeof namedOperator>>;
let rui: Awaited<ReturnType<typeof namedOperator>>;

before(async () => {
  h = await startApiSim({ seed: 73 });
  admin = h.ops;
  ana = await namedOperator(admin, 'Ana', 'approver');
  rui = await namedOperator(admin, 'Rui', 'resolver');
});
after(() => closeSim(h));

/** A fee recipient held on a listing: its hold's id. */
async function feeHold(n: number): Promise<string> {
  const subject = `payable:partner:acc_test:addr${n}`;
  await h.drive(holdFeeRecipient(h.db, subject, 'usdc', 1_000_000n, { stage: 'fee', result: 'blocked', field: 'feeRecipientAddress', address: `addr${n}`, list: 'sdn.csv', version: 'v1', reason: 'listed' }));
  return (await h.drive(h.db.query<{ id: string }>(`SELECT id::text AS id FROM screening_holds WHERE subject = $1`, [subject]))).rows[0]!.id;
}

describe('operator input', () => {
  test('a NUL in a note, a label or a subject is a 400 naming the field, never a 500', async () => {
    const hold = await feeHold(1);
    const nul = 'a\u0000b';
    const field = (r: Awaited<ReturnType<HushClient['request']>>) => expectError(r, 400, 'INVALID_REQUEST').details.field as string;
    assert.equal(field(await rui.client.request('POST', `/admin/v1/holds/${hold}/resolve`, { body: { action: 'release', note: nul } })), 'note');
    assert.equal(field(await rui.client.request('POST', `/admin/v1/orders/trk_nope/resolve`, { body: { action: 'freeze', note: nul } })), 'note');
    assert.equal(field(await rui.client.request('POST', '/admin/v1/me/tokens', { body: { label: nul } })), 'label');
    assert.equal(field(await admin.request('POST', '/admin/v1/operators', { body: { name: 'Sub', role: 'viewer', subject: nul } })), 'subject');
    const id = expectOk(await rui.client.request('POST', `/admin/v1/holds/${hold}/resolve`, { body: { action: 'release', note: 'a namesake' } }), 202).approvalId;
    assert.equal(field(await ana.client.request('POST', `/admin/v1/approvals/${id}/approve`, { body: { note: nul } })), 'note');
    assert.equal(field(await rui.client.request('POST', `/admin/v1/approvals/${id}/reject`, { body: { note: nul } })), 'note');
    assert.equal(expectOk(await rui.client.request('POST', `/admin/v1/approvals/${id}/reject`, { body: { note: 'withdrawn' } })).status, 'withdrawn');
  });

  test("a verified email binds the operator registered with it, in any ASCII case, never one it becomes by Unicode's case mapping", async () => {
    const kate = expectOk(await admin.request('POST', '/admin/v1/operators', { body: { name: 'Kate', role: 'approver', email: 'kate@example.com' } }), 201).operator;
    const operators = new OperatorsService(h.db, systemRandom);
    // U+212A KELVIN SIGN lower-cases to an ASCII `k`: another mailbox, whatever the provider verified.
    assert.equal(await h.drive(operators.bySignIn('sub-mallory', '\u212Aate@example.com')), null);
    assert.equal((await h.drive(operators.bySignIn('sub-kate', 'KATE@Example.COM')))?.operatorId, kate.operatorId);
  });

  test("a viewer's query the store could not read is a 400 naming the parameter: a cursor past a bigint, an offset beyond ±15:59", async () => {
    const vic = await namedOperator(admin, 'Vic', 'viewer');
    const field = async (url: string) => expectError(await vic.client.get(url), 400, 'INVALID_REQUEST').details.field as string;
    assert.equal(await field('/admin/v1/holds?fundsAfter=9223372036854775808'), 'fundsAfter');
    assert.equal(await field('/admin/v1/screening-log?before=9223372036854775808'), 'before');
    assert.equal(await field('/admin/v1/screening-log.csv?before=9999999999999999999'), 'before');
    assert.equal(await field('/admin/v1/holds?from=2026-01-01T00:00:00-23:59'), 'from');
    assert.equal(await field('/admin/v1/screening-log?to=2026-01-01T00:00:00%2B16:00'), 'to');
    // The largest of each still reads (nothing there).
    expectOk(await vic.client.get('/admin/v1/holds?fundsAfter=9223372036854775807&from=2026-01-01T00:00:00-15:59'));
    expectOk(await vic.client.get('/admin/v1/screening-log?before=9223372036854775807&to=2026-01-01T00:00:00%2B15:59'));
  });
});
