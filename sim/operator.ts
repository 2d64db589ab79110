import type { Random } from '../src/support/random.ts';
import type { World } from './world.ts';

const ACTIONS = ['release', 'release', 'release', 'refund', 'refund', 'freeze'] as const;

/**
 * The operator's desk, every half minute of the run: reads the holds as the console does (the ops listener's
 * admin API) and resolves each, the action drawn from the seed (mostly release, some refunds, a few freezes).
 */
export async function operatorPass(world: World, random: Random): Promise<void> {
  const ops = world.opsApp();
  if (!ops) return;
  const headers = { authorization: `Bearer ${world.adminToken}`, 'content-type': 'application/json' };
  const res = await ops.inject({ method: 'GET', url: '/admin/v1/holds', headers });
  if (res.statusCode !== 200) return;
  const body = JSON.parse(res.body) as { holds: { trackingId: string }[]; fundHolds: { id: string | number }[] };
  for (const h of body.holds) {
    const action = ACTIONS[random.int(ACTIONS.length)]!;
    const r = await ops.inject({ method: 'POST', url: `/admin/v1/orders/${h.trackingId}/resolve`, headers, payload: JSON.stringify({ action, note: 'simulated operator', operator: 'sim' }) });
    world.log.add(`operator ${action} ${h.trackingId}: ${r.statusCode}`);
  }
  for (const h of body.fundHolds) {
    const action = random.int(2) === 0 ? 'release' : 'refund';
    const r = await ops.inject({ method: 'POST', url: `/admin/v1/holds/${h.id}/resolve`, headers, payload: JSON.stringify({ action, note: 'simulated operator', operator: 'sim' }) });
    world.log.add(`operator ${action} hold ${h.id}: ${r.statusCode}`);
  }
}
