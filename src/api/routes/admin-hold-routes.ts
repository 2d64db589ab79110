import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HushError } from '../../domain/errors.ts';
import { fundHoldRef, HISTORY_PAGE, MAX_COMMENT, orderHoldRef, type HoldRef, type NoteAuthor } from '../../admin/hold-notes-service.ts';
import type { AdminApi } from '../deps.ts';
import { actorOf, requireRole, type AdminActor } from '../admin-actor.ts';

/**
 * docs/spec.md §12 "Claims, comments, history", under /admin/v1 (registered by admin-routes.ts, inside its
 * authentication): claim a hold, end a claim, comment on a hold without resolving it — each for a resolver —
 * and read the history of resolved holds. An order's hold is named by its tracking id, a fund hold by its id.
 */

// A body is optional: no body (or `null`) is `{}`.
const ClaimBody = Type.Union([Type.Object({ takeOver: Type.Optional(Type.Boolean()) }, { additionalProperties: false }), Type.Null()]);
// The text's own rules (trimmed, 1–500 characters, no control character) are the service's: this only bounds it.
const CommentBody = Type.Object({ text: Type.String({ maxLength: MAX_COMMENT * 4 }) }, { additionalProperties: false });
const OrderParams = Type.Object({ trackingId: Type.String({ minLength: 1, maxLength: 64, pattern: '^[!-~]+$' }) });
const FundParams = Type.Object({ holdId: Type.String({ pattern: '^[1-9][0-9]{0,18}$' }) });
const HistoryQuery = Type.Object(
  { limit: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,2}$' })), before: Type.Optional(Type.String({ pattern: '^[rc][1-9][0-9]{0,18}$' })) },
  { additionalProperties: false },
);

/** Who a note is by: the person the request authenticated as (or the shared token), as the screening log names them. */
export const noteAuthor = (actor: AdminActor): NoteAuthor => ({ by: actor.label, operatorId: actor.operatorId });

export async function adminHoldRoutes(fastify: FastifyInstance, { admin }: { admin: AdminApi }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const hide = { hide: true };
  const notes = () => {
    if (!admin.holdNotes) throw new HushError('SERVICE_UNAVAILABLE', 'Holds are not available on this deployment');
    return admin.holdNotes;
  };

  // A viewer is refused before its body is read: what it sent is not judged for a write it may not make.
  const resolver = { onRequest: async (request: FastifyRequest) => void requireRole(request, 'resolver') };
  // The same three routes for either kind of hold.
  const kinds = [
    { path: '/orders/:trackingId', params: OrderParams, ref: (p: Record<string, string>): HoldRef => orderHoldRef(p.trackingId!) },
    { path: '/holds/:holdId', params: FundParams, ref: (p: Record<string, string>): HoldRef => fundHoldRef(p.holdId!) },
  ];
  for (const k of kinds) {
    app.post(`${k.path}/claim`, { ...resolver, schema: { ...hide, params: k.params, body: ClaimBody } }, async (request) => {
      const actor = requireRole(request, 'resolver');
      const claim = await notes().claim(k.ref(request.params as Record<string, string>), noteAuthor(actor), request.body?.takeOver === true);
      return { success: true, claim };
    });
    app.post(`${k.path}/unclaim`, { ...resolver, schema: { ...hide, params: k.params, body: ClaimBody } }, async (request) => {
      const actor = requireRole(request, 'resolver');
      return { success: true, claim: await notes().unclaim(k.ref(request.params as Record<string, string>), noteAuthor(actor), request.body?.takeOver === true) };
    });
    app.post(`${k.path}/comments`, { ...resolver, schema: { ...hide, params: k.params, body: CommentBody } }, async (request, reply) => {
      const actor = requireRole(request, 'resolver');
      const comment = await notes().comment(k.ref(request.params as Record<string, string>), noteAuthor(actor), request.body.text);
      return reply.code(201).send({ success: true, comment });
    });
  }

  app.get('/holds/history', { schema: { ...hide, querystring: HistoryQuery } }, async (request) => {
    actorOf(request);
    const limit = request.query.limit === undefined ? HISTORY_PAGE.default : Number(request.query.limit);
    if (limit > HISTORY_PAGE.max) throw new HushError('INVALID_REQUEST', `limit must be 1–${HISTORY_PAGE.max}`, { field: 'limit' });
    return { success: true, ...(await notes().history(limit, request.query.before)) };
  });
}
