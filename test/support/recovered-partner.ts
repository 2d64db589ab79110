import assert from 'node:assert/strict';
import { expectOk } from './api-responses.ts';
import type { SimAccount, SimHush } from './sim-hush.ts';

/**
 * After a lost store (docs/operations.md "a store lost entirely"): the partner's account comes back under its id,
 * suspended (its keys were in the store); the operator reactivates it and issues a key. The partner with that key.
 */
export async function recoveredPartner(h: SimHush, acct: SimAccount): Promise<SimAccount> {
  const account = await h.until('the partner account rebuilt', async () => {
    const r = await h.ops.get(`/admin/v1/accounts/${acct.id}`);
    return r.status === 200 ? r.body.account : null;
  }, 120_000, 1000);
  assert.equal(account.status, 'suspended');
  expectOk(await h.ops.request('PATCH', `/admin/v1/accounts/${acct.id}`, { body: { status: 'active' } }));
  const key = await h.ops.post(`/admin/v1/accounts/${acct.id}/keys`, null);
  assert.equal(key.status, 201);
  return { ...acct, client: h.client(key.body.apiKey) };
}
