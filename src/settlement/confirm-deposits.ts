import type { AccountBalance } from '../chain/chain-view.ts';
import { isUniqueViolation } from '../store/db.ts';
import { confirmDeposits as confirmDepositRows, type ConfirmClaim, type DepositConfirmation } from '../store/settlement/confirm-deposits.ts';
import { releaseOrders, type Release } from '../store/settlement/release-orders.ts';
import { depositConfirmation } from '../ledger/deposit-confirmation.ts';
import { faultPoint } from './outbox.ts';
import type { SettlementContext } from './context.ts';
import type { PlannedTransfer, PlanReads } from './pools.ts';
import { AWAITING_POLL_SLOTS, SETTLE_FALLBACK_SLOTS } from './timing.ts';
import type { DepositOrigin, OriginQuery } from '../chain/deposit-origin.ts';
import { payoutTxs, recordPayouts, type PayableOrder, type PlanPayoutsDeps } from './plan-payouts.ts';
import { holdOrderForScreening, recordDecisions, screenOrders, type ScreenDeps } from './steps/screen-orders.ts';

/** What the deposit → payout path touches (the watch and the order loop pass the context). */
export type ConfirmDepositsDeps = Pick<
  SettlementContext,
  'pools' | 'foreign' | 'pollEveryMs' | 'slotMs' | 'config' | 'db' | 'workerId' | 'leaseSeconds' | 'presigner' | 'outbox' | 'log' | 'detach' | 'wake' | 'asset'
> &
  ScreenDeps &
  PlanPayoutsDeps;

/** Who may fund an order's deposit account (its sender), and how it is counted. */
export function originQuery(ctx: Pick<SettlementContext, 'asset'>, o: Pick<PayableOrder, 'depositAccount' | 'sender' | 'sourceAssetId'>): OriginQuery {
  return { account: o.depositAccount, sender: o.sender, native: ctx.asset(o.sourceAssetId).native };
}

/** One call's batch: the orders it works on (its caller claimed them), what it has confirmed so far, and how each is given back. */
interface Batch {
  orders: PayableOrder[];
  /** How each order is given back (the caller's claim ends here). */
  releases: Map<string, Release>;
  /** Each order this call confirmed, with its payout due time. */
  due: Map<string, Date>;
}

/** What one confirmation statement needs: the deposits' records, its claim, and which orders may be paid now. */
interface Confirmation {
  items: DepositConfirmation[];
  claim: ConfirmClaim;
  sendable: (o: PayableOrder) => boolean;
  reads: Promise<PlanReads>;
}

type Recorded = { moved: Set<string>; txs: PlannedTransfer[] };
type Screened = Awaited<ReturnType<typeof screenOrders>>;

/**
 * The deposit → payout path for a batch of orders whose deposit is visible at `confirmed`, in a few
 * statements whatever the batch size: confirm every deposit (one statement: compare-and-set, history,
 * ledger, due time), then record the payouts of those due now (one statement, signed bytes first), then
 * send them (one RPC batch). Anything off that path (a swap, a deposit that does not match, a privacy
 * delay, a pool shortfall) is released to the per-order step. The confirmation is the claim: it takes the
 * orders its caller (`ctx.workerId`: the order loop, which claimed them, or the deposit watch under a
 * holder of its own) holds or nobody holds, and leaves the rest to their holder; that claim is the only
 * coordination. Never throws; gives back every order it took. Returns the orders it confirmed.
 */
