import { getOrderById } from '../../store/orders-store.ts';
import type { ChainTxOf } from '../../store/settlement/chain-tx.ts';
import { abandonedLateRefunds } from '../../store/settlement/abandoned-late-refunds.ts';
import { deadLateRefunds } from '../../store/settlement/dead-late-refunds.ts';
import { getChainTx } from '../../store/settlement/get-chain-tx.ts';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { lateRefundsExist } from '../../store/settlement/late-refunds-exist.ts';
import { markLateRefunded } from '../../store/settlement/mark-late-refunded.ts';
import { unrefundedLateSweeps } from '../../store/settlement/unrefunded-late-sweeps.ts';
import type { SettlementContext } from '../context.ts';
import { cannotReceiveSol, type SolReadDeps } from './refund.ts';
import { replacePart, type ReplacePartDeps } from './replace-dead-parts.ts';
import type { ScreenDeps } from './screen-orders.ts';
import { creditorsOf } from '../../chain/deposit-origin.ts';
import { FIRST_SIGNATURE_LOOKBACK } from '../../chain/solana-chain.ts';
import { HELD_FUNDS_ACCOUNT, holdLateFunds, LATE_FUNDS_PAGE, lateFundsDue, markLateFundsRefunded, reholdLateFunds, type FundHoldFinding } from '../../store/holds/fund-holds.ts';
import { recordMovement } from '../../store/settlement/record-movements.ts';
import { fundReleaseCovers, recordScreening } from '../../store/screening-log-store.ts';
import type { OrderRecord } from '../../store/orders-store.ts';

/** What planning a landed sweep's late refunds touches. */
export type RefundLateDeps = SolReadDeps & ScreenDeps & Pick<SettlementContext, 'db' | 'pools' | 'alert' | 'outbox'>;

/** A late item's hold subject: the sweep that took the funds and the order they reached. */
const lateSubject = (sweepSignature: string, orderId: string) => `${sweepSignature}:${orderId}`;

/**
 * docs/spec.md §12, funds outside an order: screened like a deposit — every payer of what reached the
 * deposit account besides the deposit, and the sender their refund would go to. Blocked, or unanswered under
 * HUSH_SCREENING_ON_ERROR=hold: the finding (issue 49: such funds were refunded unscreened, in both
 * directions). Null when the sources cannot be read yet (the sweep stays unmarked; a later pass asks again).
 */
async function lateFinding(ctx: RefundLateDeps, at: { subject: string; assetId: string; depositAccount: string }, order: OrderRecord): Promise<FundHoldFinding | 'clear' | null> {
  if (!ctx.screening.enabled) return 'clear';
  const sources = await creditorsOf(ctx.view, { account: at.depositAccount, native: ctx.asset(at.assetId).native }, order.deposit?.signature ?? null).catch(() => null);
  if (sources === null) return null;
  if (sources === 'incomplete') {
    // Not a provider's silence (HUSH_SCREENING_ON_ERROR does not apply): who paid cannot be read, so an operator decides.
    const f: FundHoldFinding = { stage: 'late', result: 'error', field: 'lateFundsPayer', address: at.depositAccount, list: null, version: null, reason: `${FIRST_SIGNATURE_LOOKBACK} or more transactions reached the deposit account: not every payer can be read` };
    return (await fundReleaseCovers(ctx.db, 'late', at.subject, f)) ? 'clear' : f;
  }
  const parties: [string, string][] = [['senderAddress', order.sender], ...sources.filter((a) => a !== order.sender).map((a): [string, string] => ['lateFundsPayer', a])];
  const found = await ctx.screening.findingsEach(parties.map(([, a]) => a));
  const findings = found.flatMap((vs, i): FundHoldFinding[] =>
    vs.flatMap((v): FundHoldFinding[] =>
      v.result === 'error' && ctx.config.screeningOnError === 'allow'
        ? []
        : [{ stage: 'late', result: v.result, field: parties[i]![0], address: v.address, list: v.list, version: v.result === 'blocked' ? v.version : null, reason: v.reason }],
    ),
  );
  findings.sort((a, b) => (a.result === b.result ? 0 : a.result === 'blocked' ? -1 : 1));
  for (const f of findings) if (!(await fundReleaseCovers(ctx.db, 'late', at.subject, f))) return f;
  return 'clear';
}
/** What the late-deposit pass's refund work touches (retries go through the runner's refundLate hook). */
export type LateRefundsDeps = ReplacePartDeps & Pick<SettlementContext, 'db' | 'alerted' | 'alert' | 'refundLate'>;

