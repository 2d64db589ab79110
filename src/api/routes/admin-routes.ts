import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { HushError } from '../../domain/errors.ts';
import { normalizeIP } from '@fastify/rate-limit';
import type { AdminApi } from '../deps.ts';
import { AdminThrottle } from '../admin-throttle.ts';
import { AUTOMATION, setActor } from '../admin-actor.ts';
import type { Clock } from '../../support/clock.ts';
import { MAX_WEBHOOK_URL_LENGTH, webhookView } from '../../admin/admin-service.ts';
import { adminLogRoutes, inWords } from './admin-log-routes.ts';
import { HOLDS_WORDS, HoldsQuery, holdsAnswer, holdsPageOf } from '../../admin/holds-query.ts';

/** An operator's answer to a hold, an order's or a fund hold's (docs/spec.md §12). */
const Resolution = Type.Object(
  {
    action: Type.Union([Type.Literal('release'), Type.Literal('refund'), Type.Literal('freeze')]),
    note: Type.String({ minLength: 1, maxLength: 500 }),
    // Who resolved it, for the screening log (the token says only that it was an operator).
    operator: Type.Optional(Type.String({ minLength: 1, maxLength: 100, pattern: '^[!-~ ]+$' })),
  },
  { additionalProperties: false },
);


const digest = (s: string) => createHash('sha256').update(s).digest();

export interface AdminRouteOptions {
  /** HUSH_ADMIN_TOKEN. */
  token: string;
  admin: AdminApi;
  /** Drops what this process cached about an account (its keys' authentication), if it caches any. */
  afterChange?: (accountId?: string) => void;
  throttle?: AdminThrottle;
  /** Where the failed attempts' buckets refill. */
  clock: Pick<Clock, 'now'>;
}

/** `/admin/v1` on the ops listener, present only when HUSH_ADMIN_TOKEN is set (docs/spec.md §3). */
export async function adminRoutes(fastify: FastifyInstance, { token, admin, afterChange: changed, throttle = new AdminThrottle(), clock }: AdminRouteOptions) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const expected = digest(token);
  app.addHook('onRequest', async (request, reply) => {
    // Answers about holds, accounts and keys are for the operator who asked: no cache keeps them.
    reply.header('cache-control', 'no-store');
    const m = /^Bearer (.+)$/i.exec(request.headers.authorization ?? '');
    // Hashing both sides makes the comparison constant-time whatever the presented length.
    if (m && timingSafeEqual(digest(m[1]!), expected)) return setActor(request, AUTOMATION);
    // The right token always passes: wrong ones are throttled per address (an IPv6 /56 as one; the ops listener
    // trusts no X-Forwarded-For), so a guesser behind the operator's proxy or bastion never locks the operator
    // out. That a throttled guesser would learn it found the token tells it nothing its success would not, and
    // 32 random bytes are not found at ten guesses a minute.
    const source = normalizeIP(request.ip, 56);
    const wait = throttle.retryAfterS(source, clock.now());
    if (wait > 0) throw new HushError('RATE_LIMITED', 'Too many failed admin attempts from this address; wait and retry', undefined, { retryAfterSeconds: wait });
    // A request with no credentials guesses nothing: only a presented token counts as a failed attempt.
    if (request.headers.authorization !== undefined) throttle.failed(source, clock.now());
    throw new HushError('UNAUTHORIZED', 'Missing or invalid admin token');
  });
  const afterChange = (accountId?: string) => changed?.(accountId);
  // Ids and addresses are printable ASCII; anything else (a NUL, which PostgreSQL text cannot hold) is
  // refused here rather than failing in the store.
  const Id = Type.String({ minLength: 1, maxLength: 64, pattern: '^[!-~]+$' });
  const AccountId = Type.Object({ accountId: Id });
  const hide = { hide: true };

  app.post('/accounts', { schema: { ...hide, body: Type.Object({ name: Type.String({ minLength: 1, maxLength: 100 }), feeCapBps: Type.Optional(Type.Integer()) }, { additionalProperties: false }) } }, async (request, reply) => {
    const created = await admin.createAccount(request.body.name, request.body.feeCapBps);
    return reply.code(201).send({ success: true, ...created });
  });
  app.get('/accounts', { schema: hide }, async () => ({ success: true, accounts: await admin.listAccounts() }));
  app.get('/accounts/:accountId', { schema: { ...hide, params: AccountId } }, async (request) => ({ success: true, account: await admin.showAccount(request.params.accountId) }));
  app.patch(
    '/accounts/:accountId',
    {
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
    { schema: { ...hide, params: AccountId, body: Type.Union([Type.Object({ expiresAt: Type.Optional(Type.String({ format: 'date-time' })) }, { additionalProperties: false }), Type.Null()]) } },
    async (request, reply) => {
      const expiresAt = request.body?.expiresAt ? new Date(request.body.expiresAt) : undefined;
      const created = await admin.createKey(request.params.accountId, expiresAt);
      return reply.code(201).send({ success: true, ...created });
    },
  );
  app.delete('/keys/:keyId', { schema: { ...hide, params: Type.Object({ keyId: Id }) } }, async (request) => {
    await admin.revokeKey(request.params.keyId);
    afterChange();
    return { success: true };
  });
  app.post(
    '/accounts/:accountId/fee-recipients',
    { schema: { ...hide, params: AccountId, body: Type.Object({ address: Type.String({ maxLength: 64 }) }, { additionalProperties: false }) } },
    async (request) => {
      await admin.registerFeeRecipient(request.params.accountId, request.body.address);
      afterChange(request.params.accountId);
      return { success: true };
    },
  );
  app.delete(
    '/accounts/:accountId/fee-recipients/:address',
    { schema: { ...hide, params: Type.Object({ accountId: Id, address: Id }) } },
    async (request) => {
      await admin.unregisterFeeRecipient(request.params.accountId, request.params.address);
      afterChange(request.params.accountId);
      return { success: true };
    },
  );
  app.put(
    '/accounts/:accountId/webhook',
    { schema: { ...hide, params: AccountId, body: Type.Object({ url: Type.String({ maxLength: MAX_WEBHOOK_URL_LENGTH }) }, { additionalProperties: false }) } },
    async (request) => webhookView(await admin.setWebhook(request.params.accountId, request.body.url)),
  );
  app.delete('/accounts/:accountId/webhook', { schema: { ...hide, params: AccountId } }, async (request) => {
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
  app.post('/orders/:trackingId/return-stray', { schema: { ...hide, params: Type.Object({ trackingId: Id }) } }, async (request) => {
    if (!admin.returnStray) throw new HushError('SERVICE_UNAVAILABLE', 'Returning stray funds is not available on this deployment');
    return { success: true, ...(await admin.returnStray(request.params.trackingId)) };
  });
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
    return { success: true, ...(await holdsAnswer(admin, holdsPageOf(request.query))) };
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
    async (request) => {
      if (!admin.resolveFundHold) throw new HushError('SERVICE_UNAVAILABLE', 'Holds are not available on this deployment');
      const { action, note, operator } = request.body;
      return { success: true, ...(await admin.resolveFundHold(request.params.holdId, action, note, `operator:${operator ?? 'admin-api'}`)) };
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
    async (request) => {
      if (!admin.resolveHold) throw new HushError('SERVICE_UNAVAILABLE', 'Holds are not available on this deployment');
      const { action, note, operator } = request.body;
      return { success: true, ...(await admin.resolveHold(request.params.trackingId, action, note, `operator:${operator ?? 'admin-api'}`)) };
    },
  );
}