export async function confirmDeposits(
  ctx: ConfirmDepositsDeps,
  orders: PayableOrder[],
  confirmed: Map<string, AccountBalance>,
  /** Each order's own deposit, looked up ahead, by deposit account (DepositOrigins.find). */
  origins?: Promise<Map<string, DepositOrigin | null | undefined>>,
): Promise<Set<string>> {
  if (orders.length === 0) return new Set();
  const batch: Batch = { orders, releases: new Map(orders.map((o) => [o.id, { id: o.id, delayMs: 0 }])), due: new Map() };
  try {
    // docs/spec.md §12: screened again as the deposit confirms (outside the planning lock: a risk API may
    // take its timeout). A held order is confirmed like any other, paid nothing, then held.
    const screened = await screenOrders(ctx, batch.orders, 'deposit');
    const recorded = await ctx.pools.exclusive(async () => {
      // The plan's reads (pending outflows, then pool balances) start now, beside the deposits' signature
      // lookups; the two-step path below confirms the deposits meanwhile too.
      const reads = ctx.pools.reads([...new Set(batch.orders.map((o) => o.destinationAssetId))]);
      reads.catch(() => {});
      const attributed = await attributeDeposits(ctx, batch, confirmed, origins);
      const c = confirmation(ctx, batch, attributed, confirmed, screened.holds, reads);
      // No privacy delay: every matching deposit is paid at once, so its confirmation and its payout
      // are one statement (the payouts planned first, mostly signed ahead at `processed`).
      return ctx.config.payoutDelayS.max === 0 ? confirmAndStart(ctx, batch, c) : confirmThenPay(ctx, batch, c);
    });
    await afterRecorded(ctx, batch, recorded, screened);
  } catch (e) {
    ctx.log({ err: e, orders: batch.orders.length }, 'deposit batch failed');
    for (const r of batch.releases.values()) if (r.delayMs === 0) (r.afterError = true), delete r.delayMs;
  } finally {
    await releaseBatch(ctx, batch);
  }
  return new Set(batch.due.keys());
}

/** Each order's own deposit; the batch keeps only the orders whose deposit is their sender's. */
async function attributeDeposits(
  ctx: ConfirmDepositsDeps,
  batch: Batch,
  confirmed: Map<string, AccountBalance>,
  ahead: Promise<Map<string, DepositOrigin | null | undefined>> | undefined,
): Promise<Map<string, DepositOrigin | null | undefined>> {
  // By account, not position: `orders` may have lost some (confirming elsewhere) since the lookup began.
  const origins = ahead ? await ahead : await ctx.foreign.origins.find(batch.orders.map((o) => originQuery(ctx, o)));
  // Funds no transaction of the order's sender put there are not its deposit (docs/spec.md §5, "Whose
  // deposit"): the order keeps waiting for its own, and the watch leaves that balance alone meanwhile.
  for (const o of batch.orders) {
    if (origins.get(o.depositAccount) !== null) continue;
    ctx.foreign.note(o, confirmed.get(o.depositAccount)!.tokenAmount!);
    batch.releases.set(o.id, { id: o.id, delayMs: ctx.pollEveryMs(AWAITING_POLL_SLOTS * ctx.slotMs) });
  }
  // A failed lookup leaves its order out of this batch (retried later) rather than recording a deposit
  // it could not attribute.
  batch.orders = batch.orders.filter((o) => origins.get(o.depositAccount));
  return origins;
}

/** Pure: the deposits' records and which orders may be paid at once (a matching same-asset deposit, not held). */
function confirmation(
  ctx: ConfirmDepositsDeps,
  batch: Batch,
  origins: Map<string, DepositOrigin | null | undefined>,
  confirmed: Map<string, AccountBalance>,
  holds: ReadonlyMap<string, unknown>,
  reads: Promise<PlanReads>,
): Confirmation {
  const now = new Date();
  const items = batch.orders.map((o) => depositConfirmation(ctx.config, o, origins.get(o.depositAccount)!, confirmed.get(o.depositAccount)!.tokenAmount!, now));
  const deposited = new Map(items.map((i) => [i.id, BigInt(i.deposit.amount)]));
  const sendable = (o: PayableOrder) => deposited.get(o.id) === o.amountIn && o.sourceAssetId === o.destinationAssetId && !holds.has(o.id);
  return { items, claim: { workerId: ctx.workerId, leaseSeconds: ctx.leaseSeconds }, sendable, reads };
}

