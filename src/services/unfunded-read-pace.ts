/**
 * How often the inventory reads every open unfunded order (unfundedCommitments). On PGlite that read runs
 * on the event loop, and at 20,000 open orders it stalled every request for ~30 ms every 2 s: 1.5 % of the
 * time, which every p99 sees. The read is spaced so that it takes at most 1/SHARE of the time, by what it
 * costs per open order (READ_US_PER_ORDER, measured on PGlite; PostgreSQL's server pays less, but pays it
 * for every API process): every refresh up to ~3,300 open orders, every 12 s at 20,000. The count, not the
 * read's measured duration, sets the pace: a duration includes the queue of statements before it, which
 * on a busy store would space reads out for no cost of their own.
 *
 * The cost, while reads are spaced: an order funded, expired or cancelled since the last read keeps its
 * hold on inventory and its place under its account's open-order cap until the next one (a quote's max is
 * lower, an account at its cap waits longer). Orders this process creates count at once either way
 * (UnfundedReservations); another process's (several role api processes on PostgreSQL) are learned that
 * much later, their holds and their cap slots with them. What funded orders owe is read at every refresh.
 */
const READ_US_PER_ORDER = 1.5;
const SHARE = 400;

export class UnfundedReadPace {
  private nextAt = 0;

  constructor(private readonly everyMs: number) {}

  due(now: number): boolean {
    return now >= this.nextAt;
  }

  /** A read began at `startedAt` (the clock's ms) and found `openOrders` open unfunded orders. */
  record(startedAt: number, openOrders: number): void {
    const spacingMs = (openOrders * READ_US_PER_ORDER * SHARE) / 1000;
    this.nextAt = spacingMs > this.everyMs ? startedAt + spacingMs : 0;
  }
}
