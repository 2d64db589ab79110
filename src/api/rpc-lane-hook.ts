import type { FastifyInstance } from 'fastify';
import type { ServerResponse } from 'node:http';
import { ChainUnavailableError } from '../chain/json-rpc.ts';
import { runInLaneContext, type LaneContext } from '../chain/rpc-lane.ts';

/**
 * The API lane's context for one request, its "client gone" signal made on first use: most requests (a
 * quote, a status) make no chain call, and an AbortController with its close listener per request was
 * ~3.5 % of a quote's CPU (issue 56, docs/performance.md). A signal first asked for after the client has
 * gone is aborted at once, as the listener would have aborted it then.
 */
function apiLane(res: ServerResponse): LaneContext {
  let gone: AbortController | undefined;
  return {
    lane: 'api',
    get signal() {
      if (!gone) {
        const controller = (gone = new AbortController());
        const abort = () => {
          if (!res.writableEnded) controller.abort(new ChainUnavailableError('the client closed the request before its chain call went out'));
        };
        if (res.closed) abort();
        else res.once('close', abort);
      }
      return gone.signal;
    },
  };
}

/**
 * Every chain call a request causes waits in the request budget's API lane (src/chain/rpc-budget.ts), so
 * partners' reads never hold up settlement, and is dropped from the queue once the client has closed the
 * connection (it would only answer no one). Bound in preHandler, whose `done` runs the handler: the
 * async context of earlier hooks is lost across body parsing (stream events run in the socket's context).
 */
export function chainCallsInApiLane(app: FastifyInstance): void {
  app.addHook('preHandler', (_request, reply, done) => {
    runInLaneContext(apiLane(reply.raw), done);
  });
}
