import type { Release } from '../store/settlement/release-orders.ts';
import type { SettlementContext } from './context.ts';

/**
 * Books the payout loop's wake-up for the soonest of these orders' next run times (a payout's due time:
 * two slots after its deposit's confirmation at the floor), so the order is picked up when it falls due,
 * not at the loop's next idle poll (up to two slots later). Costs a timer, no store or chain call.
 */
export function wakeAtSoonest(ctx: Pick<SettlementContext, 'wake'>, releases: readonly Release[]): void {
  let soonest = Infinity;
  for (const r of releases) if (r.at && r.at.getTime() < soonest) soonest = r.at.getTime();
  if (soonest < Infinity) ctx.wake('payouts', soonest);
}
