import type { AccountBalance } from '../chain/chain-view.ts';
import type { OrderRecord } from '../store/orders-store.ts';
import { confirmDeposits as confirmDepositRows, type ConfirmClaim, type DepositConfirmation } from '../store/settlement/confirm-deposits.ts';
import { releaseOrders, type Release } from '../store/settlement/release-orders.ts';
import { depositConfirmation } from '../ledger/deposit-confirmation.ts';
import type { SettlementContext } from './context.ts';
import { AWAITING_POLL_SLOTS, PRESIGN_AHEAD_MS } from './timing.ts';
import { wakeAtSoonest } from './wake-at-due.ts';
import type { DepositOrigin, DepositOrigins, OriginQuery } from '../chain/deposit-origin.ts';
import { holdOrderForScreening, recordDecisions, screenOrders, type ScreenDeps } from './steps/screen-orders.ts';

/**
 * What every caller of the confirmation gives it: its lease holder (`workerId`, `leaseSeconds`: the order
 * loop's worker id, the deposit watch's `<worker>:watch`, the deposit hint's `deposit-hint`), the store, the
 * settings and clock, the screening port, and the lookup of each order's own deposit.
 */
export type ConfirmDeps = Pick<SettlementContext, 'config' | 'db' | 'clock' | 'random' | 'faults' | 'workerId' | 'leaseSeconds' | 'asset'> &
  ScreenDeps & { foreign: { origins: Pick<DepositOrigins, 'find'> } };

/** What the deposit → payout path needs of an order. */
export type PayableOrder = Pick<OrderRecord, 'id' | 'trackingId' | 'accountId' | 'depositAccount' | 'sender' | 'recipient' | 'feeRecipient' | 'amountIn' | 'amountOut' | 'sourceAssetId' | 'destinationAssetId' | 'mode' | 'txBlockhash' | 'quote'>;

/**
 * The worker's part (the order loop, the deposit watch): the payouts signed ahead, the front-run marks, and
 * the loops' wake-ups. The deposit hint (the API side) has none of it: every order it confirms goes back to
 * the order loop due now, which pays it at its due time.
 */
export type WorkerConfirmDeps = ConfirmDeps & Pick<SettlementContext, 'payouts' | 'foreign' | 'pollEveryMs' | 'slotMs' | 'outbox' | 'detach' | 'wake'>;

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
  /** Paid at its due time by the order loop: a matching same-asset deposit, not held (signed ahead when due shortly). */
  sendable: (o: PayableOrder) => boolean;
}

type Screened = Awaited<ReturnType<typeof screenOrders>>;

