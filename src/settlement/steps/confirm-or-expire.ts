import type { AccountBalance } from '../../chain/chain-view.ts';
import type { OrderRecord } from '../../store/orders-store.ts';
import { detectDeposit } from '../../store/settlement/detect-deposit.ts';
import { undetectDeposit } from '../../store/settlement/undetect-deposit.ts';
import { expireOrder } from '../../store/settlement/expire-order.ts';
import { depositDecision, type DepositDecision, type WatchedStatus } from '../../domain/settlement/deposit-decision.ts';
import { STATUS } from '../../domain/order-state.ts';
import type { NextLook, SettlementContext } from '../context.ts';
import { AWAITING_POLL_SLOTS } from '../timing.ts';

/** `failureReason` of an order that expired while its deposit account held only someone else's funds. */
export const DEPOSIT_ACCOUNT_TAKEN = 'deposit_account_taken';

/** The deposit accounts of a batch of orders awaiting their deposit, at `confirmed` and `processed`, and the finalized height. */
export interface DepositReads {
  confirmed: Map<string, AccountBalance>;
  processed: Map<string, AccountBalance>;
  /** 0 when no order of the batch was past its expiration (none can be dead). */
  height: bigint;
}

/**
 * With the socket up, a watched account's `confirmed` balance is its notifications' (no request), and it
 * is read at `processed` only after a transaction mentioned it (or a deposit was seen there: undetect).
 * Only an order past its expiration can be dead: it alone needs the finalized height, and it is read over
 * HTTP whatever the notifications say (an expiry is never decided on a notification that may be lost).
 */
/** What reading the unfunded orders' deposit accounts touches. */
export type ReadDepositsDeps = Pick<SettlementContext, 'db' | 'view' | 'depositBalances' | 'foreign' | 'clock'>;

/** What the awaiting-deposit step touches: the reads, and the store's detect, undetect and expire. */
export type ConfirmOrExpireDeps = ReadDepositsDeps & Pick<SettlementContext, 'pollEveryMs' | 'slotMs'>;

export async function readDeposits(ctx: ReadDepositsDeps, orders: OrderRecord[]): Promise<DepositReads> {
  const confirmed = new Map<string, AccountBalance>();
  const processed = new Map<string, AccountBalance>();
  const now = ctx.clock.now();
  const pastExpiration = (o: OrderRecord) => now > o.expiration.getTime();
  const read: { confirmed: string[]; processed: string[] } = { confirmed: [], processed: [] };
  for (const o of orders) {
    const a = o.depositAccount;
    const known = pastExpiration(o) ? undefined : ctx.depositBalances.current(a);
    if (known) confirmed.set(a, known);
    else read.confirmed.push(a);
    if (!known || o.status === STATUS.deposit_detected || ctx.depositBalances.mentioned(a)) read.processed.push(a);
    else processed.set(a, known);
  }
  const none = Promise.resolve(new Map<string, AccountBalance>());
  const [c, p, height] = await Promise.all([
    read.confirmed.length > 0 ? ctx.view.balances(read.confirmed, 'confirmed') : none,
    read.processed.length > 0 ? ctx.view.balances(read.processed, 'processed') : none,
    orders.some(pastExpiration) ? ctx.view.blockHeight('finalized') : Promise.resolve(0n),
  ]);
  for (const [a, b] of c) confirmed.set(a, b);
  for (const [a, b] of p) processed.set(a, b);
  return { confirmed, processed, height };
}

/** The deposit decision of an order awaiting its deposit, on its batch's reads (depositDecision). */
export function decideDeposit(ctx: Pick<SettlementContext, 'clock' | 'foreign'>, o: OrderRecord, deposits: DepositReads): DepositDecision {
  // No deposit can land once every issued blockhash is dead (checked at `finalized`, against the
  // order row as it is when it moves: a refresh since it was read hands out a later one).
  const dead = ctx.clock.now() > o.expiration.getTime() && deposits.height > o.txLastValidBlockHeight;
  // Someone else's funds in the deposit account (front-run) are no deposit: read as an empty account.
  const own = (b: AccountBalance | undefined) => (b && ctx.foreign.holds(o.id, b.tokenAmount) ? undefined : b);
  return depositDecision(o.status as WatchedStatus, own(deposits.confirmed.get(o.depositAccount)), own(deposits.processed.get(o.depositAccount)), dead);
}

/** Every decision but `confirm`: the order loop hands those to the one confirmation (confirmFundedOrders), as a batch. */
export type DepositMove = Exclude<DepositDecision, { kind: 'confirm' }>;

/** `awaiting_deposit` / `deposit_detected` with nothing to confirm: detect, undetect or expire (decideDeposit). */
export async function confirmOrExpire(ctx: ConfirmOrExpireDeps, o: OrderRecord, next: DepositMove, deposits: DepositReads): Promise<NextLook> {
  const slot = ctx.slotMs;
  switch (next.kind) {
    case 'detect':
      await detectDeposit(ctx.db, o.id, next.amount);
      return { delayMs: slot / 2 };
    case 'seen':
      return { delayMs: slot / 2 };
    case 'undetect':
      await undetectDeposit(ctx.db, o.id);
      return { delayMs: slot };
    case 'expire': {
      // Its own transaction can no longer land; the partner can read why it never could: someone else's
      // funds were there, or a token account someone else created, empty (the order's own transaction
      // creates and funds it at once, so an existing account without a deposit is never the sender's).
      const account = deposits.confirmed.get(o.depositAccount);
      const taken = ctx.foreign.taken(o.id) || (!!account?.exists && account.tokenAmount !== null);
      if (await expireOrder(ctx.db, o.id, deposits.height, taken ? DEPOSIT_ACCOUNT_TAKEN : undefined)) return {};
    }
  }
  // A fallback (the deposit watch sees deposits first): stretched to stay within its share of the request budget.
  return { delayMs: ctx.pollEveryMs(AWAITING_POLL_SLOTS * slot) };
}
