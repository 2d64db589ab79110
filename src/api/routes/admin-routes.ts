import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HushError } from '../../domain/errors.ts';
import type { AdminApi } from '../deps.ts';
import { AdminThrottle } from '../admin-throttle.ts';
import { requireRole } from '../admin-actor.ts';
import { adminAuthentication } from '../admin-auth.ts';
import { personalTokenId } from '../../admin/operators-service.ts';
import { adminOperatorRoutes } from './admin-operator-routes.ts';
import type { Clock } from '../../support/clock.ts';
import { MAX_WEBHOOK_URL_LENGTH, webhookView } from '../../admin/admin-service.ts';
import { adminLogRoutes, inWords } from './admin-log-routes.ts';
import { HOLDS_WORDS, HoldsQuery, holdsAnswer, holdsPageOf } from '../../admin/holds-query.ts';
import { adminHoldRoutes } from './admin-hold-routes.ts';
import { adminRecoverRoutes } from './admin-recover-routes.ts';

/** An operator's answer to a hold, an order's or a fund hold's (docs/spec.md §12). */
const Resolution = Type.Object(
  {
    action: Type.Union([Type.Literal('release'), Type.Literal('refund'), Type.Literal('freeze')]),
    note: Type.String({ minLength: 1, maxLength: 500 }),
    // Ignored, and kept only so an older client is not refused: the log names the authenticated person (issue 70).
    operator: Type.Optional(Type.String({ maxLength: 100 })),
  },
  { additionalProperties: false },
);

export interface AdminRouteOptions {
  /** HUSH_ADMIN_TOKEN. */
  token: string;
  admin: AdminApi;
  /** Drops what this process cached about an account (its keys' authentication), if it caches any. */
  afterChange?: (accountId?: string) => void;
  throttle?: AdminThrottle;
  /** Where the failed attempts' buckets refill. */
  clock: Pick<Clock, 'now' | 'date'>;
  /** Single sign-on configured: then nobody issues a personal token in another's name. */
  sso?: boolean;
}

