import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HushError } from '../../domain/errors.ts';
import type { AdminApi } from '../deps.ts';
import { actorOf, requireRole, type AdminActor } from '../admin-actor.ts';

const hide = { hide: true };
const OperatorId = Type.String({ pattern: '^op_[a-z2-9]{12}$' });
const Role = Type.Union([Type.Literal('viewer'), Type.Literal('resolver'), Type.Literal('approver')]);
// Text the store keeps: never a NUL (PostgreSQL text cannot hold one: a store error, a 500); a label or a subject is one line.
const NO_NUL = '^[^\\u0000]*$';
const ONE_LINE = '^[^\\u0000-\\u001f\\u007f]+$';
const Decision = Type.Union([Type.Object({ note: Type.Optional(Type.String({ minLength: 1, maxLength: 500, pattern: NO_NUL })) }, { additionalProperties: false }), Type.Null()]);
const Label = Type.String({ minLength: 1, maxLength: 100, pattern: ONE_LINE });

/**
 * docs/spec.md §12 "Named operators" and "Four eyes" under /admin/v1: who am I, my personal tokens, the
 * operators (registered by the deployment's automation), and the proposals awaiting a second operator.
 */
export async function adminOperatorRoutes(fastify: FastifyInstance, { admin, sso }: { admin: AdminApi; sso: boolean }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const operators = () => {
    if (!admin.operators) throw new HushError('SERVICE_UNAVAILABLE', 'Named operators are not available on this deployment');
    return admin.operators;
  };
  const approvals = () => {
    if (!admin.approvals) throw new HushError('SERVICE_UNAVAILABLE', 'Holds are not available on this deployment');
    return admin.approvals;
  };
  const named = (actor: AdminActor): string => {
    if (actor.operatorId === null) throw new HushError('FORBIDDEN', 'The shared admin token is no person: personal tokens belong to a named operator', { role: actor.role });
    return actor.operatorId;
  };

  app.get('/me', { schema: hide }, async (request) => {
    const a = actorOf(request);
    return { success: true, operator: { kind: a.kind, operatorId: a.operatorId, name: a.name, role: a.role, logsAs: a.label }, sessionIdleSeconds: admin.operators?.sessionIdleS ?? null };
  });
  app.get('/me/tokens', { schema: hide }, async (request) => ({ success: true, tokens: await operators().tokens(named(actorOf(request))) }));
  // A viewer's own tokens are theirs to make and revoke (a CLI that only reads).
  const viewerMay = { config: { viewerMay: true } };
  app.post(
    '/me/tokens',
    { ...viewerMay, schema: { ...hide, body: Type.Union([Type.Object({ label: Type.Optional(Label), expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 })) }, { additionalProperties: false }), Type.Null()]) } },
    async (request, reply) => {
      const t = await operators().mintToken(named(actorOf(request)), { label: request.body?.label ?? null, expiresInDays: request.body?.expiresInDays ?? 90 });
      return reply.code(201).send({ success: true, ...t });
    },
  );
  app.delete('/me/tokens/:tokenId', { ...viewerMay, schema: { ...hide, params: Type.Object({ tokenId: Type.String({ pattern: '^[a-z2-9]{12}$' }) }) } }, async (request) => ({
    success: true,
    token: await operators().revokeToken(named(actorOf(request)), request.params.tokenId),
  }));

  app.get('/operators', { schema: hide }, async () => ({ success: true, operators: await operators().list() }));
  app.post(
    '/operators',
    {
      schema: {
        ...hide,
        body: Type.Object(
          { name: Type.String({ minLength: 1, maxLength: 400 }), role: Role, email: Type.Optional(Type.String({ format: 'email', maxLength: 254 })), subject: Type.Optional(Type.String({ minLength: 1, maxLength: 255, pattern: ONE_LINE })) },
          { additionalProperties: false },
        ),
      },
    },
    async (request, reply) => {
      requireRole(request, 'manager');
      return reply.code(201).send({ success: true, operator: await operators().create(request.body) });
    },
  );
  app.patch(
    '/operators/:operatorId',
    { schema: { ...hide, params: Type.Object({ operatorId: OperatorId }), body: Type.Object({ role: Type.Optional(Role), disabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }) } },
    async (request) => {
      const actor = requireRole(request, 'manager');
      if (actor.operatorId === request.params.operatorId) throw new HushError('FORBIDDEN', 'An operator does not change their own role or access', { role: actor.role });
      return { success: true, operator: await operators().update(request.params.operatorId, request.body) };
    },
  );

  // Without single sign-on, the deployment's automation issues an operator's first token (a CLI-only team, or
  // `npm start` on embedded defaults): there, identities are as strong as the shared token. With it, a person
  // signs in and creates their own, and nobody mints a token in another's name.
  app.post(
    '/operators/:operatorId/tokens',
    { schema: { ...hide, params: Type.Object({ operatorId: OperatorId }), body: Type.Union([Type.Object({ label: Type.Optional(Label), expiresInDays: Type.Optional(Type.Integer({ minimum: 1, maximum: 366 })) }, { additionalProperties: false }), Type.Null()]) } },
    async (request, reply) => {
      const actor = actorOf(request);
      if (actor.kind !== 'automation') throw new HushError('FORBIDDEN', "Only the deployment's automation issues a token in another's name", { role: actor.role });
      if (sso) throw new HushError('FORBIDDEN', 'Single sign-on is configured: the operator signs in to the console and creates their own token', { role: actor.role });
      const t = await operators().mintToken(request.params.operatorId, { label: request.body?.label ?? null, expiresInDays: request.body?.expiresInDays ?? 90 });
      return reply.code(201).send({ success: true, ...t });
    },
  );

  app.get('/approvals', { schema: hide }, async () => ({ success: true, approvals: await approvals().awaiting() }));
  const ApprovalId = Type.Object({ approvalId: Type.String({ pattern: '^[1-9][0-9]{0,18}$' }) });
  app.post('/approvals/:approvalId/approve', { schema: { ...hide, params: ApprovalId, body: Decision } }, async (request) => ({
    success: true,
    ...(await approvals().approve(request.params.approvalId, requireRole(request, 'approver'), request.body?.note?.trim() || null)),
  }));
  app.post('/approvals/:approvalId/reject', { schema: { ...hide, params: ApprovalId, body: Decision } }, async (request) => ({
    success: true,
    ...(await approvals().reject(request.params.approvalId, requireRole(request, 'resolver'), request.body?.note?.trim() || null)),
  }));
}
