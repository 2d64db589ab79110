import type { ChainView, OwnedTokenAccount } from './chain-view.ts';

/** Deposit owners whose token accounts one pass reads (two RPC calls each): the whole window in turn. */
const OWNERS_PER_PASS = 4;

export interface FinishedDeposit {
  id: string | number;
  tracking_id: string;
  deposit_account: string;
  deposit_owner: string;
}

type Log = (obj: Record<string, unknown>, msg: string) => void;

/**
 * Funds sent to a finished order's deposit owner outside its deposit account — SOL to the owner's own
 * address, another mint, a second account of the deposit's mint — are held where only Hush can sign and
 * no order counts them. The late-deposit pass looks for them and raises an ALERT naming the command that
 * returns them to the sender: once per holding and amount per process, not on every pass. SOL comes with
 * the pass's balance read; token accounts need a read per owner, so each pass takes the next few owners.
 */
export class StrayWatch {
  private readonly solAlerted = new Map<string, bigint>();
  private readonly tokensAlerted = new Map<string, string>();
  /** The id of the last owner whose token accounts were read; the next pass goes on from there. */
  private lastScannedId = -1n;

  constructor(
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
      { trackingId, owner, lamports: lamports.toString() },
      `ALERT: SOL sent to the deposit owner of a finished order, outside its deposit account; held there until an operator returns it to the sender (npm run admin -- return-stray ${trackingId})`,
    );
  }

  /** Reads the token accounts of the next OWNERS_PER_PASS owners (by order id, wrapping around). */
  async scanTokens(orders: readonly FinishedDeposit[]): Promise<void> {
    // By id, so orders finishing meanwhile do not shift the turn and skip an owner.
    const byId = orders.map((o) => ({ o, id: BigInt(o.id) })).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const from = byId.findIndex((x) => x.id > this.lastScannedId);
    const turn = [...byId.slice(from < 0 ? byId.length : from), ...byId.slice(0, from < 0 ? byId.length : from)].slice(0, OWNERS_PER_PASS);
    for (const { o, id } of turn) {
      // Moved on first: an owner whose read keeps failing must not hold up the others' turn.
      this.lastScannedId = id;
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
      { trackingId, owner, holdings: held.map((h) => ({ account: h.account, mint: h.mint, amount: h.amount.toString() })) },
      `ALERT: tokens sent to the deposit owner of a finished order, outside its deposit account; held there until an operator returns them to the sender (npm run admin -- return-stray ${trackingId})`,
    );
  }
}
