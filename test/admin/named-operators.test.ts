/**
 * docs/spec.md §12 "Named operators" and "Four eyes" (issue 70) on the admin API of a simulated Hush (its ops
 * listener by inject, the store on the simulated clock): operators registered by the shared token with any
 * script in their names; roles (a viewer only reads, a resolver answers, an approver approves and manages);
 * personal tokens issued, revoked, and dead with their operator; the release of a sanctions-list finding
 * proposed, refused to its proposer and to the shared token, approved by another, carried out once, and logged
 * with both names; another finding released at once; wrong credentials throttled per credential and per
 * address while the right ones pass.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { holdFeeRecipient } from '../../src/store/holds/fund-holds.ts';
import { expectError, expectOk } from '../support/api-responses.ts';
import type { HushClient } from '../support/hush-client.ts';
import { namedOperator } from '../support/operators.ts';
import { startApiSim } from '../support/sim-api.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimHush } from '../support/sim-hush.ts';

let h: SimHush;
let admin: HushClient;
let ana: Awaited<ReturnType<typeof namedOperator>>;
let bo: Awaited<ReturnType<typeof namedOperator>>;
let vic: Awaited<ReturnType<typeof namedOperator>>;
let rui: Awaited<ReturnType<typeof namedOperator>>;

before(async () => {
  h = await startApiSim({ seed: 70 });
  admin = h.ops;
  ana = await namedOperator(admin, 'Ana Lúcia Ñúñez', 'approver');
  bo = await namedOperator(admin, '李博', 'approver');
  vic = await namedOperator(admin, 'Vic', 'viewer');
  rui = await namedOperator(admin, 'Rui', 'resolver');
});
after(() => closeSim(h));

/** A partner's fee recipient held on `reason` (a list's listing, or a provider's category): its hold's id. */
async function feeHold(n: number, list: string, reason: string): Promise<string> {
  const subject = `payable:partner:acc_test:addr${n}`;
  await h.drive(holdFeeRecipient(h.db, subject, 'usdc', 1_000_000n, { stage: 'fee', result: 'blocked', field: 'feeRecipientAddress', address: `addr${n}`, list, version: 'v1', reason }));
  return (await h.drive(h.db.query<{ id: string }>(`SELECT id::text AS id FROM screening_holds WHERE subject = $1`, [subject]))).rows[0]!.id;
}

