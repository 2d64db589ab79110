import type { AccountBalance } from '../chain/chain-view.ts';
import { confirmDeposits as confirmDepositRows, type ConfirmClaim, type DepositConfirmation } from '../store/settlement/confirm-deposits.ts';
import { releaseOrders, type Release } from '../store/settlement/release-orders.ts';
import { depositConfirmation } from '../ledger/deposit-confirmation.ts';
import type { SettlementContext } from './context.ts';
import type { PlannedTransfer } from './pools.ts';
import { AWAITING_POLL_SLOTS, PRESIGN_AHEAD_MS } from './timing.ts';
import { wakeAtSoonest } from './wake-at-due.ts';
import type { DepositOrigin, DepositOrigins, OriginQuery } from '../chain/deposit-origin.ts';
import { recordPayouts, type PayableOrder, type PlanPayoutsDeps } from './plan-payouts.ts';
import { holdOrderForScreening, recordDecisions, screenOrders, type ScreenDeps } from './steps/screen-orders.ts';

/**
 * What every caller of the confirmation gives it: its lease holder (`workerId`, `leaseSeconds`: the order
 * loop's worker id, the deposit watch's `<worker>:watch`, the deposit hint's `deposit-hint`), the store, the
 * settings and clock, the screening port, and the lookup of each order's own deposit.
 */
export type ConfirmDeps = Pick<SettlementContext, 'config' | 'db' | 'clock' | 'random' | 'faults' | 'workerId' | 'leaseSeconds' | 'asset'> &
  ScreenDeps & { foreign: { origins: Pick<DepositOrigins, 'find'> } };

/**
 * The worker's part (the order loop, the deposit watch): the planning lock and the pools and outbox a payout
 * already due is recorded and sent with, the front-run marks, and the order loop's wake-ups. The deposit hint
 * (the API side) has none of it: every order it confirms goes back to the order loop due now, which pays it
 * at its due time.
 */
export type WorkerConfirmDeps = ConfirmDeps &
  Pick<SettlementContext, 'pools' | 'payouts' | 'foreign' | 'pollEveryMs' | 'slotMs' | 'outbox' | 'detach' | 'wake'> &
  PlanPayoutsDeps;

/** What the deposit → payout path touches: the worker passes its context, the deposit hint its own ConfirmDeps. */
export type ConfirmFundedOrdersDeps = ConfirmDeps | WorkerConfirmDeps;

const isWorker = (ctx: ConfirmFundedOrdersDeps): ctx is WorkerConfirmDeps => 'outbox' in ctx;

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

/** What one confirmation statement needs: the deposits' records, its claim, and which orders may be paid when due. */
interface Confirmation {
  items: DepositConfirmation[];
  claim: ConfirmClaim;
  sendable: (o: PayableOrder) => boolean;
}

/** The payouts recorded now (due already), and the orders due shortly whose payouts are signed ahead. */
type Recorded = { moved: Set<string>; txs: PlannedTransfer[]; presign: PayableOrder[] };
type Screened = Awaited<ReturnType<typeof screenOrders>>;

/**
 * The one entry point that confirms a deposit (test/settlement/one-confirmation.test.ts holds it so), for a
 * batch of orders whose deposit is visible at `confirmed`, called by the deposit watch, the order loop and
 * the deposit hint with their lease holders: screen each order and its deposit's payers, attribute each
 * deposit to its sender, confirm every deposit (one statement: compare-and-set, history, ledger, due time)
 * and give each order back to the order loop at its due time (docs/spec.md §9: an off-menu amount two slots
 * on, a private one with its class), where pay or refund records and sends its payout. Only a payout already
 * due (its deposit confirmed again after a crash) is recorded and sent here, by the worker, in one statement
 * and one RPC batch. The confirmation is the claim: it takes the orders its caller holds or nobody holds,
 * and leaves the rest to their holder; that claim is the only coordination. Never throws; gives back every
 * order it took. Returns the orders it confirmed.
 */
export async function confirmFundedOrders(
  ctx: ConfirmFundedOrdersDeps,
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
    // Each order's own deposit first: its payers are screened with the quoted three (docs/spec.md §12).
    const found = await (origins ?? ctx.foreign.origins.find(batch.orders.map((o) => originQuery(ctx, o))));
    const screened = await screenOrders(ctx, batch.orders, 'deposit', (o) => found.get((o as PayableOrder).depositAccount)?.payers ?? []);
    const confirmAndPay = async () => {
      attributeDeposits(ctx, batch, confirmed, found);
      return confirmThenPay(ctx, batch, confirmation(ctx, batch, found, confirmed, screened.holds));
    };
    // The planning lock only where a payout may be recorded: the worker's.
    const recorded = isWorker(ctx) ? await ctx.pools.exclusive(confirmAndPay) : await confirmAndPay();
    await afterRecorded(ctx, batch, recorded, screened);
  } catch (e) {
    ctx.log({ err: e, orders: batch.orders.length }, 'deposit batch failed');
    for (const r of batch.releases.values()) if (r.delayMs === 0) (r.afterError = true), delete r.delayMs;
  } finally {
    await releaseBatch(ctx, batch);
  }
  return new Set(batch.due.keys());
}

