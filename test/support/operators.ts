import type { HushClient } from './hush-client.ts';
import type { ApiResponse } from './api-responses.ts';

/** Two named operators with personal tokens, as a deployment without single sign-on registers them (docs/compliance.md). */
export interface Team {
  alice: HushClient;
  bob: HushClient;
  aliceId: string;
  bobId: string;
}

const teams = new WeakMap<object, Promise<Team>>();

/** Registers a named operator with the shared token and issues them a personal token: a client acting as them. */
export async function namedOperator(admin: HushClient, name: string, role: 'viewer' | 'resolver' | 'approver'): Promise<{ client: HushClient; operatorId: string; token: string }> {
  const created = await admin.request('POST', '/admin/v1/operators', { body: { name, role } });
  if (created.status !== 201) throw new Error(`registering ${name}: ${created.status} ${created.text}`);
  const operatorId = created.body.operator.operatorId as string;
  const minted = await admin.request('POST', `/admin/v1/operators/${operatorId}/tokens`, { body: { label: 'tests' } });
  if (minted.status !== 201) throw new Error(`a token for ${name}: ${minted.status} ${minted.text}`);
  return { client: admin.withKey(minted.body.token), operatorId, token: minted.body.token };
}

/** alice and bob, both approvers, registered once per Hush (`key`: the Hush they belong to). */
export function teamOf(key: object, admin: HushClient): Promise<Team> {
  let t = teams.get(key);
  if (!t) {
    t = (async () => {
      const a = await namedOperator(admin, 'alice', 'approver');
      const b = await namedOperator(admin, 'bob', 'approver');
      return { alice: a.client, bob: b.client, aliceId: a.operatorId, bobId: b.operatorId };
    })();
    teams.set(key, t);
  }
  return t;
}

/**
 * alice answers the hold; an answer that takes four eyes (a freeze, a release of a sanctions-list finding) bob
 * approves. Answers as the resolution would have without four eyes (`{trackingId | holdId, status}`), or the error.
 */
export async function resolvedByTeam(team: Team, path: string, action: string, note: string): Promise<ApiResponse> {
  const proposed = await team.alice.request('POST', path, { body: { action, note } });
  if (proposed.status !== 202) return proposed;
  const approved = await team.bob.request('POST', `/admin/v1/approvals/${proposed.body.approvalId}/approve`, { body: { note: 'second pair of eyes' } });
  if (approved.status !== 200) return approved;
  const { approvalId: _a, trackingId, holdId, ...rest } = approved.body;
  return { ...approved, body: { ...rest, ...(trackingId ? { trackingId } : {}), ...(holdId ? { holdId } : {}) } };
}