describe('named operators', () => {
  test('who am I: the name as registered, in any script, and what the log records', async () => {
    const me = expectOk(await bo.client.get('/admin/v1/me')).operator;
    assert.deepEqual({ kind: me.kind, name: me.name, role: me.role }, { kind: 'operator', name: '李博', role: 'approver' });
    assert.equal(me.logsAs, `operator:李博 (${bo.operatorId})`);
    assert.equal(expectOk(await admin.get('/admin/v1/me')).operator.logsAs, 'admin-token');
  });

  test('a name that would read other than it is stored is refused, and so is a role that does not exist', async () => {
    for (const name of ['Ana\u202eevil', 'two\nlines', '   ', 'x'.repeat(101)]) {
      assert.equal(expectError(await admin.request('POST', '/admin/v1/operators', { body: { name, role: 'viewer' } }), 400, 'INVALID_REQUEST').details.field, 'name', JSON.stringify(name));
    }
    expectError(await admin.request('POST', '/admin/v1/operators', { body: { name: 'Zoë', role: 'admin' } }), 400, 'INVALID_REQUEST');
    expectOk(await admin.request('POST', '/admin/v1/operators', { body: { name: 'Zoë', role: 'viewer', email: 'zoe@example.com' } }), 201);
    assert.equal(expectError(await admin.request('POST', '/admin/v1/operators', { body: { name: 'Zoë 2', role: 'viewer', email: 'ZOE@example.com' } }), 400, 'INVALID_REQUEST').details.field, 'email', 'one person, one registration');
  });

  test('a viewer reads and changes nothing; a resolver does not manage accounts or people; an approver does', async () => {
    expectOk(await vic.client.get('/admin/v1/holds'));
    expectOk(await vic.client.get('/admin/v1/screening-log'));
    assert.deepEqual(expectError(await vic.client.request('POST', '/admin/v1/orders/trk_x/resolve', { body: { action: 'refund', note: 'n' } }), 403, 'FORBIDDEN').details, { role: 'viewer' });
    expectError(await vic.client.request('POST', '/admin/v1/approvals/1/reject', { body: {} }), 403, 'FORBIDDEN');
    // Their own tokens are the one thing a viewer makes (a CLI that only reads).
    const own = expectOk(await vic.client.request('POST', '/admin/v1/me/tokens', { body: { label: 'read-only cli' } }), 201);
    expectOk(await vic.client.request('DELETE', `/admin/v1/me/tokens/${own.tokenId}`));
    expectError(await rui.client.request('POST', '/admin/v1/accounts', { body: { name: 'by a resolver' } }), 403, 'FORBIDDEN');
    expectError(await rui.client.request('POST', '/admin/v1/operators', { body: { name: 'Mallory', role: 'approver' } }), 403, 'FORBIDDEN');
    expectOk(await ana.client.request('POST', '/admin/v1/accounts', { body: { name: 'by an approver' } }), 201);
    expectError(await ana.client.request('PATCH', `/admin/v1/operators/${ana.operatorId}`, { body: { role: 'viewer' } }), 403, 'FORBIDDEN');
  });

  test('personal tokens: made by their owner, never by one operator for another; revoked, or dead with their operator', async () => {
    const made = expectOk(await rui.client.request('POST', '/admin/v1/me/tokens', { body: { label: 'laptop', expiresInDays: 30 } }), 201);
    assert.match(made.token, /^hush_op_[a-z2-9]{12}_[A-Za-z0-9_-]{43}$/);
    const laptop = rui.client.withKey(made.token);
    assert.equal(expectOk(await laptop.get('/admin/v1/me')).operator.name, 'Rui');
    const listed = expectOk(await rui.client.get('/admin/v1/me/tokens')).tokens as { tokenId: string; label: string | null }[];
    assert.ok(listed.some((t) => t.tokenId === made.tokenId && t.label === 'laptop'));
    assert.doesNotMatch(JSON.stringify(listed), /hush_op_/, 'no secret in a listing');
    expectError(await ana.client.request('POST', `/admin/v1/operators/${rui.operatorId}/tokens`, { body: {} }), 403, 'FORBIDDEN');
    expectError(await admin.request('POST', '/admin/v1/me/tokens', { body: {} }), 403, 'FORBIDDEN');
    expectOk(await rui.client.request('DELETE', `/admin/v1/me/tokens/${made.tokenId}`));
    expectError(await laptop.get('/admin/v1/me'), 401, 'UNAUTHORIZED');
    expectOk(await admin.request('PATCH', `/admin/v1/operators/${rui.operatorId}`, { body: { disabled: true } }));
    expectError(await rui.client.get('/admin/v1/me'), 401, 'UNAUTHORIZED');
    expectOk(await admin.request('PATCH', `/admin/v1/operators/${rui.operatorId}`, { body: { disabled: false } }));
    // Disabling revoked what they held: enabled again, a new token, and the old one (perhaps stolen) stays dead.
    expectError(await rui.client.get('/admin/v1/me'), 401, 'UNAUTHORIZED');
    const fresh = expectOk(await admin.request('POST', `/admin/v1/operators/${rui.operatorId}/tokens`, { body: {} }), 201);
    rui = { ...rui, client: admin.withKey(fresh.token), token: fresh.token };
    expectOk(await rui.client.get('/admin/v1/me'));
  });
});