/** `/admin/v1` on the ops listener, present only when HUSH_ADMIN_TOKEN is set (docs/spec.md §3, §12). */
export async function adminRoutes(fastify: FastifyInstance, { token, admin, afterChange: changed, throttle = new AdminThrottle(), clock, sso = false }: AdminRouteOptions) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const ops = admin.operators;
  app.addHook(
    'onRequest',
    adminAuthentication(
      { token, ...(ops ? { byToken: (t: string) => ops.byToken(t), bySession: (c: string, active: boolean) => ops.bySession(c, active), tokenId: personalTokenId } : {}) },
      clock,
      throttle,
    ),
  );
  // Accounts, keys, fee recipients, webhooks and stray funds change what partners can do: a manager's (an
  // approver, or the deployment's automation), never a resolver's alone.
  const manager = { onRequest: async (request: FastifyRequest) => void requireRole(request, 'manager') };
  const afterChange = (accountId?: string) => changed?.(accountId);
  // Ids and addresses are printable ASCII; anything else (a NUL, which PostgreSQL text cannot hold) is
  // refused here rather than failing in the store.
  const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[!-~]+$' });
  const AccountId = Type.Object({ accountId: Id });
  const hide = { hide: true };

  app.post('/accounts', { ...manager, schema: { ...hide, body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), feeCapBps: Type.Optional(Type.Integer()) }, { additionalProperties: false }) } }, async (request, reply) => {
    const created = await admin.createAccount(request.body.name, request.body.feeCapBps);
    return reply.code(201).send({ success: true, ...created });
  });
  app.get('/accounts', { schema: hide }, async () => ({ success: true, accounts: await admin.listAccounts() }));
  app.get('/accounts/:accountId', { schema: { ...hide, params: AccountId } }, async (request) => ({ success: true, account: await admin.showAccount(request.params.accountId) }));
  app.patch(
    '/accounts/:accountId',
    {
      ...manager,
      schema: {
        ...hide,
        params: AccountId,
        body: Type.Object({ feeCapBps: Type.Optional(Type.Integer()), status: Type.Optional(Type.Union([Type.Literal('active'), Type.Literal('suspended')])) }, { additionalProperties: false }),
      },
    },
    async (request) => {
      const account = await admin.updateAccount(request.params.accountId, request.body);
      afterChange(request.params.accountId);
      return { success: true, account };
    },
  );
  app.post(
    '/accounts/:accountId/keys',
    { ...manager, schema: { ...hide, params: AccountId, body: Type.Union([Type.Object({ expiresAt: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false }), Type.Null()]) } },
    async (request, reply) => {
      const expiresAt = request.body?.expiresAt ? new Date(request.body.expiresAt) : undefined;
      const created = await admin.createKey(request.params.accountId, expiresAt);
      return reply.code(201).send({ success: true, ...created });
    },
  );
  app.delete('/keys/:keyId', { ...manager, schema: { ...hide, params: Type.Object({ keyId: Id }) } }, async (request) => {
    await admin.revokeKey(request.params.keyId);
    afterChange();
    return { success: true };
  });
  app.post(
    '/accounts/:accountId/fee-recipients',
    { ...manager, schema: { ...hide, params: AccountId, body: Type.Object({ address: Type.String({ maxLength: 64 }) }, { additionalProperties: false }) } },
    async (request) => {
      await admin.registerFeeRecipient(request.params.accountId, request.body.address);
      afterChange(request.params.accountId);
      return { success: true };
    },
  );
  app.delete(
    '/accounts/:accountId/fee-recipients/:address',
    { ...manager, schema: { ...hide, params: Type.Object({ accountId: Id, address: Id }) } },
    async (request) => {
      await admin.unregisterFeeRecipient(request.params.accountId, request.params.address);
      afterChange(request.params.accountId);
      return { success: true };
    },
  );
  app.put(
    '/accounts/:accountId/webhook',
    { ...manager, schema: { ...hide, params: AccountId, body: Type.Object({ url: Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH }) }, { additionalProperties: false }) } },
    async (request) => webhookView(await admin.setWebhook(request.params.accountId, request.body.url)),
  );
  app.delete('/accounts/:accountId/webhook', { ...manager, schema: { ...hide, params: AccountId } }, async (request) => {
    await admin.clearWebhook(request.params.accountId);
    return { success: true };
  });
  app.get('/treasury', { schema: hide }, async () => {
    if (!admin.treasury) throw new HushError('SERVICE_UNAVAILABLE', 'Treasury report is not available on this deployment');
    return { success: true, ...(await admin.treasury()) };
  });
  app.get('/reconcile', { schema: hide }, async () => {
    if (!admin.reconcile) throw new HushError('SERVICE_UNAVAILABLE', 'Reconciliation is not available on this deployment');
    return { success: true, ...(await admin.reconcile()) };
  });
  app.post('/orders/:trackingId/return-stray', { ...manager, schema: { ...hide, params: Type.Object({ trackingId: Id }) } }, async (request) => {
    if (!admin.returnStray) throw new HushError('SERVICE_UNAVAILABLE', 'Returning stray funds is not available on this deployment');
    return { success: true, ...(await admin.returnStray(request.params.trackingId)) };
  });
  if (admin.recover) await app.register(adminRecoverRoutes, { recover: admin.recover });
  // The screening log, filtered, paged and exported (issue 70): its own file.
  await app.register(adminLogRoutes, { admin, clock });
  app.get('/liquidity', { schema: hide }, async () => {
    if (!admin.liquidity) throw new HushError('SERVICE_UNAVAILABLE', 'Liquidity is not available on this deployment');
    return { success: true, assets: await admin.liquidity() };
  });
  app.get('/privacy', { schema: hide }, async () => {
    if (!admin.privacy) throw new HushError('SERVICE_UNAVAILABLE', 'The privacy report is not available on this deployment');
    return { success: true, ...(await admin.privacy()) };
  });
  app.get('/holds', { schema: { ...hide, querystring: HoldsQuery }, schemaErrorFormatter: inWords(HOLDS_WORDS) }, async (request) => {
    // Narrowed and paged (issue 70): src/admin/holds-query.ts.
    const [page, awaiting] = await Promise.all([holdsAnswer(admin, holdsPageOf(request.query)), admin.approvals?.awaiting() ?? []]);
    // A proposal awaiting a second operator is shown on its hold (issue 70: "awaiting approval").
    const byOrder = new Map(awaiting.filter((a) => a.trackingId).map((a) => [a.trackingId, a]));
    const byFund = new Map(awaiting.filter((a) => a.fundHoldId).map((a) => [a.fundHoldId, a]));
    return {
      success: true,
      ...page,
      holds: page.holds.map((h) => ({ ...h, approval: byOrder.get(h.trackingId) ?? null })),
      fundHolds: page.fundHolds.map((h) => ({ ...h, approval: byFund.get(h.holdId) ?? null })),
    };
  });
  app.post(
    '/holds/:holdId/resolve',
    {
      schema: {
        ...hide,
        params: Type.Object({ holdId: Type.String({ pattern: '^[1-9][0-9]{0,18}$' }) }),
        body: Resolution,
      },
    },
    async (request, reply) => {
      if (!admin.approvals) throw new HushError('SERVICE_UNAVAILABLE', 'Holds are not available on this deployment');
      const done = await admin.approvals.resolveFunds(request.params.holdId, request.body.action, request.body.note, requireRole(request, 'resolver'));
      return reply.code(done.status === 'awaiting_approval' ? 202 : 200).send({ success: true, ...done });
    },
  );
  app.post(
    '/orders/:trackingId/resolve',
    {
      schema: {
        ...hide,
        params: Type.Object({ trackingId: Id }),
        body: Resolution,
      },
    },
    async (request, reply) => {
      if (!admin.approvals) throw new HushError('SERVICE_UNAVAILABLE', 'Holds are not available on this deployment');
      const done = await admin.approvals.resolveOrder(request.params.trackingId, request.body.action, request.body.note, requireRole(request, 'resolver'));
      return reply.code(done.status === 'awaiting_approval' ? 202 : 200).send({ success: true, ...done });
    },
  );
  await app.register(adminOperatorRoutes, { admin, sso });
  // Claims, comments and the history of holds: a file of their own, behind the authentication above.
  await app.register(adminHoldRoutes, { admin });
}
