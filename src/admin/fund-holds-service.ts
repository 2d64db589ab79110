import { HushError } from '../domain/errors.ts';
import { FROZEN_ACCOUNT } from '../ledger/reconcile.ts';
import type { Screening } from '../screening/screening-port.ts';
import { allOrNothing, type Db } from '../store/db.ts';
import { getFundHold, HELD_FUNDS_ACCOUNT, resolveFundHold } from '../store/holds/fund-holds.ts';
import { getOrderById } from '../store/orders-store.ts';
import { recordMovement } from '../store/settlement/record-movements.ts';
import type { HoldAction } from '../store/holds/resolve-hold.ts';
import { assertRefundable, type ResolveOptions } from './hold-answer.ts';

/**
 * docs/spec.md §12: the operator's answers to holds that are not an order's status (GET /admin/v1/holds lists
 * them beside held orders). Late funds: `refund` (to the order's sender, never to a blocked one or one that
 * cannot be screened under on-error=hold; a worker sends it), `release` (a false positive: refunded likewise,
 * the finding covered), `freeze` (booked from `held:screening` to `frozen:funds`). A fee recipient: `release`
 * (the finding covered; paid next period). Each answer is one compare-and-set on the hold, with its log row.
 */
export async function resolveFundsHold(db: Db, screening: Screening, holdId: string, action: HoldAction, note: string, actor: string, opts: ResolveOptions = {}): Promise<{ holdId: string; status: string }> {
  const h = await getFundHold(db, holdId);
  if (!h) throw new HushError('NOT_FOUND', `No hold ${holdId}`);
  if (h.status !== 'held') throw new HushError('ORDER_NOT_HELD', `The hold is ${h.status}, not held`, { status: h.status });
  if (h.kind === 'fee' && action !== 'release') throw new HushError('INVALID_REQUEST', "A fee recipient's hold is released (its fees keep accruing meanwhile)", { field: 'action' });
  const order = h.kind === 'late' ? await getOrderById(db, (await db.query<{ order_id: string }>(`SELECT order_id::text AS order_id FROM screening_holds WHERE id = $1`, [holdId])).rows[0]!.order_id) : null;
  if (action === 'refund' && order) await assertRefundable(screening, order.sender, 'freeze the funds');
  const to = action === 'freeze' ? 'frozen' : h.kind === 'late' ? 'refund_due' : 'released';
  const done = await allOrNothing(db, async (tx) => {
    if (!(await resolveFundHold(tx, holdId, to, actor, note))) return false;
    // hold_id: the history tells this from a resolution of the order the late funds reached (same tracking id).
    await tx.query(`INSERT INTO screening_log (tracking_id, stage, result, actor, note, approved_by, hold_id, at) VALUES ($1, 'resolution', $2, $3, $4, $5, $6, now())`, [h.trackingId, action, actor, `${h.kind} hold ${holdId}: ${note}`, opts.approvedBy ?? null, holdId]);
    if (opts.inTx && !(await opts.inTx(tx))) throw new HushError('APPROVAL_CONFLICT', 'The proposal was decided meanwhile', { approvalId: '', status: 'decided' });
    if (to === 'frozen') {
      const amount = BigInt(h.amount);
      await recordMovement(tx, `frozen-held:${h.subject}`, 'frozen', [
        { account: HELD_FUNDS_ACCOUNT, assetId: h.assetId, amount },
        { account: FROZEN_ACCOUNT, assetId: h.assetId, amount: -amount },
      ], order?.id ?? null);
    }
    return true;
  });
  if (!done) throw new HushError('ORDER_NOT_HELD', 'The hold was resolved meanwhile', { status: 'resolved' });
  return { holdId, status: to };
}
