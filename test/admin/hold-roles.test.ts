/**
 * Who may claim and comment (docs/spec.md §12 "Claims, comments, history"): a resolver (and the shared token, which
 * ranks as one); a viewer reads the history but is refused 403 FORBIDDEN before anything is written. Today only the
 * shared token signs in, so the routes are mounted here behind a stand-in for the authentication hook that attaches
 * the actor the test names (src/api/admin-actor.ts's `setActor`, as the real hook does).
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import Fastify, { type FastifyRequest } from 'fastify';
import { AUTOMATION, operatorActor, requireRole, setActor, type AdminActor } from '../../src/api/admin-actor.ts';
import { installErrorHandling } from '../../src/api/error-handler.ts';
import { installJsonBody } from '../../src/api/json-body.ts';
import { adminHoldRoutes, noteAuthor } from '../../src/api/routes/admin-hold-routes.ts';
import type { AdminApi } from '../../src/api/deps.ts';
import { isHushError } from '../../src/domain/errors.ts';

const person = (role: 'viewer' | 'resolver' | 'approver', name: string): AdminActor => operatorActor({ operatorId: `op_${name}`, name, role });

/** The hold routes with `actor` attached to every request, and what reached the service. */
async function routesAs(actor: AdminActor) {
  const calls: string[] = [];
  const holdNotes: NonNullable<AdminApi['holdNotes']> = {
    claim: async (ref, author) => (calls.push(`claim ${JSON.stringify(ref)} ${author.by} ${author.operatorId}`), { by: author.by, operatorId: author.operatorId, at: '2026-11-28T10:00:00.000Z' }),
    unclaim: async () => (calls.push('unclaim'), null),
    comment: async (_ref, author, text) => (calls.push(`comment ${author.by}`), { id: '1', by: author.by, operatorId: author.operatorId, text: String(text), at: '2026-11-28T10:00:00.000Z' }),
    history: async () => (calls.push('history'), { items: [], next: null }),
  };
  // The ops app's validation (src/api/ops-app.ts): nothing removed or coerced.
  const app = Fastify({ ajv: { customOptions: { removeAdditional: false, coerceTypes: false, useDefaults: false, allErrors: false } } });
  installJsonBody(app);
  installErrorHandling(app);
  app.addHook('onRequest', async (request) => setActor(request, actor));
  await app.register(adminHoldRoutes, { prefix: '/admin/v1', admin: { holdNotes } as unknown as AdminApi });
  return { app, calls };
}

describe('roles on claims and comments', () => {
  test('requireRole: a viewer is refused the resolver role with FORBIDDEN {role}; a resolver, an approver and the shared token pass', () => {
    const asking = (actor: AdminActor) => {
      const request = {} as FastifyRequest;
      setActor(request, actor);
      return request;
    };
    assert.throws(() => requireRole(asking(person('viewer', 'vic')), 'resolver'), (e) => isHushError(e, 'FORBIDDEN') && e.httpStatus === 403 && (e.details as { role: string }).role === 'viewer');
    for (const ok of [person('resolver', 'rita'), person('approver', 'abe'), AUTOMATION]) assert.equal(requireRole(asking(ok), 'resolver'), ok);
    assert.throws(() => requireRole({} as FastifyRequest, 'resolver'), (e) => isHushError(e, 'UNAUTHORIZED'), 'no actor attached: not signed in');
  });

  test('a viewer cannot claim, unclaim or comment (403 FORBIDDEN, nothing reaches the service) but reads the history', async () => {
    const { app, calls } = await routesAs(person('viewer', 'vic'));
    try {
      for (const url of ['/admin/v1/orders/trk_1111111111111111111111/claim', '/admin/v1/orders/trk_1111111111111111111111/unclaim', '/admin/v1/holds/7/claim', '/admin/v1/holds/7/comments']) {
        // A body the route would refuse (400) as well: the role is judged first.
        const res = await app.inject({ method: 'POST', url, payload: { text: 'a note' } });
        assert.equal(res.statusCode, 403, url);
        assert.deepEqual([res.json().error.code, res.json().error.details], ['FORBIDDEN', { role: 'viewer' }], url);
      }
      assert.deepEqual(calls, [], 'nothing written');
      const history = await app.inject({ method: 'GET', url: '/admin/v1/holds/history' });
      assert.equal(history.statusCode, 200);
      assert.deepEqual(calls, ['history']);
    } finally {
      await app.close();
    }
  });

  test("a named resolver's notes are theirs, as the log names them; the shared token's are the token's", async () => {
    const rita = person('resolver', 'rita');
    const { app, calls } = await routesAs(rita);
    try {
      const res = await app.inject({ method: 'POST', url: '/admin/v1/holds/7/claim', payload: { takeOver: false } });
      assert.equal(res.statusCode, 200);
      assert.equal(res.json().claim.by, 'operator:rita (op_rita)');
      assert.deepEqual(calls, ['claim {"kind":"fund","holdId":"7"} operator:rita (op_rita) op_rita']);
    } finally {
      await app.close();
    }
    assert.deepEqual(noteAuthor(AUTOMATION), { by: 'admin-token', operatorId: null });
  });
});
