import type { OrderRecord } from '../../store/orders-store.ts';
import { holdForScreening, type HoldableStatus, type HoldVerdict } from '../../store/settlement/hold-for-screening.ts';
import { recordScreenings, releasedByOperator, type NewScreeningLogEntry } from '../../store/screening-log-store.ts';
import type { SettlementContext } from '../context.ts';

/** What screening an order touches: the port, the failure policy, the store (log, resolutions). */
export type ScreenDeps = Pick<SettlementContext, 'screening' | 'config' | 'db' | 'workerId' | 'log' | 'alert'>;

type Screenable = Pick<OrderRecord, 'id' | 'trackingId' | 'sender' | 'recipient' | 'feeRecipient'>;

/**
 * docs/spec.md §12, when a deposit confirms (`deposit`) and before a payout is sent (`payout`): each order's
 * sender, recipient and fee recipient screened again (lists change after a quote). Returns the orders to
 * hold: blocked, or unanswered under HUSH_SCREENING_ON_ERROR=hold; an order an operator released is not
 * held again for the same finding. The decisions that pass come back for the log (the receipt reads it):
 * the caller writes those of the orders it went on with (recordDecisions), so a batch that loses its claim on
 * an order logs nothing for it. Screening off: nothing is read.
 */
export async function screenOrders(ctx: ScreenDeps, orders: readonly Screenable[], stage: HoldVerdict['stage']): Promise<{ holds: Map<string, HoldVerdict>; passed: Map<string, NewScreeningLogEntry> }> {
  const holds = new Map<string, HoldVerdict>();
  const passed = new Map<string, NewScreeningLogEntry>();
  if (!ctx.screening.enabled || orders.length === 0) return { holds, passed };
  await Promise.all(
    orders.map(async (o) => {
      const parties: [string, string][] = [['senderAddress', o.sender], ['recipientAddress', o.recipient]];
      if (o.feeRecipient) parties.push(['feeRecipientAddress', o.feeRecipient]);
      const v = await ctx.screening.check(parties.map(([, a]) => a));
      if (v.result === 'clear') return void passed.set(o.id, { trackingId: o.trackingId, stage, result: 'clear', actor: ctx.workerId });
      const field = parties.find(([, a]) => a === v.address)?.[0] ?? null;
      const verdict: HoldVerdict = {
        stage,
        result: v.result,
        field,
        address: v.address,
        list: v.list,
        version: v.result === 'blocked' ? v.version : null,
        reason: v.reason,
      };
      if (v.result === 'error' && ctx.config.screeningOnError === 'allow') {
        return void passed.set(o.id, { trackingId: o.trackingId, stage, result: 'error', field, address: v.address, list: v.list, reason: `${v.reason}; passed (HUSH_SCREENING_ON_ERROR=allow)`, actor: ctx.workerId });
      }
      // An operator looked at this order and released it: settlement goes on (the finding stays in the log).
      if (await releasedByOperator(ctx.db, o.trackingId)) {
        return void passed.set(o.id, { trackingId: o.trackingId, stage, result: v.result, field, address: v.address, list: v.list, reason: `${v.reason}; released by an operator`, actor: ctx.workerId });
      }
      holds.set(o.id, verdict);
    }),
  );
  return { holds, passed };
}

/** Writes the passing decisions of the orders a step went on with (one statement); a failed write never fails the step. */
export async function recordDecisions(ctx: ScreenDeps, passed: Map<string, NewScreeningLogEntry>, ids: Iterable<string>): Promise<void> {
  const entries = [...ids].flatMap((id) => (passed.has(id) ? [passed.get(id)!] : []));
  await recordScreenings(ctx.db, entries).catch((e: unknown) => ctx.log({ err: e }, 'screening log write failed'));
}

/** Moves one order to `held` with its finding; alerts the operator. False when it was no longer in `from`. */
export async function holdOrderForScreening(ctx: ScreenDeps, o: Pick<OrderRecord, 'id' | 'trackingId'>, from: HoldableStatus, v: HoldVerdict): Promise<boolean> {
  const held = await holdForScreening(ctx.db, o.id, from, v, ctx.workerId);
  if (held) {
    ctx.alert('order_held', { trackingId: o.trackingId, stage: v.stage, result: v.result, field: v.field, list: v.list }, 'ALERT: screening held an order; resolve it with POST /admin/v1/orders/{trackingId}/resolve');
  }
  return held;
}
