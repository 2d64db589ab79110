/**
 * docs/spec.md §12 "Claims, comments, history" through the admin API (src/api/routes/admin-hold-routes.ts) on the
 * ops app, by inject, over a store with real held orders and fund holds, as named operators (alice and bob, each
 * with a personal token) and the shared token: a claim, another operator's refused claim, an explicit take-over, an
 * unclaim, comments with their text rules, the history a page at a time (a four-eyes answer with both names), and
 * every bad input a 400 (never a 500), an unknown hold a 404.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { FastifyInstance } from 'fastify';
import { buildOpsApp } from '../../src/api/ops-app.ts';
import { createMetrics } from '../../src/api/metrics.ts';
import { AdminService } from '../../src/admin/admin-service.ts';
import { HoldsService } from '../../src/admin/holds-service.ts';
import { HoldNotesService } from '../../src/admin/hold-notes-service.ts';
import { ApprovalsService } from '../../src/admin/approvals-service.ts';
import { OperatorsService } from '../../src/admin/operators-service.ts';
import { SCREENING_OFF } from '../../src/screening/screening-port.ts';
import { holdFeeRecipient } from '../../src/store/holds/fund-holds.ts';
import { holdForScreening } from '../../src/store/settlement/hold-for-screening.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { openTestDb, type TestDatabase } from '../support/databases.ts';
import { orderIn } from '../support/settlement-fixtures.ts';
import { expectError, expectOk, type ApiResponse } from '../support/api-responses.ts';

const TOKEN = 'test-admin-token-0123456789abcdef';
const verdict = { stage: 'deposit' as const, result: 'blocked' as const, field: 'recipientAddress', address: 'Recipient1111', list: 'own.txt', version: 'v1', reason: 'listed' };

describe('the admin API: claims, comments and the history of holds', () => {
  let t: TestDatabase;
  let app: FastifyInstance;
  /** Personal tokens, and what the log names each by. */
  const alice = { token: '', label: '' };
  const bob = { token: '', label: '' };

  before(async () => {
    t = await openTestDb('pglite');
    const holds = new HoldsService(t.db, SCREENING_OFF);
    const operators = new OperatorsService(t.db, systemRandom);
    const api = Object.assign(new AdminService(t.db, { clock: systemClock, random: systemRandom }), {
      holds: (limit?: number) => holds.list(limit),
      fundHolds: (limit?: number) => holds.listFunds(limit),
      holdCounts: () => holds.counts(),
      operators,
      approvals: new ApprovalsService(t.db, holds),
      holdNotes: new HoldNotesService(t.db),
    });
    app = await buildOpsApp({ ready: async () => ({ store: true, chain: true }), metrics: createMetrics(async () => new Map()), clock: systemClock, random: systemRandom, admin: { token: TOKEN, api } });
    for (const [who, name] of [[alice, 'alice'], [bob, 'bob']] as const) {
      const o = await operators.create({ name, role: 'approver' });
      who.token = (await operators.mintToken(o.operatorId, { label: 'tests' })).token;
      who.label = `operator:${name} (${o.operatorId})`;
    }
  });
  after(async () => {
    await app?.close();
    await t?.close();
  });

  /** A request as `as` (a personal token; the shared token by default). */
  async function call(method: 'GET' | 'POST', url: string, body?: unknown, raw?: string, as: string = TOKEN): Promise<ApiResponse> {
    const res = await app.inject({
      method,
      url: `/admin/v1${url}`,
      headers: { authorization: `Bearer ${as}`, ...(body !== undefined || raw !== undefined ? { 'content-type': 'application/json' } : {}) },
      ...(raw !== undefined ? { payload: raw } : body !== undefined ? { payload: JSON.stringify(body) } : {}),
    });
    const headers = new Headers(Object.entries(res.headers).map(([k, v]): [string, string] => [k, String(v)]));
    let parsed: unknown = res.body;
    try {
      parsed = JSON.parse(res.body);
    } catch {}
    return { status: res.statusCode, headers, body: parsed, text: res.body };
  }
  const asAlice = (url: string, body?: unknown) => call('POST', url, body, undefined, alice.token);
  const asBob = (url: string, body?: unknown) => call('POST', url, body, undefined, bob.token);
  async function heldOrder(): Promise<string> {
    const { id, order } = await orderIn(t.db, 'deposit_confirmed');
    assert.ok(await holdForScreening(t.db, id, 'deposit_confirmed', verdict, 'hush'));
    return order.trackingId;
  }
  const listed = async (trackingId: string) => (expectOk(await call('GET', '/holds')).holds as { trackingId: string; claim: unknown; claims: { kind: string; by: string; of: string | null }[]; comments: { by: string; text: string }[] }[]).find((h) => h.trackingId === trackingId)!;

  test('an operator claims a hold, and the queue shows who is on it; claiming it again changes nothing', async () => {
    const trk = await heldOrder();
    const before = await listed(trk);
    assert.deepEqual([before.claim, before.claims, before.comments], [null, [], []], 'the additive fields, empty');
    const { claim } = expectOk(await asAlice(`/orders/${trk}/claim`, {}));
    assert.equal(claim.by, alice.label, 'the person the token names, as the log names them');
    assert.match(claim.operatorId, /^op_/);
    assert.match(claim.at, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
    const again = expectOk(await asAlice(`/orders/${trk}/claim`));
    assert.deepEqual(again.claim, claim, 'the same claim, not a new one');
    const shown = await listed(trk);
    assert.deepEqual(shown.claim, claim);
    assert.deepEqual(shown.claims.map((c) => [c.kind, c.by]), [['claim', alice.label]], 'one note');
    // The shared token claims as itself: it names nobody, and a name in the body is not a field.
    const other = await heldOrder();
    assert.equal(expectOk(await call('POST', `/orders/${other}/claim`)).claim.by, 'admin-token');
    expectError(await call('POST', `/orders/${other}/claim`, { operator: 'alice' }), 400, 'INVALID_REQUEST');
  });

  test("another operator's claim is refused 409 HOLD_CLAIMED, unless they take it over, which is logged; an unclaim ends it", async () => {
    const trk = await heldOrder();
    const mine = expectOk(await asAlice(`/orders/${trk}/claim`)).claim;
    const refused = expectError(await asBob(`/orders/${trk}/claim`), 409, 'HOLD_CLAIMED');
    assert.deepEqual(refused.details, { claimedBy: alice.label, claimedAt: mine.at });
    assert.equal(refused.message, `${alice.label} claimed this hold; send takeOver: true to take it over`);
    expectError(await asBob(`/orders/${trk}/unclaim`), 409, 'HOLD_CLAIMED');
    assert.equal(expectOk(await asBob(`/orders/${trk}/claim`, { takeOver: true })).claim.by, bob.label);
    assert.deepEqual((await listed(trk)).claims.map((c) => [c.kind, c.by, c.of]), [['claim', alice.label, null], ['take_over', bob.label, alice.label]]);
    assert.equal(expectOk(await asBob(`/orders/${trk}/unclaim`)).claim, null);
    assert.equal((await listed(trk)).claim, null);
    assert.equal(expectOk(await asBob(`/orders/${trk}/unclaim`)).claim, null, 'nothing to end: no change');
    assert.equal((await listed(trk)).claims.length, 3, 'claim, take-over, unclaim: no note for the no-op');
    // A claim is advisory: someone else still answers the hold.
    expectOk(await asAlice(`/orders/${trk}/claim`));
    expectOk(await asBob(`/orders/${trk}/resolve`, { action: 'refund', note: 'sender asked for it back' }));
    expectError(await asAlice(`/orders/${trk}/claim`), 409, 'ORDER_NOT_HELD');
    expectError(await asAlice(`/orders/${trk}/comments`, { text: 'late' }), 409, 'ORDER_NOT_HELD');
  });

  test('a comment is kept trimmed, with who and when, oldest first; any script is fine, control characters and broken text are refused', async () => {
    const trk = await heldOrder();
    const first = expectOk(await asAlice(`/orders/${trk}/comments`, { text: '  asked the partner for KYC  ' }), 201).comment;
    assert.deepEqual([first.by, first.text], [alice.label, 'asked the partner for KYC']);
    const emoji = '✓'.repeat(499) + '🙂';
    expectOk(await asBob(`/orders/${trk}/comments`, { text: emoji }), 201);
    expectOk(await asBob(`/orders/${trk}/comments`, { text: 'Ärger — 名前 — ﷺ' }), 201);
    const shown = await listed(trk);
    assert.deepEqual(shown.comments.map((c) => [c.by, c.text]), [[alice.label, 'asked the partner for KYC'], [bob.label, emoji], [bob.label, 'Ärger — 名前 — ﷺ']]);

    const bad = async (body: unknown, field: string, raw?: string) => assert.equal(expectError(await call('POST', `/orders/${trk}/comments`, body, raw), 400, 'INVALID_REQUEST').details?.field, field, JSON.stringify(body) ?? raw);
    await bad({ text: 'two\nlines' }, 'text');
    await bad({ text: 'a\u0000b' }, 'text');
    await bad({ text: 'bell\u0007' }, 'text');
    await bad({ text: '   ' }, 'text');
    await bad({ text: '' }, 'text');
    await bad({ text: 'x'.repeat(501) }, 'text');
    await bad(undefined, 'text', '{"text": "half \\ud800 a pair"}');
    await bad({ text: 42 }, 'text');
    await bad({}, 'text');
    await bad({ text: 'ok', extra: 1 }, 'extra');
    assert.equal((await listed(trk)).comments.length, 3, 'nothing refused was kept');
  });

  test('a fund hold is claimed and commented on by its id; an unknown hold is 404, a malformed id 400', async () => {
    await holdFeeRecipient(t.db, 'payable:partner:acc_routes:Fee1111', 'usdc', 10n, { ...verdict, stage: 'fee', field: 'feeRecipientAddress', address: 'Fee1111' });
    const fund = (expectOk(await call('GET', '/holds')).fundHolds as { holdId: string; subject: string }[]).find((h) => h.subject === 'payable:partner:acc_routes:Fee1111')!;
    expectOk(await asBob(`/holds/${fund.holdId}/claim`));
    expectOk(await asBob(`/holds/${fund.holdId}/comments`, { text: 'a different entity' }), 201);
    const shown = (expectOk(await call('GET', '/holds')).fundHolds as { holdId: string; claim: { by: string }; comments: { text: string }[] }[]).find((h) => h.holdId === fund.holdId)!;
    assert.deepEqual([shown.claim.by, shown.comments.map((c) => c.text)], [bob.label, ['a different entity']]);

    expectError(await call('POST', '/orders/trk_1111111111111111111111/claim', {}), 404, 'NOT_FOUND');
    expectError(await call('POST', '/holds/987654321/comments', { text: 'x' }), 404, 'NOT_FOUND');
    expectError(await call('POST', '/holds/9999999999999999999/claim', {}), 404, 'NOT_FOUND');
    expectError(await call('POST', '/holds/12x/claim', {}), 400, 'INVALID_REQUEST');
    expectError(await call('POST', '/holds/1/claim', { takeOver: 'yes' }), 400, 'INVALID_REQUEST');
    expectError(await call('POST', '/holds/1/claim', undefined, '[1]'), 400, 'INVALID_REQUEST');
  });

  test('the history shows resolved holds newest first with who, when, the action, the note and the comments, a page at a time', async () => {
    const resolved: string[] = [];
    for (let i = 0; i < 3; i++) {
      const trk = await heldOrder();
      expectOk(await asAlice(`/orders/${trk}/comments`, { text: `looked at ${i}` }), 201);
      if (i === 1) {
        // A freeze takes four eyes: alice proposes, bob approves; the history names both.
        const proposed = expectOk(await asAlice(`/orders/${trk}/resolve`, { action: 'freeze', note: `because ${i}` }), 202);
        expectOk(await asBob(`/approvals/${proposed.approvalId}/approve`, { note: 'seen' }));
      } else expectOk(await asAlice(`/orders/${trk}/resolve`, { action: 'refund', note: `because ${i}` }));
      resolved.unshift(trk);
    }
    const first = expectOk(await call('GET', '/holds/history?limit=2'));
    assert.equal(first.items.length, 2);
    assert.deepEqual(first.items.map((h: { trackingId: string }) => h.trackingId), resolved.slice(0, 2), 'newest first');
    const top = first.items[0];
    assert.deepEqual([top.kind, top.action, top.resolvedBy, top.approvedBy, top.note, top.status, top.comments.map((c: { text: string }) => c.text)], ['order', 'refund', alice.label, null, 'because 2', 'refunding', ['looked at 2']]);
    const frozen = first.items[1];
    assert.deepEqual([frozen.action, frozen.resolvedBy, frozen.approvedBy, frozen.status], ['freeze', alice.label, bob.label, 'frozen']);
    assert.equal(first.next, first.items[1].historyId);
    const second = expectOk(await call('GET', `/holds/history?limit=2&before=${first.next}`));
    assert.equal(second.items[0].trackingId, resolved[2]);
    const seen = new Set([...first.items, ...second.items].map((h: { historyId: string }) => h.historyId));
    assert.equal(seen.size, first.items.length + second.items.length, 'no item twice');
    let cursor: string | null = second.next;
    for (let pages = 0; cursor !== null && pages < 20; pages++) cursor = expectOk(await call('GET', `/holds/history?limit=2&before=${cursor}`)).next;
    assert.equal(cursor, null, 'the last page says there is no next');

    for (const q of ['limit=0', 'limit=101', 'limit=abc', 'before=12', 'before=r0', 'before=r99999999999999999999', 'before=x1', 'other=1']) expectError(await call('GET', `/holds/history?${q}`), 400, 'INVALID_REQUEST');
    expectError(await call('GET', '/holds/history?before=r9223372036854775808'), 400, 'INVALID_REQUEST');
  });
});
