import type { AccountBalance } from '../../chain/chain-view.ts';
import { transitionOrder, type OrderRecord } from '../../store/orders-store.ts';
import { depositDecision } from '../../domain/settlement/deposit-decision.ts';
import type { NextLook, SettlementContext } from '../context.ts';
import { AWAITING_POLL_SLOTS } from '../timing.ts';
import { confirmDeposits } from '../confirm-deposits.ts';

/** `failureReason` of an order that expired while its deposit account held only someone else's funds. */
export const DEPOSIT_ACCOUNT_TAKEN = 'deposit_account_taken';

/** The deposit accounts of a batch of orders awaiting their deposit, at `confirmed` and `processed`, and the finalized height. */
export interface DepositReads {
  confirmed: Map<string, AccountBalance>;
  processed: Map<string, AccountBalance>;
  height: bigint;
}

export async function readDeposits(ctx: SettlementContext, orders: OrderRecord[]): Promise<DepositReads> {
  const addresses = orders.map((o) => o.depositAccount);
  if (addresses.length === 0) return { confirmed: new Map(), processed: new Map(), height: 0n };
  const [confirmed, processed, height] = await Promise.all([
    ctx.view.balances(addresses, 'confirmed'),
    ctx.view.balances(addresses, 'processed'),
    ctx.view.blockHeight('finalized'),
  ]);
  return { confirmed, processed, height };
}

/** `awaiting_deposit` / `deposit_detected`: confirm, detect, undetect or expire (depositDecision). */
export async function confirmOrExpire(ctx: SettlementContext, o: OrderRecord & { status: 'awaiting_deposit' | 'deposit_detected' }, deposits: DepositReads): Promise<NextLook> {
  const slot = ctx.slotMs;
  // No deposit can land once every issued blockhash is dead (checked at `finalized`, against the
  // order row as it is when it moves: a refresh since it was read hands out a later one).
  const dead = Date.now() > o.expiration.getTime() && deposits.height > o.txLastValidBlockHeight;
  // Someone else's funds in the deposit account (front-run) are no deposit: read as an empty account.
  const own = (b: AccountBalance | undefined) => (b && ctx.foreign.holds(o.id, b.tokenAmount) ? undefined : b);
  const next = depositDecision(o.status, own(deposits.confirmed.get(o.depositAccount)), own(deposits.processed.get(o.depositAccount)), dead);
  switch (next.kind) {
    case 'confirm':
      // The one confirmation path (the order loop hands deposits visible at `confirmed` to it before
      // stepping orders one by one, so this is its fallback); it releases the order itself.
      await confirmDeposits(ctx, [o], deposits.confirmed, { held: true });
      return {};
    case 'detect':
      await transitionOrder(ctx.db, o.id, 'awaiting_deposit', 'deposit_detected', { deposit: { signature: '', amount: next.amount.toString(), confirmedAt: null } });
      return { delayMs: slot / 2 };
    case 'seen':
      return { delayMs: slot / 2 };
    case 'undetect':
      await transitionOrder(ctx.db, o.id, 'deposit_detected', 'awaiting_deposit', { deposit: null });
      return { delayMs: slot };
    case 'expire': {
      // Its own transaction can no longer land; the partner can read why it never could: someone else's
      // funds were there, or a token account someone else created, empty (the order's own transaction
      // creates and funds it at once, so an existing account without a deposit is never the sender's).
      const account = deposits.confirmed.get(o.depositAccount);
      const taken = ctx.foreign.taken(o.id) || (!!account?.exists && account.tokenAmount !== null);
      if (await transitionOrder(ctx.db, o.id, 'awaiting_deposit', 'expired', taken ? { failureReason: DEPOSIT_ACCOUNT_TAKEN } : {}, { deadAtHeight: deposits.height })) return {};
    }
  }
  // A fallback (the deposit watch sees deposits first): stretched to stay within its share of the request budget.
  return { delayMs: ctx.pollEveryMs(AWAITING_POLL_SLOTS * slot) };
}
