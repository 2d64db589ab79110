import type { Queryable } from '../../store/db.ts';
import { recordLateRefund } from '../../store/orders-store.ts';
import type { ChainTx } from '../../store/settlement/chain-tx.ts';
import { countLandedReleases } from '../../store/settlement/count-landed-releases.ts';
import { finishSweep } from '../../store/settlement/finish-sweep.ts';
import { makeOrderDue } from '../../store/settlement/make-order-due.ts';
import type { Movement } from '../../store/settlement/movements.ts';
import { pendingChainTxs } from '../../store/settlement/pending-chain-txs.ts';
import { recordMovements } from '../../store/settlement/record-movements.ts';
import { setSweepItems } from '../../store/settlement/set-sweep-items.ts';
import { settleChainTx, settleChainTxs } from '../../store/settlement/settle-chain-txs.ts';
import { txFate, type SignatureState } from '../../domain/settlement/tx-fate.ts';
import { DEFAULT_NETWORK_COST } from '../../domain/network-cost.ts';
import { ownCosts } from '../../ledger/drain-movements.ts';
import { networkCostMovement } from '../../ledger/network-cost.ts';
import { purposeOfTx } from '../fee-prices.ts';
import { assetMovements } from '../../ledger/order-movements.ts';
import { withLateArrivals } from '../../ledger/sweep-legs.ts';
import type { TxCosts } from '../../chain/chain-view.ts';
import { RESEND_EVERY_MS } from '../timing.ts';
import type { SettlementContext } from '../context.ts';
import { runStep, type Step } from '../step.ts';
import { completeOrders, stepPayingOrder, type CompleteDeps } from './complete.ts';
import { bookCosts, flatAbsorbed, quotedRungs } from './book-costs.ts';

/** What settling fates touches: the chain's answers, the ledger, and what follows for a sweep or an order. */
export type SettleFatesDeps = CompleteDeps & Pick<SettlementContext, 'db' | 'view' | 'sent' | 'outbox' | 'treasury' | 'asset' | 'alert' | 'log' | 'refundLate' | 'wake' | 'burstSpanSlots' | 'fees' | 'grid' | 'config'>;

interface Landed {
  t: ChainTx;
  success: boolean;
  /** The chain's error when it failed. */
  err?: unknown;
  /** The slot it landed in, as the signature status said. */
  slot?: bigint;
}

interface FateReads {
  statuses: (SignatureState | null)[];
  finalizedHeight: bigint;
  /** Milliseconds since this worker last sent each transaction (by position). */
  msSinceSent: number[];
}

interface FatePlan {
  landed: Landed[];
  expired: ChainTx[];
  resend: ChainTx[];
  /** How many pending transactions were looked at. */
  looked: number;
}

/**
 * Settles the fate of every pending transaction Hush signed; resends those that may still land. Landed
 * ones are settled together: one RPC batch for their costs, one database transaction for their fates
 * and ledger movements, then one statement completing the orders all of whose payouts have landed.
 */
export const settleFatesStep: Step<SettleFatesDeps, ChainTx[], FateReads, FatePlan> = {
  name: 'settle fates',
  async claim(ctx) {
    const pending = await pendingChainTxs(ctx.db, 256);
    if (pending.length === 0 || !ctx.sent.due(pending)) return null;
    const [statuses, finalizedHeight] = await Promise.all([ctx.view.statuses(pending.map((t) => t.signature)), ctx.view.blockHeight('finalized')]);
    return { claimed: pending, reads: { statuses, finalizedHeight, msSinceSent: pending.map((t) => ctx.outbox.msSinceSent(t.signature)) } };
  },
  plan(pending, reads) {
    const out: FatePlan = { landed: [], expired: [], resend: [], looked: pending.length };
    pending.forEach((t, i) => {
      const fate = txFate({ status: reads.statuses[i], finalizedHeight: reads.finalizedHeight, lastValidBlockHeight: t.lastValidBlockHeight, msSinceSent: reads.msSinceSent[i]!, resendEveryMs: RESEND_EVERY_MS });
      if (fate === 'landed' || fate === 'failed') out.landed.push({ t, success: fate === 'landed', err: fate === 'failed' ? reads.statuses[i]!.err : undefined, slot: slotOf(reads.statuses[i]) });
      else if (fate === 'expired') out.expired.push(t);
      else if (fate === 'resend') out.resend.push(t);
    });
    return out;
  },
  async commit(ctx, plan) {
    for (const t of plan.resend) ctx.outbox.resent(t.signature);
    await Promise.all(
      plan.expired.map(async (t) => {
        // Its blockhash is dead at `finalized` and it is nowhere in history: it can never land. Its price was
        // too low for its wait (or it was dropped): the next signing of its purpose escalates from it.
        if (await settleChainTx(ctx.db, t.id, 'expired', null)) (ctx.outbox.settled(t.signature), ctx.fees.expired(t, purposeOfTx(t)), await afterSettled(ctx, t, false));
      }),
    );
    await Promise.all([settleLanded(ctx, plan.landed), plan.resend.length > 0 ? ctx.outbox.sendAll(plan.resend.map((t) => t.wire)) : null]);
    return plan.looked;
  },
};

