import { HushError } from '../domain/errors.ts';
import { STATUS_TRAITS } from '../domain/order-state.ts';
import { swapLegs } from '../ledger/order-movements.ts';
import { FROZEN_ACCOUNT } from '../ledger/reconcile.ts';
import type { Screening } from '../screening/screening-port.ts';
import { allOrNothing, type Db } from '../store/db.ts';
import { countHolds, listHolds, type HeldAfter, type HeldOrder } from '../store/holds/list-holds.ts';
import type { HoldFilter } from '../store/holds/hold-filter.ts';
import { countFundHolds, listFundHolds, type FundHold } from '../store/holds/fund-holds.ts';
import { resolveFundsHold } from './fund-holds-service.ts';
import { assertRefundable, holdNote, type ResolveOptions } from './hold-answer.ts';

/** What a refund to a blocked sender of a held order leaves the operator. */
export const ORDER_REFUSAL = 'freeze the funds or release the order';
import { withFundNotes, withOrderNotes } from './hold-notes-service.ts';
import { heldAtStage, resolveHold, TARGET, type HoldAction } from '../store/holds/resolve-hold.ts';
import { getOrderByTrackingId, type OrderRecord } from '../store/orders-store.ts';
import { recordMovement } from '../store/settlement/record-movements.ts';
import type { LedgerLeg } from '../store/settlement/movements.ts';

/**
 * docs/spec.md §12: the operator's queue of held orders and its three answers. Every resolution is one
 * statement (the transition and its screening-log line, with who and the note), with its ledger legs in
 * the same transaction: a frozen order's deposit moves to an account of its own; a swapped order that is
 * refunded or frozen has its swap undone first (the destination it owed is owed no more).
 */
export class HoldsService {
  constructor(
    private readonly db: Db,
    private readonly screening: Screening,
  ) {}

  /** Held orders, oldest first: those matching `filter`, after `after` (issue 70); each with its claim and comments. */
  async list(limit?: number, filter?: HoldFilter, after?: HeldAfter): Promise<HeldOrder[]> {
    return withOrderNotes(this.db, await listHolds(this.db, limit, filter, after));
  }

  /** Held late funds and fee recipients (`kind: late | fee`, with `holdId`), oldest first (issue 49): those matching `filter`, after the hold `afterId`; each with its notes. */
  async listFunds(limit?: number, filter?: HoldFilter, afterId?: string): Promise<FundHold[]> {
    return withFundNotes(this.db, await listFundHolds(this.db, limit, filter, afterId));
  }

  /**
   * How many of each are open (matching `filter`, else in all): the listings stop at their limit (100 by default),
   * the console says what they left out.
   */
  async counts(filter?: HoldFilter): Promise<{ holds: number; fundHolds: number }> {
    const [holds, fundHolds] = await Promise.all([countHolds(this.db, filter), countFundHolds(this.db, filter)]);
    return { holds, fundHolds };
  }

  /** The screening a refund's sender passes, as the resolution checks it (four eyes asks before proposing one). */
  assertRefundable(sender: string, otherwise: string): Promise<void> {
    return assertRefundable(this.screening, sender, otherwise);
  }

  resolveFunds(holdId: string, action: HoldAction, note: string, actor: string, opts: ResolveOptions = {}): Promise<{ holdId: string; status: string }> {
    return resolveFundsHold(this.db, this.screening, holdId, action, holdNote(action, note), actor, opts);
  }

  async resolve(trackingId: string, action: HoldAction, note: string, actor: string, opts: ResolveOptions = {}): Promise<{ trackingId: string; status: string }> {
    const text = holdNote(action, note);
    const o = await getOrderByTrackingId(this.db, trackingId);
    if (!o) throw new HushError('NOT_FOUND', `No order ${trackingId}`);
    if (!STATUS_TRAITS[o.status].operatorHold) throw new HushError('ORDER_NOT_HELD', `The order is ${o.status}, not held`, { status: o.status });
    // Never back to a blocked address: such funds can only be frozen (or released, if the finding was wrong).
    if (action === 'refund') await assertRefundable(this.screening, o.sender, ORDER_REFUSAL);
    // A release goes on with what the order was doing when it was held: a hold before its refund goes back to refunding.
    const to = action === 'release' ? ((await heldAtStage(this.db, trackingId)) === 'refund' ? 'refunding' : 'deposit_confirmed') : TARGET[action];
    const moved = await allOrNothing(this.db, async (tx) => {
      if (!(await resolveHold(tx, o.id, action, to, actor, text, opts.approvedBy ?? null))) return false;
      if (opts.inTx && !(await opts.inTx(tx))) throw new HushError('APPROVAL_CONFLICT', 'The proposal was decided meanwhile', { approvalId: '', status: 'decided' });
      if (action !== 'release' && o.sourceAssetId !== o.destinationAssetId && (await swapped(tx, o))) {
        const net = o.amountIn - o.serviceFee - o.partnerFee - o.networkFee;
        await recordMovement(tx, `swap-undone:${o.trackingId}`, 'swap', swapLegs(o, net).map((l) => ({ ...l, amount: -l.amount })), o.id);
      }
      if (action === 'freeze') await recordMovement(tx, `frozen:${o.trackingId}`, 'frozen', frozenLegs(o), o.id);
      return true;
    });
    if (!moved) {
      const now = await getOrderByTrackingId(this.db, trackingId);
      throw new HushError('ORDER_NOT_HELD', `The order is ${now?.status ?? 'gone'}, not held`, { status: now?.status ?? 'unknown' });
    }
    return { trackingId, status: to };
  }
}

/** The deposit, taken off what senders are owed back and booked as frozen (per asset, the deposit's own). */
function frozenLegs(o: OrderRecord): LedgerLeg[] {
  const amount = BigInt(o.deposit?.amount ?? '0');
  return [
    { account: 'external:senders', assetId: o.sourceAssetId, amount },
    { account: FROZEN_ACCOUNT, assetId: o.sourceAssetId, amount: -amount },
  ];
}

async function swapped(tx: Parameters<Parameters<typeof allOrNothing>[1]>[0], o: OrderRecord): Promise<boolean> {
  const { rows } = await tx.query(`SELECT 1 FROM ledger_entries WHERE movement = $1 LIMIT 1`, [`swap:${o.trackingId}`]);
  return rows.length > 0;
}
