import type { OrderRecord } from '../../store/orders-store.ts';
import { holdForScreening, type HoldableStatus, type HoldVerdict } from '../../store/settlement/hold-for-screening.ts';
import { recordScreenings, releaseCovers, type NewScreeningLogEntry } from '../../store/screening-log-store.ts';
import type { ScreeningVerdict } from '../../screening/screening-port.ts';
import type { SettlementContext } from '../context.ts';

/** What screening an order touches: the port, the failure policy, the store (log, resolutions). */
export type ScreenDeps = Pick<SettlementContext, 'screening' | 'config' | 'db' | 'workerId' | 'log' | 'alert'>;

type Screenable = Pick<OrderRecord, 'id' | 'trackingId' | 'sender' | 'recipient' | 'feeRecipient'>;

/** One address an order's funds come from or go to, and the field it is named by in the log. */
export type Party = readonly [field: string, address: string];

/** The parties screened at a stage: the quoted three, plus (deposit) every payer of the deposit. */
export function partiesOf(o: Screenable, stage: HoldVerdict['stage'], payers: readonly string[] = []): Party[] {
  if (stage === 'refund') return [['senderAddress', o.sender]];
  const parties: Party[] = [['senderAddress', o.sender], ['recipientAddress', o.recipient]];
  if (o.feeRecipient) parties.push(['feeRecipientAddress', o.feeRecipient]);
  for (const p of payers) if (!parties.some(([, a]) => a === p)) parties.push(['depositPayer', p]);
  return parties;
}

/** A non-clear verdict as a finding of `stage` (blocked, or error). */
function findingOf(stage: HoldVerdict['stage'], field: string, v: Exclude<ScreeningVerdict, { result: 'clear' }>): HoldVerdict {
  return { stage, result: v.result, field, address: v.address, list: v.list, version: v.result === 'blocked' ? v.version : null, reason: v.reason };
}

/**
 * docs/spec.md §12, when a deposit confirms (`deposit`: the quoted three and every payer of the deposit),
 * before a payout is sent (`payout`) and before a refund is sent (`refund`: the sender). Every party gets
 * its own verdict, and every finding weighs: one an operator's release covers (releaseCovers) passes, one
 * it does not holds — so a release never exempts the order from a new finding. Returns the orders to hold
 * (blocked, or unanswered under HUSH_SCREENING_ON_ERROR=hold) with the first uncovered finding (blocked
 * before error). The decisions that pass come back for the log (the receipt reads it): the caller writes
 * those of the orders it went on with (recordDecisions), so a batch that loses its claim on an order logs
 * nothing for it. Screening off: nothing is read.
 */
export async function screenOrders(
  ctx: ScreenDeps,
  orders: readonly Screenable[],
  stage: HoldVerdict['stage'],
  payers?: (o: Screenable) => readonly string[],
): Promise<{ holds: Map<string, HoldVerdict>; passed: Map<string, NewScreeningLogEntry> }> {
  const holds = new Map<string, HoldVerdict>();
  const passed = new Map<string, NewScreeningLogEntry>();
  if (!ctx.screening.enabled || orders.length === 0) return { holds, passed };
  await Promise.all(
    orders.map(async (o) => {
      const parties = partiesOf(o, stage, payers?.(o));
      // Every finding on every party: a release covers one listing, never the address's other ones.
      const found = await ctx.screening.findingsEach(parties.map(([, a]) => a));
      const findings = found.flatMap((vs, i) => vs.map((v) => findingOf(stage, parties[i]![0], v)));
      if (findings.length === 0) return void passed.set(o.id, { trackingId: o.trackingId, stage, result: 'clear', actor: ctx.workerId });
      // Blocked first: an error is reported only when nothing blocked.
      findings.sort((a, b) => (a.result === b.result ? 0 : a.result === 'blocked' ? -1 : 1));
      let passing: NewScreeningLogEntry | null = null;
      for (const f of findings) {
        if (f.result === 'error' && ctx.config.screeningOnError === 'allow') {
          passing ??= { trackingId: o.trackingId, stage, result: 'error', field: f.field, address: f.address, list: f.list, reason: `${f.reason}; passed (HUSH_SCREENING_ON_ERROR=allow)`, actor: ctx.workerId };
          continue;
        }
        // An operator looked at this very finding and released the order: it passes (the finding stays in the log).
        if (await releaseCovers(ctx.db, o.trackingId, f)) {
          passing ??= { trackingId: o.trackingId, stage, result: f.result, field: f.field, address: f.address, list: f.list, version: f.version, reason: `${f.reason}; released by an operator`, actor: ctx.workerId };
          continue;
        }
        return void holds.set(o.id, f);
      }
      passed.set(o.id, passing!);
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

/**
 * Screens the order at `stage` and holds it when screening says so (docs/spec.md §12). True whenever it must
 * not go on, held now or not (a lost compare-and-set: another step moved it; the next look decides).
 */
export async function heldAt(ctx: ScreenDeps, o: Screenable, from: HoldableStatus, stage: HoldVerdict['stage'], payers: readonly string[] = []): Promise<boolean> {
  const { holds, passed } = await screenOrders(ctx, [o], stage, () => payers);
  const v = holds.get(o.id);
  if (v === undefined) {
    // Written before the step goes on, and a failed write stops it (the next look screens again): no payout or
    // refund moves without its decision in the log.
    const entry = passed.get(o.id);
    if (entry) await recordScreenings(ctx.db, [entry]);
    return false;
  }
  await holdOrderForScreening(ctx, o, from, v);
  return true;
}