export function settleFates(ctx: SettleFatesDeps): Promise<number> {
  return runStep(ctx, settleFatesStep);
}

/**
 * The one way a landed transaction is settled: its fate (compare-and-set on `pending`), its cost and
 * what it moved on the ledger, and a sweep's orders, in one database transaction per batch; then what
 * follows for its order. A payout that landed completes its order first and has its costs booked right
 * after (book-costs.ts: its fee and rent change nothing the order's completion depends on, and reading
 * them is one `getTransaction` round trip the partner would wait for). Costs not visible yet leave any
 * other transaction pending for the next tick.
 */
async function settleLanded(ctx: SettleFatesDeps, landed: Landed[]): Promise<void> {
  if (landed.length === 0) return;
  const paid = landed.filter((l) => l.success && l.t.kind === 'payout' && l.t.orderId);
  const others = landed.filter((l) => !paid.includes(l));
  const costs = await ctx.view.costsMany(others.map(({ t }) => ({ signature: t.signature, watch: watchOf(ctx, t), before: lamportsBeforeOf(ctx, t) })));
  // Not visible yet, or figures a batch cannot carry exactly: one by one.
  await Promise.all(
    others.filter((_, i) => !costs[i]).map(async (l) => {
      const c = await ctx.view.costs(l.t.signature, watchOf(ctx, l.t), lamportsBeforeOf(ctx, l.t));
      if (!c) return; // not visible at `confirmed` yet
      if ((await commitFates(ctx, [{ ...l, costs: c }])).length > 0) await afterSettled(ctx, l.t, l.success);
    }),
  );
  const batch = [...paid.map((l) => ({ ...l, costs: null })), ...others.flatMap((l, i) => (costs[i] ? [{ ...l, costs: costs[i]! }] : []))];
  if (batch.length === 0) return;
  const settled = await commitFates(ctx, batch);
  // Landed payouts complete their orders together; everything else settles one by one.
  const payouts = settled.filter(({ costs: c }) => c === null);
  // A release whose last payout just landed is counted before its orders complete, so their records say
  // releasedWith from completion on (the receipt pass counts what this misses: issue 54).
  if (payouts.length > 0) await countLandedReleases(ctx.db, ctx.burstSpanSlots).catch((e: unknown) => ctx.log({ err: e }, 'counting landed releases failed'));
  const rest = settled.filter((l) => !payouts.includes(l));
  const stepped = await completeOrders(ctx, [...new Set(payouts.map(({ t }) => t.orderId!))]).catch((e: unknown) => {
    ctx.log({ err: e }, 'completing orders failed');
    return new Set<string>();
  });
  const after = [...rest, ...payouts.filter(({ t }) => !stepped.has(t.orderId!))];
  const seen = new Set<string>();
  await Promise.all(
    after.map(({ t, success }) => {
      if (t.orderId && t.kind === 'payout') {
        if (seen.has(t.orderId)) return null;
        seen.add(t.orderId);
      }
      return afterSettled(ctx, t, success);
    }),
  );
  // What this leaves (not visible yet, or a failed write) the runner's uncosted pass books.
  await bookCosts(ctx, payouts.map(({ t }) => t)).catch((e: unknown) => ctx.log({ err: e }, 'booking landed payouts\' costs failed'));
}