/** No privacy delay: the deposits' confirmation and their payouts in one statement. */
async function confirmAndStart(ctx: ConfirmDepositsDeps, batch: Batch, c: Confirmation): Promise<Recorded> {
  const eligible = batch.orders.filter(c.sendable);
  const txs = eligible.length > 0 ? await payoutTxs(ctx, eligible, await c.reads) : [];
  const nextRunMs = SETTLE_FALLBACK_SLOTS * ctx.slotMs;
  const r = await confirmDepositRows(ctx.db, c.claim, c.items, { txs, nextRunMs }).catch(async (e: unknown) => {
    // A payout already recorded with the same bytes (same recipient, amount, pool and blockhash as
    // another order's): confirm alone; the per-order step plans these payouts one by one.
    if (!isUniqueViolation(e)) throw e;
    return confirmDepositRows(ctx.db, c.claim, c.items);
  });
  ctx.presigner.drop(r.moved);
  batch.due = r.due;
  for (const o of batch.orders) {
    const at = batch.due.get(o.id);
    if (!at || r.moved.has(o.id)) continue;
    batch.releases.set(o.id, c.sendable(o) && at.getTime() > Date.now() ? { id: o.id, at } : { id: o.id, delayMs: 0 });
  }
  // Some stopped at deposit_confirmed (a swap, a short deposit, a pool shortfall): the per-order step pays them.
  if (batch.due.size > r.moved.size) faultPoint('deposit-confirmed');
  return { moved: r.moved, txs: txs.filter((t) => r.moved.has(t.orderId!)) };
}

/** With a privacy delay: confirm every deposit, then record the payouts of those already due. */
async function confirmThenPay(ctx: ConfirmDepositsDeps, batch: Batch, c: Confirmation): Promise<Recorded> {
  batch.due = (await confirmDepositRows(ctx.db, c.claim, c.items)).due;
  if (batch.due.size > 0) faultPoint('deposit-confirmed');
  const payable: PayableOrder[] = [];
  for (const o of batch.orders) {
    const at = batch.due.get(o.id);
    if (!at) continue;
    batch.releases.set(o.id, { id: o.id, delayMs: 0 });
    if (c.sendable(o) && at.getTime() <= Date.now()) payable.push(o);
    else if (c.sendable(o)) batch.releases.set(o.id, { id: o.id, at });
  }
  return payable.length > 0 ? recordPayouts(ctx, payable, await c.reads) : { moved: new Set<string>(), txs: [] };
}

/** After the planning lock: screening holds and decisions, then the recorded payouts sent. */
async function afterRecorded(ctx: ConfirmDepositsDeps, batch: Batch, recorded: Recorded, { holds, passed }: Screened): Promise<void> {
  for (const id of recorded.moved) batch.releases.delete(id);
  for (const o of batch.orders) {
    const v = holds.get(o.id);
    if (v && batch.due.has(o.id) && (await holdOrderForScreening(ctx, o, 'deposit_confirmed', v))) batch.releases.delete(o.id);
  }
  // Only the deposits this batch confirmed: another batch's attempt at the same order logs nothing.
  if (passed.size > 0) await recordDecisions(ctx, passed, batch.due.keys());
  if (recorded.moved.size > 0) {
    faultPoint('payout-recorded');
    // Not awaited: the orders are recorded and released already; the chain's reply can come later.
    ctx.detach(ctx.outbox.sendBatch(recorded.txs).then(() => faultPoint('payout-sent')));
  }
}

/** Gives back every order the batch holds. */
async function releaseBatch(ctx: ConfirmDepositsDeps, batch: Batch): Promise<void> {
  const releases = [...batch.releases.values()];
  await releaseOrders(ctx.db, ctx.workerId, releases).catch((e: unknown) => ctx.log({ err: e }, 'order release failed'));
  if (releases.some((r) => r.delayMs === 0 || r.afterError)) ctx.wake('orders');
}
