import type { FastifyReply } from 'fastify';
import { ChainUnavailableError } from '../chain/json-rpc.ts';
import type { LaneContext } from '../chain/rpc-lane.ts';

/**
 * The lane of the chain calls a request makes (src/chain/rpc-lane.ts): the request budget's API lane, so
 * partners' reads never hold up settlement, with a "client gone" signal so a call still waiting for a turn
 * is dropped once the client has closed the connection (it would only answer no one). The signal is made
 * on first use: most requests (a quote, a status) make no chain call, and an AbortController with its
 * close listener per request was ~3.5 % of a quote's CPU (issue 56, docs/performance.md). A signal first
 * asked for after the client has gone is aborted at once, as the listener would have aborted it then.
 */
export function requestLane(reply: FastifyReply): LaneContext {
  const res = reply.raw;
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
