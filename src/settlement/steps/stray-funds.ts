import { alertFields } from '../../support/alerts.ts';
import type { Queryable } from '../../store/db.ts';
import { lateWindowRotation } from '../../store/settlement/late-window-rotation.ts';
import type { ChainView, OwnedTokenAccount } from '../../chain/chain-view.ts';

/** Deposit owners whose token accounts one pass reads (two RPC calls each): the whole window in turn. */
export const OWNERS_PER_PASS = 4;

type Log = (obj: Record<string, unknown>, msg: string) => void;

/**
 * Funds sent to a finished order's deposit owner outside its deposit account — SOL to the owner's own
 * address, another mint, a second account of the deposit's mint — are held where only Hush can sign and
 * no order counts them. The late-deposit pass looks for them and raises an ALERT naming the command that
 * returns them to the sender: once per holding and amount per process, not on every pass. SOL comes with
 * the pass's balance read; token accounts need a read per owner, so each pass takes the next few owners
 * of a rotation of its own through the late-deposit window.
 */
export class StrayWatch {
  private readonly solAlerted = new Map<string, bigint>();
  private readonly tokensAlerted = new Map<string, string>();
  /** Where the next pass's owners start (an order id; null: the window's start). */
  private rotation: bigint | null = null;

  constructor(
    private readonly db: Queryable,
    private readonly view: ChainView,
    private readonly log: Log,
  ) {}

  noticeSol(trackingId: string, owner: string, lamports: bigint): void {
    if (lamports === 0n) {
      this.solAlerted.delete(trackingId);
      return;
    }
    if (this.solAlerted.get(trackingId) === lamports) return;
    this.solAlerted.set(trackingId, lamports);
    this.log(
      alertFields('stray_funds', { trackingId, owner, lamports: lamports.toString() }),
      `ALERT: SOL sent to the deposit owner of a finished order, outside its deposit account; held there until an operator returns it to the sender (npm run admin -- return-stray ${trackingId})`,
    );
  }

  /** Reads the token accounts of the next OWNERS_PER_PASS owners of the window (by order id, wrapping around). */
  async scanTokens(): Promise<void> {
    const { rows, next } = await lateWindowRotation(this.db, this.rotation, OWNERS_PER_PASS);
    // Moved on first: an owner whose read keeps failing must not hold up the others' turn.
    this.rotation = next;
    for (const o of rows) {
      const held = (await this.view.tokenAccountsOf(o.deposit_owner)).filter((a) => a.account !== o.deposit_account && a.amount > 0n);
      this.noticeTokens(o.tracking_id, o.deposit_owner, held);
    }
  }

  private noticeTokens(trackingId: string, owner: string, held: OwnedTokenAccount[]): void {
    const seen = held.map((h) => `${h.account}:${h.amount}`).sort().join(',');
    if (!seen) {
      this.tokensAlerted.delete(trackingId);
      return;
    }
    if (this.tokensAlerted.get(trackingId) === seen) return;
    this.tokensAlerted.set(trackingId, seen);
    this.log(
      alertFields('stray_funds', { trackingId, owner, holdings: held.map((h) => ({ account: h.account, mint: h.mint, amount: h.amount.toString() })) }),
      `ALERT: tokens sent to the deposit owner of a finished order, outside its deposit account; held there until an operator returns them to the sender (npm run admin -- return-stray ${trackingId})`,
    );
  }
}