/**
 * The one entry point that confirms a deposit (test/settlement/one-confirmation.test.ts holds it so), for a
 * batch of orders whose deposit is visible at `confirmed`, called by the deposit watch, the order loop and
 * the deposit hint with their lease holders: screen each order and its deposit's payers, attribute each
 * deposit to its sender, confirm every deposit (one statement: compare-and-set, history, ledger, due time)
 * and give each order back to the order loop at its due time (docs/spec.md §9: an off-menu amount two slots
 * on, a private one with its class), where pay or refund screens it at the payout's stage and records and
 * sends its payout: a payout already due (its deposit confirmed again after a crash, or its origin slow to
 * read) too, never here. The worker signs ahead the payouts due shortly. The confirmation is the claim: it takes the orders its caller holds or nobody holds,
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
  // The deposit confirmed when its caller saw it so, not once its origin was looked up and it was screened:
  // the floor (two slots) counts from what the chain showed, as the raw loop's does.
  const seenAt = ctx.clock.date();
  const batch: Batch = { orders, releases: new Map(orders.map((o) => [o.id, { id: o.id, delayMs: 0 }])), due: new Map() };
  try {
    // docs/spec.md §12: screened again as the deposit confirms (a risk API may take its timeout). A held order
    // is confirmed like any other, paid nothing, then held.
    // Each order's own deposit first: its payers are screened with the quoted three (docs/spec.md §12).
    const found = await (origins ?? ctx.foreign.origins.find(batch.orders.map((o) => originQuery(ctx, o))));
    const screened = await screenOrders(ctx, batch.orders, 'deposit', (o) => found.get((o as PayableOrder).depositAccount)?.payers ?? []);
    attributeDeposits(ctx, batch, confirmed, found);
    const presign = await confirm(ctx, batch, confirmation(ctx, batch, found, confirmed, screened.holds, seenAt));
    await afterConfirmed(ctx, batch, presign, screened);
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
  now: Date,
): Confirmation {
  const items = batch.orders.map((o) => depositConfirmation(ctx.config, o, origins.get(o.depositAccount)!, confirmed.get(o.depositAccount)!.tokenAmount!, now, ctx.random));
  const deposited = new Map(items.map((i) => [i.id, BigInt(i.deposit.amount)]));
  const sendable = (o: PayableOrder) => deposited.get(o.id) === o.amountIn && o.sourceAssetId === o.destinationAssetId && !holds.has(o.id);
  return { items, claim: { workerId: ctx.workerId, leaseSeconds: ctx.leaseSeconds }, sendable };
}

/**
 * Confirms every deposit and gives each order back at its due time; returns the orders (the worker's) whose
 * payouts are signed ahead: paid at the floor, due within PRESIGN_AHEAD_MS.
 */
async function confirm(ctx: ConfirmFundedOrdersDeps, batch: Batch, c: Confirmation): Promise<PayableOrder[]> {
  batch.due = (await confirmDepositRows(ctx.db, c.claim, c.items)).due;
  if (batch.due.size > 0) ctx.faults.reach('deposit-confirmed');
  const presign: PayableOrder[] = [];
  for (const o of batch.orders) {
    const at = batch.due.get(o.id);
    if (!at) continue;
    batch.releases.set(o.id, { id: o.id, delayMs: 0 });
    if (!c.sendable(o) || !isWorker(ctx)) continue;
    batch.releases.set(o.id, { id: o.id, at });
    // Paid at the floor: its payout is signed while it waits (not a class's member, due much later).
    if (at.getTime() - ctx.clock.now() <= PRESIGN_AHEAD_MS) presign.push(o);
  }
  return presign;
}

/** After the confirmation: screening holds and decisions, then the payouts due shortly signed ahead. */
async function afterConfirmed(ctx: ConfirmFundedOrdersDeps, batch: Batch, presign: PayableOrder[], { holds, passed }: Screened): Promise<void> {
  for (const o of batch.orders) {
    const v = holds.get(o.id);
    if (v && batch.due.has(o.id) && (await holdOrderForScreening(ctx, o, 'deposit_confirmed', v))) batch.releases.delete(o.id);
  }
  // Only the deposits this batch confirmed: another batch's attempt at the same order logs nothing.
  if (passed.size > 0) await recordDecisions(ctx, passed, batch.due.keys());
  // Not awaited: the orders are released already, due a floor away; a payout not signed ahead in time is
  // signed at its due time.
  const ahead = presign.filter((o) => !holds.has(o.id));
  if (ahead.length > 0 && isWorker(ctx)) ctx.detach(ctx.payouts.presign(ahead).catch((e: unknown) => ctx.log({ err: e }, 'presigning payouts failed')));
}

/** Gives back every order the batch holds. */
async function releaseBatch(ctx: ConfirmFundedOrdersDeps, batch: Batch): Promise<void> {
  const releases = [...batch.releases.values()];
  await releaseOrders(ctx.db, ctx.workerId, releases).catch((e: unknown) => ctx.log({ err: e }, 'order release failed'));
  if (!isWorker(ctx)) return;
  if (releases.some((r) => r.delayMs === 0 || r.afterError)) ctx.wake('orders');
  wakeAtSoonest(ctx, releases);
}
