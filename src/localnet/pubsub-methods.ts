import { accountEncodingOf } from './account-encoding.ts';
import { parseFilters } from './account-filters.ts';
import { base58Decode } from './base58-cache.ts';
import type { PubSubClient, PubSubHub, Sub } from './pubsub-hub.ts';
import { asAddress, asBool, checkParamCount, commitmentOf, config, invalidParams, param, RpcError, INVALID_PARAMS } from './rpc-params.ts';

type PubSubMethod = (hub: PubSubHub, client: PubSubClient, params: unknown[]) => unknown;

function asSignature(v: unknown): string {
  try {
    if (typeof v === 'string' && v.length >= 64 && v.length <= 88 && base58Decode(v).length === 64) return v;
  } catch {
    // not base58: the same answer as a wrong length
  }
  throw new RpcError(INVALID_PARAMS, 'Invalid param: Invalid signature');
}

function unsubscribe(kind: Sub['kind']): PubSubMethod {
  return (hub, client, params) => {
    checkParamCount(params, 1);
    const id = param(params, 0, 'subscriptionId');
    if (typeof id !== 'number' || !Number.isSafeInteger(id) || id < 0) throw invalidParams('invalid type: expected a subscription id (u64)');
    if (!hub.remove(client, id, kind)) throw new RpcError(INVALID_PARAMS, 'Invalid subscription id.');
    return true;
  };
}

/** The Solana PubSub methods this node serves; parameters are checked as the HTTP methods check theirs. */
export const pubsubMethods: Record<string, PubSubMethod> = {
  slotSubscribe(hub, client, params) {
    checkParamCount(params, 0);
    return hub.add(client, { kind: 'slot' });
  },
  slotUnsubscribe: unsubscribe('slot'),

  accountSubscribe(hub, client, params) {
    checkParamCount(params, 2);
    const address = asAddress(param(params, 0, 'pubkey'));
    const cfg = config(params, 1, ['commitment', 'encoding', 'dataSlice', 'minContextSlot']);
    const commitment = commitmentOf(cfg);
    const encoding = accountEncodingOf(cfg, 'binary');
    return hub.add(client, { kind: 'account', address, commitment, encoding, cfg });
  },
  accountUnsubscribe: unsubscribe('account'),

  signatureSubscribe(hub, client, params) {
    checkParamCount(params, 2);
    const signature = asSignature(param(params, 0, 'signature'));
    const cfg = config(params, 1, ['commitment', 'enableReceivedNotification']);
    const received = cfg.enableReceivedNotification === undefined ? false : asBool(cfg.enableReceivedNotification, 'enableReceivedNotification');
    return hub.add(client, { kind: 'signature', signature, commitment: commitmentOf(cfg), received });
  },
  signatureUnsubscribe: unsubscribe('signature'),

  logsSubscribe(hub, client, params) {
    checkParamCount(params, 2);
    const filter = param(params, 0, 'filter');
    let mentions: string | null = null;
    if (filter !== 'all' && filter !== 'allWithVotes') {
      const list = typeof filter === 'object' && filter !== null && !Array.isArray(filter) ? (filter as { mentions?: unknown }).mentions : undefined;
      if (!Array.isArray(list)) throw invalidParams('expected "all", "allWithVotes" or { "mentions": [address] }');
      if (list.length !== 1) throw new RpcError(INVALID_PARAMS, 'Invalid Request: Only 1 address supported');
      mentions = asAddress(list[0], 'mention');
    }
    const cfg = config(params, 1, ['commitment']);
    return hub.add(client, { kind: 'logs', mentions, commitment: commitmentOf(cfg) });
  },
  logsUnsubscribe: unsubscribe('logs'),

  programSubscribe(hub, client, params) {
    checkParamCount(params, 2);
    const program = asAddress(param(params, 0, 'pubkey'), 'program id');
    const cfg = config(params, 1, ['commitment', 'encoding', 'dataSlice', 'filters', 'minContextSlot', 'withContext']);
    const encoding = accountEncodingOf(cfg, 'binary');
    return hub.add(client, { kind: 'program', program, commitment: commitmentOf(cfg), encoding, cfg, filters: parseFilters(cfg.filters) });
  },
  programUnsubscribe: unsubscribe('program'),

  rootSubscribe(hub, client, params) {
    checkParamCount(params, 0);
    return hub.add(client, { kind: 'root' });
  },
  rootUnsubscribe: unsubscribe('root'),
};
