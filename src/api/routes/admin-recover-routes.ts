import type { FastifyInstance } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import { requireRole } from '../admin-actor.ts';
import type { RecoverService } from '../../admin/recover-service.ts';

/** `/admin/v1/recover` (docs/operations.md "store_behind_chain"): the chain check's pause, and its end by an approver. */
export async function adminRecoverRoutes(fastify: FastifyInstance, { recover }: { recover: RecoverService }) {
  const app = fastify.withTypeProvider<TypeBoxTypeProvider>();
  const hide = { hide: true };
  app.get('/recover', { schema: hide }, async () => ({ success: true, ...(await recover.status()) }));
  app.post(
    '/recover/resume',
    { schema: { ...hide, body: Type.Object({ seen: Type.Array(Type.String({ minLength: 1, maxLength: 100, pattern: '^[1-9A-HJ-NP-Za-km-z]+$' }), { maxItems: 10_000 }) }, { additionalProperties: false }) } },
    async (request) => {
      const actor = requireRole(request, 'approver');
      const out = await recover.resume(request.body.seen, actor.label);
      // Not resumed: transactions found since the operator looked are listed, to be read before resuming.
      return { success: true, resumed: out.resumed, by: actor.label, unseen: out.unseen };
    },
  );
}