/** The batch keeps only the orders whose deposit is their sender's. */
function attributeDeposits(ctx: ConfirmFundedOrdersDeps, batch: Batch, confirmed: Map<string, AccountBalance>, origins: Map<string, DepositOrigin | null | undefined>): void {
  // Funds no transaction of the order's sender put there are not its deposit (docs/spec.md §5, "Whose
  // deposit"): the order keeps waiting for its own, and the worker leaves that balance alone meanwhile
  // (the hint never passes one: it answers 202 for a deposit it cannot attribute).
  if (isWorker(ctx)) {
    for (const o of batch.orders) {
      if (origins.get(o.depositAccount) !== null) continue;
      ctx.foreign.note(o, confirmed.get(o.depositAccount)!.tokenAmount!);
      batch.releases.set(o.id, { id: o.id, delayMs: ctx.pollEveryMs(AWAITING_POLL_SLOTS * ctx.slotMs) });
    }
  }
  // By account, not position: a failed lookup leaves its order out of this batch (retried later) rather
  // than recording a deposit it could not attribute.
  batch.orders = batch.orders.filter((o) => origins.get(o.depositAccount));
}

/** Pure: the deposits' records and which orders may be paid at once (a matching same-asset deposit, not held). */
function confirmation(
  ctx: ConfirmFundedOrdersDeps,
  batch: Batch,
  origins: Map<string, DepositOrigin | null | undefined>,
  confirmed: Map<string, AccountBalance>,
  holds: ReadonlyMap<string, unknown>,
): Confirmation {
  const now = ctx.clock.date();
  const items = batch.orders.map((o) => depositConfirmation(ctx.config, o, origins.get(o.depositAccount)!, confirmed.get(o.depositAccount)!.tokenAmount!, now, ctx.random));
  const deposited = new Map(items.map((i) => [i.id, BigInt(i.deposit.amount)]));
  const sendable = (o: PayableOrder) => deposited.get(o.id) === o.amountIn && o.sourceAssetId === o.destinationAssetId && !holds.has(o.id);
  return { items, claim: { workerId: ctx.workerId, leaseSeconds: ctx.leaseSeconds }, sendable };
}

/**
 * Confirm every deposit, then (the worker) record the payouts of those already due (none but a retry's: the
 * floor is two slots). Off the worker, every confirmed order goes back due now: the order loop pays it.
 */
async function confirmThenPay(ctx: ConfirmFundedOrdersDeps, batch: Batch, c: Confirmation): Promise<Recorded> {
  batch.due = (await confirmDepositRows(ctx.db, c.claim, c.items)).due;
  if (batch.due.size > 0) ctx.faults.reach('deposit-confirmed');
  const payable: PayableOrder[] = [];
  const presign: PayableOrder[] = [];
  for (const o of batch.orders) {
    const at = batch.due.get(o.id);
    if (!at) continue;
    batch.releases.set(o.id, { id: o.id, delayMs: 0 });
    if (!c.sendable(o) || !isWorker(ctx)) continue;
    if (at.getTime() <= ctx.clock.now()) payable.push(o);
    else {
      batch.releases.set(o.id, { id: o.id, at });
      // Paid at the floor: its payout is signed while it waits (not a class's member, due much later).
      if (at.getTime() - ctx.clock.now() <= PRESIGN_AHEAD_MS) presign.push(o);
    }
  }
  // The pools are read only for payouts due now (a deposit confirmed again after a crash, its due time
  // past): a fresh one is due two slots on at the earliest, and the per-order step pays it then.
  if (payable.length === 0 || !isWorker(ctx)) return { moved: new Set<string>(), txs: [], presign };
  return { ...(await recordPayouts(ctx, payable, await ctx.pools.reads([...new Set(payable.map((o) => o.destinationAssetId))]))), presign };
}

/** After the planning lock: screening holds and decisions, then the recorded payouts sent. */
async function afterRecorded(ctx: ConfirmFundedOrdersDeps, batch: Batch, recorded: Recorded, { holds, passed }: Screened): Promise<void> {
  for (const id of recorded.moved) batch.releases.delete(id);
  for (const o of batch.orders) {
    const v = holds.get(o.id);
    if (v && batch.due.has(o.id) && (await holdOrderForScreening(ctx, o, 'deposit_confirmed', v))) batch.releases.delete(o.id);
  }
  // Only the deposits this batch confirmed: another batch's attempt at the same order logs nothing.
  if (passed.size > 0) await recordDecisions(ctx, passed, batch.due.keys());
  // Signed outside the planning lock and not awaited: the orders are released already, due a floor away; a
  // payout not signed ahead in time is signed at its due time.
  const presign = recorded.presign.filter((o) => !holds.has(o.id));
  if (presign.length > 0 && isWorker(ctx)) ctx.detach(ctx.payouts.presign(presign).catch((e: unknown) => ctx.log({ err: e }, 'presigning payouts failed')));
  if (recorded.moved.size > 0 && isWorker(ctx)) {
    ctx.faults.reach('payout-recorded');
    // Not awaited: the orders are recorded and released already; the chain's reply can come later.
    ctx.detach(ctx.outbox.sendBatch(recorded.txs).then(() => ctx.faults.reach('payout-sent')));
  }
}

/** Gives back every order the batch holds. */
async function releaseBatch(ctx: ConfirmFundedOrdersDeps, batch: Batch): Promise<void> {
  const releases = [...batch.releases.values()];
  await releaseOrders(ctx.db, ctx.workerId, releases).catch((e: unknown) => ctx.log({ err: e }, 'order release failed'));
  if (!isWorker(ctx)) return;
  if (releases.some((r) => r.delayMs === 0 || r.afterError)) ctx.wake('orders');
  wakeAtSoonest(ctx, releases);
}
