import { HushError } from '../domain/errors.ts';
import { STATUS_TRAITS } from '../domain/order-state.ts';
import type { Db, Queryable } from '../store/db.ts';
import { getFundHold } from '../store/holds/fund-holds.ts';
import { latestFindingId, openFindings } from '../store/holds/hold-findings.ts';
import type { HoldAction } from '../store/holds/resolve-hold.ts';
import { getOrderByTrackingId } from '../store/orders-store.ts';
import { awaitingFor, decideApproval, getApproval, listAwaiting, proposeApproval, type ApprovalTarget, type HoldApproval } from '../store/operators/hold-approvals-store.ts';
import { needsFourEyes } from './four-eyes.ts';
import { ORDER_REFUSAL, type HoldsService } from './holds-service.ts';
import { holdNote, storeId } from './hold-answer.ts';

/** Who decides, as the admin API authenticated them. */
export interface Decider {
  /** What the log records. */
  label: string;
  /** Null for the shared token: it proposes, never approves. */
  operatorId: string | null;
  role: 'viewer' | 'resolver' | 'approver' | 'automation';
}

export type Resolution = { status: string; approvalId?: undefined } | { status: 'awaiting_approval'; approvalId: string };

/**
 * docs/spec.md §12 "Four eyes": every operator answer to a hold passes here. A freeze, and a release of a
 * sanctions-list finding, become a proposal another operator (an approver, never the proposer, never the
 * shared token) approves or rejects; any other answer is carried out at once. An approval carries out the
 * proposal with its approval's compare-and-set in the resolution's own transaction, so a proposal is carried
 * out once or not at all; a hold resolved another way meanwhile withdraws what awaited on it.
 */
export class ApprovalsService {
  constructor(
    private readonly db: Db,
    private readonly holds: HoldsService,
  ) {}

  awaiting(): Promise<HoldApproval[]> {
    return listAwaiting(this.db);
  }

  async resolveOrder(trackingId: string, action: HoldAction, note: unknown, by: Decider): Promise<Resolution & { trackingId: string }> {
    const text = holdNote(action, note);
    const o = await getOrderByTrackingId(this.db, trackingId);
    if (!o) throw new HushError('NOT_FOUND', `No order ${trackingId}`);
    if (!STATUS_TRAITS[o.status].operatorHold) throw new HushError('ORDER_NOT_HELD', `The order is ${o.status}, not held`, { status: o.status });
    const target = { trackingId };
    // Read before the findings it is weighed on: a hold since (another finding) is seen where the answer is carried out.
    const seen = await latestFindingId(this.db, trackingId);
    if (needsFourEyes(action, await openFindings(this.db, trackingId))) {
      // A refund the resolution would refuse (a blocked sender) is refused now, not proposed to wait for nothing.
      if (action === 'refund') await this.holds.assertRefundable(o.sender, ORDER_REFUSAL);
      return { trackingId, ...(await this.propose(target, action, text, by)) };
    }
    const done = await this.holds.resolve(trackingId, action, text, by.label, {
      inTx: async (tx) => {
        if ((await latestFindingId(tx, trackingId)) !== seen) throw resolvedMeanwhile();
        return withdrawAwaiting(tx, target, by.label, action);
      },
    });
    return { trackingId, status: done.status };
  }

  async resolveFunds(holdId: string, action: HoldAction, note: unknown, by: Decider): Promise<Resolution & { holdId: string }> {
    const text = holdNote(action, note);
    const h = await getFundHold(this.db, storeId(holdId, 'hold'));
    if (!h) throw new HushError('NOT_FOUND', `No hold ${holdId}`);
    if (h.status !== 'held') throw new HushError('ORDER_NOT_HELD', `The hold is ${h.status}, not held`, { status: h.status });
    // Refused before it is proposed: a proposal no approval can carry out would only stand in the way of the release.
    if (h.kind === 'fee' && action !== 'release') throw new HushError('INVALID_REQUEST', "A fee recipient's hold is released (its fees keep accruing meanwhile)", { field: 'action' });
    const target = { fundHoldId: holdId };
    if (needsFourEyes(action, [h.decision])) {
      const order = action === 'refund' && h.trackingId ? await getOrderByTrackingId(this.db, h.trackingId) : null;
      if (order) await this.holds.assertRefundable(order.sender, 'freeze the funds');
      return { holdId, ...(await this.propose(target, action, text, by)) };
    }
    const done = await this.holds.resolveFunds(holdId, action, text, by.label, {
      inTx: async (tx) => {
        // Late funds released and held again meanwhile keep their id, on another finding: the answer was not weighed on it.
        const now = await getFundHold(tx, holdId);
        if (JSON.stringify(now?.decision) !== JSON.stringify(h.decision)) throw resolvedMeanwhile();
        return withdrawAwaiting(tx, target, by.label, action);
      },
    });
    return { holdId, status: done.status };
  }

