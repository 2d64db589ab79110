import { DepositOrigins, type DepositOrigin } from '../../chain/deposit-origin.ts';
import type { ChainView } from '../../chain/chain-view.ts';
import type { Log } from '../deps.ts';
import { alertFields } from '../../support/alerts.ts';
import { FOREIGN_RECHECK_MS as RECHECK_MS } from '../timing.ts';
import type { Clock } from '../../support/clock.ts';


/** An order whose deposit account is funded, but not by its sender's transaction (docs/spec.md §5, "Whose deposit"). */
export interface ForeignOrder {
  id: string;
  trackingId: string;
  depositAccount: string;
}

/**
 * The worker's view of whose funds are in the deposit accounts it watches: it finds each order's own
 * deposit (DepositOrigins) and remembers, per order, a balance found to be someone else's, so neither
 * the deposit watch nor the order loop looks it up again every slot until that balance changes. In
 * memory only: another worker, or this one after a restart, judges the account again (a few RPC calls).
 */
export class ForeignFunds {
  readonly origins: DepositOrigins;
  private readonly marks = new Map<string, { amount: bigint; at: number }>();

  constructor(
    view: () => Pick<ChainView, 'signatureHistories' | 'transactionsMany'>,
    private readonly log: Log,
    private readonly clock: Clock,
  ) {
    this.origins = new DepositOrigins(view, clock);
  }

  /** Whether this order's deposit account holds `amount` of someone else's, and nothing of its sender's (as judged lately). */
  holds(orderId: string, amount: bigint | null | undefined): boolean {
    const m = this.marks.get(orderId);
    return !!m && m.amount === (amount ?? 0n) && this.clock.now() - m.at < RECHECK_MS;
  }

  /** Whether the order was ever judged front-run here (its expiry then says why). */
  taken(orderId: string): boolean {
    return this.marks.has(orderId);
  }

  note(o: ForeignOrder, amount: bigint): void {
    const before = this.marks.get(o.id);
    this.marks.set(o.id, { amount, at: this.clock.now() });
    if (before?.amount === amount) return;
    this.log(
      alertFields('deposit_account_taken', { trackingId: o.trackingId, depositAccount: o.depositAccount, amount: amount.toString() }),
      `ALERT: the deposit account of ${o.trackingId} holds ${amount} base units no transaction of its sender put there (front-run): not its deposit. The order waits for its own until its deadline; the funds are swept as late funds once it ends`,
    );
  }

  /** Forgets orders no longer watched. */
  retain(watching: ReadonlySet<string>): void {
    for (const id of this.marks.keys()) if (!watching.has(id)) this.marks.delete(id);
  }
}

export type { DepositOrigin };