/** A late refund that cannot be recorded whole right now: its transaction rolls back, a later pass retries. */
class LateRefundDeferred extends Error {}

/**
 * Plans the refunds a landed sweep's late items are owed, all parts of all its items in one database
 * transaction that also marks the sweep `lateRefunded`: refunds are recorded whole or not at all. A sweep
 * still unmarked (a crash, an RPC error, no pool able to pay yet) is found again by retryLateRefunds.
 */
export async function refundLate(ctx: RefundLateDeps, sweep: ChainTxOf<'sweep'>): Promise<void> {
  const items = sweep.meta.items.filter((i) => i.late);
  if (items.length === 0) return;
  // Read before the database transaction (no transaction waits on the RPC): which SOL refunds cannot land.
  const unpayable = new Set<string>();
  const holds = new Map<string, FundHoldFinding>();
  for (const item of items) {
    const order = await getOrderById(ctx.db, item.orderId);
    if (!order) continue;
    const f = await lateFinding(ctx, { subject: lateSubject(sweep.signature, item.orderId), assetId: sweep.assetId, depositAccount: item.depositAccount }, order);
    if (f === null) return;
    if (f !== 'clear') holds.set(item.orderId, f);
  }
  if (ctx.asset(sweep.assetId).native) {
    for (const item of items) {
      const order = await getOrderById(ctx.db, item.orderId);
      if (order && (await cannotReceiveSol(ctx, order.sourceAssetId, BigInt(item.amount) - order.networkFee, order.sender))) unpayable.add(item.orderId);
    }
  }
  const wires = await ctx.pools
    .exclusive(() =>
      ctx.db.transaction(async (tx) => {
        if (!(await markLateRefunded(tx, sweep.id))) return [];
        // Refunds recorded before sweeps were marked: the mark is all that was missing.
        if (await lateRefundsExist(tx, sweep.signature)) return [];
        const out: string[] = [];
        for (const item of items) {
          const order = await getOrderById(tx, item.orderId);
          if (!order) continue;
          const held = holds.get(item.orderId);
          if (held) {
            // Nothing moves to or from a listed address: the funds stay in the pool, booked apart, for the operator.
            if (await holdLateFunds(tx, lateSubject(sweep.signature, item.orderId), order, BigInt(item.amount), held)) {
              ctx.alert('late_funds_held', { trackingId: order.trackingId, amount: item.amount, field: held.field, result: held.result, list: held.list }, 'ALERT: screening held funds that reached a deposit account outside its order; resolve them (GET /admin/v1/holds)');
            }
            continue;
          }
          const refund = BigInt(item.amount) - order.networkFee;
          if (refund <= 0n) {
            ctx.alert('late_deposit_unrefundable', { trackingId: order.trackingId, amount: item.amount }, 'ALERT: late deposit too small to refund; held in custody');
            continue;
          }
          if (unpayable.has(item.orderId)) {
            ctx.alert('late_refund_below_rent', { trackingId: order.trackingId, amount: refund.toString() }, "ALERT: late refund below a wallet's rent to a sender holding no SOL cannot land; held in custody");
            continue;
          }
          const planned = await ctx.pools.plan(order, 'refund', order.sourceAssetId, order.sender, refund, { late: true }, tx);
          // No pool can pay it now: roll the whole mark back, so a later pass tries again.
          if (!planned) throw new LateRefundDeferred();
          if ((await insertChainTx(tx, { ...planned, meta: { ...planned.meta, part: 0, lateOf: sweep.signature } })) === null) throw new LateRefundDeferred();
          // The clear decision is logged with the refund it lets go, in its transaction: no flow without its decision.
          if (ctx.screening.enabled) await recordScreening(tx, { trackingId: order.trackingId, stage: 'late', result: 'clear', actor: ctx.workerId });
          out.push(planned.wire);
        }
        return out;
      }),
    )
    .catch((e: unknown) => {
      if (e instanceof LateRefundDeferred) return [];
      throw e;
    });
  await ctx.outbox.sendAll(wires);
}

/**
 * Late funds an operator released or chose to refund (docs/spec.md §12): their refund to the order's sender,
 * less the network fee, recorded with the reversal of their held booking in one database transaction.
 */
export async function refundReleasedLateFunds(ctx: RefundLateDeps): Promise<void> {
  // Page by page: a page of holds that cannot be paid yet (below rent, no pool) must not starve the ones after it.
  for (let page = await lateFundsDue(ctx.db); page.length > 0; page = page.length < LATE_FUNDS_PAGE ? [] : await lateFundsDue(ctx.db, page.at(-1)!.id)) {
    for (const h of page) await refundReleased(ctx, h);
  }
}