describe('four eyes', () => {
  test("a release of a sanctions-list finding waits for a second operator; it is carried out once and the log names both", async () => {
    const hold = await feeHold(1, 'sdn.csv', 'listed (SDN entry 36216)');
    const path = `/admin/v1/holds/${hold}/resolve`;
    const proposed = expectOk(await rui.client.request('POST', path, { body: { action: 'release', note: 'a namesake', operator: 'typed name, ignored' } }), 202);
    assert.equal(proposed.status, 'awaiting_approval');
    const id = proposed.approvalId as string;
    assert.deepEqual(expectError(await ana.client.request('POST', path, { body: { action: 'release', note: 'again' } }), 409, 'APPROVAL_CONFLICT').details, { approvalId: id, status: 'awaiting' });
    const queue = expectOk(await vic.client.get('/admin/v1/holds'));
    const shown = queue.fundHolds.find((x: { holdId: string }) => x.holdId === hold);
    assert.equal(shown.approval.approvalId, id);
    assert.equal(shown.approval.proposedBy, `operator:Rui (${rui.operatorId})`);
    expectError(await rui.client.request('POST', `/admin/v1/approvals/${id}/approve`, { body: {} }), 403, 'FORBIDDEN'); // a resolver
    expectError(await admin.request('POST', `/admin/v1/approvals/${id}/approve`, { body: {} }), 403, 'FORBIDDEN'); // the shared token is no person
    expectError(await vic.client.request('POST', `/admin/v1/approvals/${id}/approve`, { body: {} }), 403, 'FORBIDDEN');
    assert.equal((await h.drive(h.db.query<{ status: string }>(`SELECT status FROM screening_holds WHERE id = $1`, [hold]))).rows[0]!.status, 'held');
    const done = expectOk(await bo.client.request('POST', `/admin/v1/approvals/${id}/approve`, { body: { note: 'checked the date of birth' } }));
    assert.deepEqual({ status: done.status, holdId: done.holdId }, { status: 'released', holdId: hold });
    assert.deepEqual(expectError(await ana.client.request('POST', `/admin/v1/approvals/${id}/approve`, { body: {} }), 409, 'APPROVAL_CONFLICT').details, { approvalId: id, status: 'approved' });
    const log = (await h.drive(h.db.query<{ actor: string; approved_by: string; note: string }>(`SELECT actor, approved_by, note FROM screening_log WHERE stage = 'resolution' AND note LIKE $1`, [`fee hold ${hold}:%`]))).rows;
    assert.deepEqual(log, [{ actor: `operator:Rui (${rui.operatorId})`, approved_by: `operator:李博 (${bo.operatorId})`, note: `fee hold ${hold}: a namesake` }]);
    // The admin API's log (and its CSV) names both.
    const decisions = expectOk(await vic.client.get('/admin/v1/screening-log?decisions=true')).entries as { actor: string; approvedBy: string | null; note: string }[];
    assert.deepEqual(decisions.filter((e) => e.note.startsWith(`fee hold ${hold}:`)).map((e) => [e.actor, e.approvedBy]), [[`operator:Rui (${rui.operatorId})`, `operator:李博 (${bo.operatorId})`]]);
  });

  test("its proposer withdraws it, or an approver rejects it: the hold stays held; an approver's own proposal needs another", async () => {
    const hold = await feeHold(2, 'sdn.csv', 'listed');
    const path = `/admin/v1/holds/${hold}/resolve`;
    const first = expectOk(await ana.client.request('POST', path, { body: { action: 'release', note: 'n' } }), 202).approvalId;
    expectError(await ana.client.request('POST', `/admin/v1/approvals/${first}/approve`, { body: {} }), 403, 'FORBIDDEN');
    assert.equal(expectOk(await ana.client.request('POST', `/admin/v1/approvals/${first}/reject`, { body: { note: 'wrong hold' } })).status, 'withdrawn');
    const second = expectOk(await rui.client.request('POST', path, { body: { action: 'release', note: 'n' } }), 202).approvalId;
    expectError(await vic.client.request('POST', `/admin/v1/approvals/${second}/reject`, { body: {} }), 403, 'FORBIDDEN');
    assert.equal(expectOk(await bo.client.request('POST', `/admin/v1/approvals/${second}/reject`, { body: { note: 'not convinced' } })).status, 'rejected');
    assert.equal((await h.drive(h.db.query<{ status: string }>(`SELECT status FROM screening_holds WHERE id = $1`, [hold]))).rows[0]!.status, 'held');
    expectOk(await admin.get('/admin/v1/approvals'));
  });

  test('an id past what the store can key names nothing: 404, never a store error', async () => {
    expectError(await rui.client.request('POST', '/admin/v1/holds/9999999999999999999/resolve', { body: { action: 'refund', note: 'n' } }), 404, 'NOT_FOUND');
    expectError(await bo.client.request('POST', '/admin/v1/approvals/9999999999999999999/approve', { body: {} }), 404, 'NOT_FOUND');
    expectError(await rui.client.request('POST', '/admin/v1/approvals/9999999999999999999/reject', { body: {} }), 404, 'NOT_FOUND');
  });

  test("a release of another finding (a provider's category that is not sanctions) is one operator's decision", async () => {
    const hold = await feeHold(3, 'http:risk.example:8443', 'mixer');
    assert.equal(expectOk(await rui.client.request('POST', `/admin/v1/holds/${hold}/resolve`, { body: { action: 'release', note: 'known exchange' } })).status, 'released');
  });
});

describe('wrong credentials', () => {
  const inject = (token: string, from: string) =>
    h.drive(h.hush.opsApp.inject({ method: 'GET', url: '/admin/v1/me', headers: { authorization: `Bearer ${token}` }, remoteAddress: from }));

  test("guesses at a colleague's token are throttled per token and per address; the right tokens still pass", async () => {
    const id = /^hush_op_([a-z2-9]{12})_/.exec(ana.token)![1]!;
    const wrong = (n: number) => `hush_op_${id}_${String(n).padStart(43, 'A')}`;
    for (let i = 0; i < 10; i++) assert.equal((await inject(wrong(i), '10.1.0.1')).statusCode, 401);
    assert.equal((await inject(wrong(10), '10.1.0.1')).statusCode, 429, 'the address is throttled');
    assert.equal((await inject(wrong(11), '10.9.9.9')).statusCode, 429, 'and so is that token, from anywhere');
    assert.equal((await inject(ana.token, '10.1.0.1')).statusCode, 200, 'the right token passes, from the same address too');
    assert.equal((await inject(bo.token, '10.9.9.9')).statusCode, 200, "a colleague's token is untouched");
    const other = /^hush_op_([a-z2-9]{12})_/.exec(bo.token)![1]!;
    assert.equal((await inject(`hush_op_${other}_${'B'.repeat(43)}`, '10.9.9.9')).statusCode, 401, "another token's guesses are counted apart");
  });
});
