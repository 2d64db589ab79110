import type { FastifyInstance, FastifyRequest } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { AdminService } from '../../admin/admin-service.ts';
import { PartnerAccountService } from '../../admin/partner-account.ts';
import { webhookEgressFor } from '../../webhooks/webhook-egress.ts';
import type { ApiDeps } from '../deps.ts';
import { EmptyBody, OPERATION_ERRORS, documented, errorResponses as errors } from '../schemas.ts';
import {
  AccountResponse,
  CreateKeyBody,
  CreatedKeyResponse,
  KeyIdParams,
  RevokedKeyResponse,
  WebhookClearedResponse,
  WebhookSecretResponse,
  WebhookUrlBody,
} from '../schemas/account-schemas.ts';
import { DESCRIPTIONS } from './operation-descriptions.ts';
import { BEARER, caller, type PerKeyLimit } from './route-kit.ts';

/**
 * The partner's own account (docs/spec.md §4, "Self-service"), registered inside the partner scope (its
 * bearer-key hook covers these routes). All of them draw on the key's `account` bucket: rare operations,
 * a tight rate. Each change is logged at info with the account and the key that made it (the audit record).
 */
export async function accountRoutes(fastify: FastifyInstance, { deps, limit }: { deps: ApiDeps; limit: PerKeyLimit }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  // The operator's own service: one implementation of keys and webhooks for both; this process's
  // authentication cache forgets the account at once (other API processes within its 5 s).
  const admin = new AdminService(deps.db, { onAccountChanged: (id) => deps.auth.invalidate(id), webhookEgress: webhookEgressFor(deps.config), clock: deps.clock, random: deps.random });
  const account = new PartnerAccountService(deps.db, admin, deps.config.rateLimits, deps.clock);
  const config = limit('account');
  const tags = ['account'];
  const security = BEARER;

  const audit = (request: FastifyRequest, action: string, fields: Record<string, unknown> = {}) => {
    const who = caller(request);
    request.log.info({ audit: { action, accountId: who.account.id, byKeyId: who.keyId, ...fields } }, `self-service: ${action}`);
  };

  app.get(
    '/account',
    {
      config,
      exposeHeadRoute: false,
      schema: {
        operationId: 'getAccount',
        tags,
        summary: "The calling key's account: settings, keys, webhook, rate limits",
        description: DESCRIPTIONS.getAccount,
        security,
        response: { 200: documented(AccountResponse, 'The account as it is now'), ...errors(OPERATION_ERRORS.getAccount) },
      },
    },
    async (request) => ({ success: true as const, account: await account.view(caller(request)) }),
  );

  app.put(
    '/account/webhook',
    {
      config,
      schema: {
        operationId: 'setWebhook',
        tags,
        summary: 'Set the webhook URL; returns a new signing secret, once',
        description: DESCRIPTIONS.setWebhook,
        security,
        body: WebhookUrlBody,
        response: { 200: documented(WebhookSecretResponse, 'The webhook is set: store its secret now'), ...errors(OPERATION_ERRORS.setWebhook) },
      },
    },
    async (request) => {
      const set = await account.setWebhook(caller(request), request.body.url);
      audit(request, 'webhook.set', { url: set.url });
      return { success: true as const, ...set };
    },
  );

  app.delete(
    '/account/webhook',
    {
      config,
      schema: {
        operationId: 'clearWebhook',
        tags,
        summary: 'Remove the webhook: no more events',
        description: DESCRIPTIONS.clearWebhook,
        security,
        response: { 200: documented(WebhookClearedResponse, 'No webhook now'), ...errors(OPERATION_ERRORS.clearWebhook) },
      },
    },
    async (request) => {
      await account.clearWebhook(caller(request));
      audit(request, 'webhook.cleared');
      return { success: true as const };
    },
  );

  app.post(
    '/account/webhook/rotate-secret',
    {
      config,
      schema: {
        operationId: 'rotateWebhookSecret',
        tags,
        summary: 'A new webhook signing secret, once; the old one signs beside it for 24 h',
        description: DESCRIPTIONS.rotateWebhookSecret,
        security,
        body: EmptyBody,
        response: { 200: documented(WebhookSecretResponse, 'The new secret: store it now'), ...errors(OPERATION_ERRORS.rotateWebhookSecret) },
      },
    },
    async (request) => {
      const rotated = await account.rotateWebhookSecret(caller(request));
      audit(request, 'webhook.secret_rotated');
      return { success: true as const, ...rotated };
    },
  );

  app.post(
    '/account/keys',
    {
      config,
      schema: {
        operationId: 'createApiKey',
        tags,
        summary: 'A new API key for this account; its value is shown once',
        description: DESCRIPTIONS.createApiKey,
        security,
        body: CreateKeyBody,
        response: { 201: documented(CreatedKeyResponse, 'The new key: store it now'), ...errors(OPERATION_ERRORS.createApiKey) },
      },
    },
    async (request, reply) => {
      const created = await account.createKey(caller(request), request.body?.expiresInSeconds);
      audit(request, 'key.created', { keyId: created.key.keyId, expiresAt: created.key.expiresAt });
      return reply.code(201).send({ success: true as const, ...created });
    },
  );

  app.delete(
    '/account/keys/:keyId',
    {
      config,
      schema: {
        operationId: 'revokeApiKey',
        tags,
        summary: 'Revoke one of this account\'s keys (the one calling too); never its last active one',
        description: DESCRIPTIONS.revokeApiKey,
        security,
        params: KeyIdParams,
        response: { 200: documented(RevokedKeyResponse, 'The key, revoked'), ...errors(OPERATION_ERRORS.revokeApiKey) },
      },
    },
    async (request) => {
      const key = await account.revokeKey(caller(request), request.params.keyId);
      audit(request, 'key.revoked', { keyId: key.keyId, ownKey: key.current });
      return { success: true as const, key };
    },
  );
}