/** One released hold's refund, or its hold again on a new finding; nothing while it cannot be paid yet. */
async function refundReleased(ctx: RefundLateDeps, h: Awaited<ReturnType<typeof lateFundsDue>>[number]): Promise<void> {
  const order = await getOrderById(ctx.db, h.orderId);
  if (!order) return;
  const refund = h.amount - order.networkFee;
  if (refund <= 0n || (await cannotReceiveSol(ctx, order.sourceAssetId, refund, order.sender))) return;
  // Screened again as the refund is recorded, as a held order's release is: the operator resolved one finding
  // (the hold showed only the first), and the sender may never have screened clear, or be listed since.
  const f = await lateFinding(ctx, { subject: h.subject, assetId: order.sourceAssetId, depositAccount: order.depositAccount }, order);
  if (f === null) return;
  if (f !== 'clear') {
    if (await reholdLateFunds(ctx.db, h.id, order.trackingId, f)) {
      ctx.alert('late_funds_held', { trackingId: order.trackingId, amount: h.amount.toString(), field: f.field, result: f.result, list: f.list }, 'ALERT: screening held released late funds again on a finding the release did not cover; resolve them (GET /admin/v1/holds)');
    }
    return;
  }
  const wires = await ctx.pools.exclusive(() =>
    ctx.db.transaction(async (tx) => {
      if (!(await markLateFundsRefunded(tx, h.id))) return [];
      await recordMovement(tx, `held-released:${h.subject}`, 'held', [
        { account: HELD_FUNDS_ACCOUNT, assetId: order.sourceAssetId, amount: h.amount },
        { account: 'external:senders', assetId: order.sourceAssetId, amount: -h.amount },
      ], order.id);
      const planned = await ctx.pools.plan(order, 'refund', order.sourceAssetId, order.sender, refund, { late: true }, tx);
      if (!planned) throw new LateRefundDeferred();
      const sweepSignature = h.subject.slice(0, h.subject.lastIndexOf(':'));
      if ((await insertChainTx(tx, { ...planned, meta: { ...planned.meta, part: 0, lateOf: sweepSignature } })) === null) throw new LateRefundDeferred();
      if (ctx.screening.enabled) await recordScreening(tx, { trackingId: order.trackingId, stage: 'late', result: 'clear', actor: ctx.workerId });
      return [planned.wire];
    }),
  ).catch((e: unknown) => {
    if (e instanceof LateRefundDeferred) return [];
    throw e;
  });
  await ctx.outbox.sendAll(wires);
}

/** Landed sweeps whose late refunds were never recorded (see refundLate), oldest first. */
export async function retryLateRefunds(ctx: Pick<SettlementContext, 'db' | 'refundLate'>): Promise<void> {
  for (const id of await unrefundedLateSweeps(ctx.db)) {
    const sweep = await getChainTx(ctx.db, id);
    if (sweep?.kind === 'sweep') await ctx.refundLate(sweep);
  }
}

export async function replaceDeadLateRefunds(ctx: LateRefundsDeps): Promise<void> {
  // Only parts whose latest attempt died, and only recent ones: this runs every pass, and late refunds accumulate.
  const dead = await deadLateRefunds(ctx.db);
  await alertAbandonedLateRefunds(ctx);
  for (const id of dead) {
    const t = await getChainTx(ctx.db, id);
    if (!t || t.kind !== 'refund' || (t.status !== 'expired' && t.status !== 'failed')) continue;
    const order = await getOrderById(ctx.db, t.orderId!);
    if (order) await replacePart(ctx, order, t, t.meta.part ?? 0);
  }
}

/**
 * Late refund parts past the 7-day window whose last attempt died are no longer retried (one that keeps
 * failing, e.g. to a frozen account, would otherwise cost fees forever): the sender's funds then need an
 * operator. Told once per process and part, on the day they are given up.
 */
async function alertAbandonedLateRefunds(ctx: Pick<SettlementContext, 'db' | 'alerted' | 'alert'>): Promise<void> {
  for (const r of await abandonedLateRefunds(ctx.db)) {
    if (!ctx.alerted.abandonedLateRefund.first(r.id)) continue;
    // The part named as before this was structured (migration 016): for the operator, never parsed.
    ctx.alert('late_refund_abandoned', { trackingId: r.trackingId, part: `late:${r.lateOf}:${r.part}`, assetId: r.assetId, amount: r.amount }, 'ALERT: a late refund failed for 7 days and is no longer retried; the funds are in the pools, refund the sender by hand');
  }
}