  private async propose(target: ApprovalTarget, action: HoldAction, note: string, by: Decider): Promise<Resolution> {
    const p = await proposeApproval(this.db, target, { action, note, proposedBy: by.label, proposedByOperator: by.operatorId });
    if (!p) {
      const other = await awaitingFor(this.db, target);
      throw new HushError('APPROVAL_CONFLICT', `A proposal (${other?.action ?? 'another'}, by ${other?.proposedBy ?? 'another operator'}) already awaits approval on this hold: approve, reject or withdraw it first`, { approvalId: other?.approvalId ?? '', status: 'awaiting' });
    }
    return { status: 'awaiting_approval', approvalId: p.approvalId };
  }

  /** The second pair of eyes: carries the proposal out, as proposed, naming both. */
  async approve(approvalId: string, by: Decider, note: string | null): Promise<{ approvalId: string; status: string; trackingId: string | null; holdId: string | null }> {
    const a = await this.awaitingProposal(approvalId);
    if (by.role !== 'approver' || by.operatorId === null) throw new HushError('FORBIDDEN', 'Approving takes a named operator with the approver role', { role: by.role });
    if (a.proposedByOperator === by.operatorId || a.proposedBy === by.label) throw new HushError('FORBIDDEN', 'A proposal is approved by another operator than the one who made it (four eyes)', { role: by.role });
    const decide = (tx: Queryable) => decideApproval(tx, approvalId, 'approved', by.label, note);
    try {
      const done = a.trackingId
        ? await this.holds.resolve(a.trackingId, a.action, a.note, a.proposedBy, { approvedBy: by.label, inTx: decide })
        : await this.holds.resolveFunds(a.fundHoldId!, a.action, a.note, a.proposedBy, { approvedBy: by.label, inTx: decide });
      return { approvalId, status: done.status, trackingId: a.trackingId, holdId: a.fundHoldId };
    } catch (e) {
      // The hold was resolved another way (or its refund refused): the proposal can no longer be carried out as made.
      if (e instanceof HushError && e.code === 'ORDER_NOT_HELD') await decideApproval(this.db, approvalId, 'withdrawn', by.label, 'the hold was no longer held');
      // A refund to a sender blocked since it was proposed can never be carried out: it stops standing in the way.
      if (e instanceof HushError && e.code === 'ADDRESS_BLOCKED') await decideApproval(this.db, approvalId, 'withdrawn', by.label, 'the sender is blocked now');
      throw e;
    }
  }

  /** An approver other than the proposer rejects it; the proposer withdraws it. The hold stays as it is. */
  async reject(approvalId: string, by: Decider, note: string | null): Promise<{ approvalId: string; status: string }> {
    const a = await this.awaitingProposal(approvalId);
    const own = (a.proposedByOperator !== null && a.proposedByOperator === by.operatorId) || a.proposedBy === by.label;
    if (!own && (by.role !== 'approver' || by.operatorId === null)) throw new HushError('FORBIDDEN', "Only an approver rejects another operator's proposal; its proposer may withdraw it", { role: by.role });
    const status = own ? 'withdrawn' : 'rejected';
    if (!(await decideApproval(this.db, approvalId, status, by.label, note))) throw await this.decided(approvalId);
    return { approvalId, status };
  }

  private async awaitingProposal(approvalId: string): Promise<HoldApproval> {
    const a = await getApproval(this.db, storeId(approvalId, 'proposal'));
    if (!a) throw new HushError('NOT_FOUND', `No proposal ${approvalId}`);
    if (a.status !== 'awaiting') throw new HushError('APPROVAL_CONFLICT', `Proposal ${approvalId} is ${a.status} already`, { approvalId, status: a.status });
    return a;
  }

  private async decided(approvalId: string): Promise<HushError> {
    const a = await getApproval(this.db, approvalId);
    return new HushError('APPROVAL_CONFLICT', `Proposal ${approvalId} is ${a?.status ?? 'gone'} already`, { approvalId, status: a?.status ?? 'unknown' });
  }
}

const resolvedMeanwhile = () => new HushError('ORDER_NOT_HELD', 'The hold was resolved meanwhile and held again on another finding: look at it again', { status: 'resolved' });

/** A hold answered directly (a refund, a release needing no approval) ends what awaited on it: it could not be carried out now. */
async function withdrawAwaiting(tx: Queryable, target: ApprovalTarget, by: string, action: HoldAction): Promise<boolean> {
  const a = await awaitingFor(tx, target);
  if (a) await decideApproval(tx, a.approvalId, 'withdrawn', by, `superseded by a ${action}`);
  return true;
}
