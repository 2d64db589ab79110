import type { FastifyInstance } from 'fastify';
import { ChainUnavailableError } from '../chain/json-rpc.ts';
import { runInLane } from '../chain/rpc-lane.ts';

/**
 * Every chain call a request causes waits in the request budget's API lane (src/chain/rpc-budget.ts), so
 * partners' reads never hold up settlement, and is dropped from the queue once the client has closed the
 * connection (it would only answer no one). Bound in preHandler, whose `done` runs the handler: the
 * async context of earlier hooks is lost across body parsing (stream events run in the socket's context).
 */
export function chainCallsInApiLane(app: FastifyInstance): void {
  app.addHook('preHandler', (_request, reply, done) => {
    const gone = new AbortController();
    reply.raw.once('close', () => {
      if (!reply.raw.writableEnded) gone.abort(new ChainUnavailableError('the client closed the request before its chain call went out'));
    });
    runInLane('api', done, gone.signal);
  });
}
