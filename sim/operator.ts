import type { Random } from '../src/support/random.ts';
import type { World } from './world.ts';

const ACTIONS = ['release', 'release', 'release', 'refund', 'refund', 'freeze'] as const;

type Inject = (method: string, url: string, token: string, body?: unknown) => Promise<{ statusCode: number; body: string }>;

/** The desk's two people, registered once per run with the shared token (no single sign-on in the simulator). */
const desks = new WeakMap<World, Promise<{ ana: string; bo: string } | null>>();

async function register(inject: Inject, admin: string, name: string): Promise<string | null> {
  const made = await inject('POST', '/admin/v1/operators', admin, { name, role: 'approver' });
  if (made.statusCode !== 201) return null;
  const id = (JSON.parse(made.body) as { operator: { operatorId: string } }).operator.operatorId;
  const minted = await inject('POST', `/admin/v1/operators/${id}/tokens`, admin, { label: 'sim' });
  return minted.statusCode === 201 ? (JSON.parse(minted.body) as { token: string }).token : null;
}

/**
 * The operator's desk, every half minute of the run: reads the holds as the console does (the ops listener's
 * admin API) and resolves each, the action drawn from the seed (mostly release, some refunds, a few freezes).
 * Two named people: Ana answers, and what takes four eyes (a freeze, a release of a list's finding) Bo approves.
 */
export async function operatorPass(world: World, random: Random): Promise<void> {
  const ops = world.opsApp();
  if (!ops) return;
  const inject: Inject = (method, url, token, body) =>
    ops.inject({ method: method as 'GET', url, headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) }, ...(body === undefined ? {} : { payload: JSON.stringify(body) }) });
  let desk = desks.get(world);
  if (!desk) {
    desk = (async () => {
      const [ana, bo] = [await register(inject, world.adminToken, 'Ana'), await register(inject, world.adminToken, 'Bo')];
      return ana && bo ? { ana, bo } : null;
    })();
    desks.set(world, desk);
  }
  const people = await desk;
  if (!people) return void desks.delete(world);
  const res = await inject('GET', '/admin/v1/holds', people.ana);
  if (res.statusCode !== 200) return;
  const body = JSON.parse(res.body) as { holds: { trackingId: string }[]; fundHolds: { holdId: string }[] };
  const answer = async (what: string, path: string, action: string) => {
    const r = await inject('POST', path, people.ana, { action, note: 'simulated operator' });
    world.log.add(`operator ${action} ${what}: ${r.statusCode}`);
    if (r.statusCode !== 202) return;
    const approvalId = (JSON.parse(r.body) as { approvalId: string }).approvalId;
    const a = await inject('POST', `/admin/v1/approvals/${approvalId}/approve`, people.bo, { note: 'simulated second operator' });
    world.log.add(`operator approve ${approvalId} (${action} ${what}): ${a.statusCode}`);
  };
  for (const h of body.holds) await answer(h.trackingId, `/admin/v1/orders/${h.trackingId}/resolve`, ACTIONS[random.int(ACTIONS.length)]!);
  for (const h of body.fundHolds) await answer(`hold ${h.holdId}`, `/admin/v1/holds/${h.holdId}/resolve`, random.int(2) === 0 ? 'release' : 'refund');
}