/** The fates, costs and movements of landed transactions in one database transaction; returns those this call settled. */
async function commitFates<L extends Landed & { costs: TxCosts | null }>(ctx: Pick<SettlementContext, 'db' | 'treasury' | 'asset' | 'alert' | 'log' | 'outbox' | 'clock' | 'fees' | 'grid' | 'config'>, batch: L[]): Promise<L[]> {
  const confirmedAt = ctx.clock.date().toISOString();
  const rungOf = await quotedRungs(ctx, batch.flatMap(({ t, costs }) => (costs ? [t] : [])));
  const settled = await ctx.db.transaction(async (tx) => {
    const done = await settleChainTxs(
      tx,
      batch.map(({ t, success, costs, err, slot }) => ({ id: t.id, to: success ? 'confirmed' : 'failed', feeLamports: costs?.fee ?? null, confirmedAt: success ? confirmedAt : undefined, err, landedSlot: slot })),
    );
    const mine = batch.filter(({ t }) => done.has(t.id));
    const movements: Movement[] = [];
    for (const { t, success, costs } of mine) {
      // Without its costs (a landed payout): booked after its order completes (bookCosts).
      if (costs) movements.push(networkCostMovement(t.signature, costs.feePayer, ownCosts(t, costs), flatAbsorbed(t, rungOf(t), ctx.config.computeUnitLimit)));
      if (success) {
        if (costs) await recordLateArrivals(ctx, tx, t, costs.lamportsBefore);
        movements.push(...landedMovements(ctx, t, costs?.watchDelta ?? 0n));
      }
    }
    await recordMovements(tx, movements);
    for (const { t, success } of mine) if (t.kind === 'sweep') await finishSweep(tx, t.id, success);
    return mine;
  });
  for (const { t, slot } of settled) {
    ctx.outbox.settled(t.signature);
    ctx.fees.landed(t, purposeOfTx(t), slot);
  }
  return settled;
}

function slotOf(st: SignatureState | null | undefined): bigint | undefined {
  return st?.slot === undefined || st.slot === null ? undefined : BigInt(st.slot);
}

function landedMovements(ctx: Pick<SettlementContext, 'asset' | 'alert'>, t: ChainTx, poolLamportDelta: bigint): Movement[] {
  const { movements, unattributed } = assetMovements(t, t.kind === 'sweep' && ctx.asset(t.assetId).native, poolLamportDelta);
  if (unattributed > 0n) {
    ctx.alert('unattributed_sweep_lamports', { signature: t.signature, lamports: unattributed.toString() }, 'ALERT: a wrapped-SOL sweep moved lamports it cannot attribute to a deposit account (balances before it unknown); owed to a sender, refund by hand');
  }
  return movements;
}

/** The pool wallet a sweep pays into, whose lamport change is asked for with its costs. */
function watchOf(ctx: Pick<SettlementContext, 'treasury'>, t: ChainTx): string | undefined {
  return t.kind === 'sweep' ? (ctx.treasury.poolByHolding(t.destination)?.address ?? t.destination) : undefined;
}

/** The deposit accounts of a wrapped-SOL sweep, whose lamports just before it landed are asked for with its costs. */
function lamportsBeforeOf(ctx: Pick<SettlementContext, 'asset'>, t: ChainTx): string[] {
  if (t.kind !== 'sweep' || !ctx.asset(t.assetId).native) return [];
  return [...new Set(t.meta.items.map((i) => i.depositAccount))];
}

/**
 * SOL that reached a wrapped-SOL deposit account after the sweep read it left with the close: it becomes
 * a late item of the sweep (see withLateArrivals), recorded with the sweep's settlement, so the ledger
 * books it from the sender and refundLate returns it like any late deposit.
 */
async function recordLateArrivals(ctx: Pick<SettlementContext, 'log'>, tx: Queryable, t: ChainTx, lamportsBefore: Map<string, bigint>): Promise<void> {
  if (t.kind !== 'sweep' || lamportsBefore.size === 0) return;
  const items = withLateArrivals(t.meta.items, lamportsBefore, DEFAULT_NETWORK_COST.tokenAccountRent);
  if (!items) return;
  await setSweepItems(tx, t.id, items);
  t.meta = { ...t.meta, items };
  ctx.log({ signature: t.signature }, 'SOL reached a deposit account after its sweep read it; refunding it as a late deposit');
}

/** What follows a settled transaction for its sweep or its order. */
export async function afterSettled(ctx: SettleFatesDeps, t: ChainTx, landed: boolean): Promise<void> {
  if (t.kind === 'sweep') {
    if (!landed) await ctx.db.transaction((tx) => finishSweep(tx, t.id, false));
    else await ctx.refundLate(t);
    return;
  }
  // A stray return moves nothing the order counts (see StrayFundsService): its cost is booked, nothing else.
  if (!t.orderId || t.kind === 'stray_return') return;
  if (t.kind === 'refund' && t.meta.late) {
    if (landed) await recordLateRefund(ctx.db, t.orderId, { signature: t.signature });
    return;
  }
  // Step the order right here (complete it, or replace the dead transaction) if nobody holds it ...
  if (await stepPayingOrder(ctx, t.orderId)) return;
  // ... else make it due now and wake the order loop, without waiting a full tick.
  await makeOrderDue(ctx.db, t.orderId);
  ctx.wake('orders');
}
