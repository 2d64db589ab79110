import type { Clock } from './clock.ts';

/** One caller's item waiting for its batch, and how its answer reaches it. */
export interface Queued<I, O> {
  item: I;
  resolve(o: O): void;
  reject(e: unknown): void;
}

/** PostgreSQL's commit_delay for a GroupCommit (see its constructor). */
export interface CommitDelay {
  /** How long an item that would go alone waits for company. */
  ms: number;
  /** Only while items arrive this close together: a lone item on a quiet store never waits. */
  whenWithinMs: number;
  /** A queue this long goes at once. */
  flushAt: number;
}

/**
 * Group commit: the items that arrive together (in one turn of the event loop's I/O phase) share one
 * statement, and while batches are in the database the next ones queue up and grow; in-flight work stays
 * bounded (`maxInFlight`). PGlite completes a statement before other requests get a chance to queue, so
 * waiting for "the batch in flight" alone would never batch there: the flush waits for the phase to end.
 * Written here rather than taken from a library because the batch's shape (which items may share a
 * statement) is the caller's rule: `take` picks a batch off the queue, `run` answers every item of it.
 */
export abstract class GroupCommit<I, O> {
  protected queue: Queued<I, O>[] = [];
  private running = 0;
  private scheduled = false;
  /** Ends the commit delay's wait early while a lone batch waits for company. */
  private lingering: AbortController | null = null;
  private lastSubmitAt = -Infinity;

  /**
   * `delay`: PostgreSQL's commit_delay for this queue. At a steady rate a batch is mostly one item (the store
   * is idle when it arrives), and each statement and commit costs the same whatever its size; waiting a little
   * for the next arrival shares that cost (issue 56). Absent: every batch goes at the end of its turn.
   */
  constructor(
    private readonly maxInFlight: number,
    /** Where the delay is measured and waited out. */
    private readonly clock: Clock,
    private readonly delay?: CommitDelay,
  ) {}

  protected submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      const now = this.clock.monotonic();
      const busy = this.delay !== undefined && now - this.lastSubmitAt <= this.delay.whenWithinMs;
      this.lastSubmitAt = now;
      if (this.scheduled) {
        if (this.lingering !== null && this.queue.length >= this.delay!.flushAt) {
          this.lingering.abort();
          this.lingering = null;
          setImmediate(this.flush);
        }
        return;
      }
      this.scheduled = true;
      // A batch in the store is itself a wait: what arrives meanwhile goes when it ends (pump), no delay added.
      if (busy && this.running < this.maxInFlight) this.linger(this.delay!.ms);
      else setImmediate(this.flush);
    });
  }

  /** A sleep, not a timer: the callers await their items, so the wait keeps the process alive as theirs. */
  private linger(ms: number): void {
    const wait = (this.lingering = new AbortController());
    void this.clock.sleep(ms, wait.signal).then(() => wait.signal.aborted || this.flush());
  }

  private readonly flush = (): void => {
    this.scheduled = false;
    this.lingering = null;
    this.pump();
  };

  /** Removes the next batch from `queue` (never empty while the queue is not). */
  protected abstract take(): Queued<I, O>[];

  /** Answers every item of the batch, resolved or rejected; never throws. */
  protected abstract run(batch: Queued<I, O>[]): Promise<void>;

  private pump(): void {
    while (this.running < this.maxInFlight && this.queue.length > 0) {
      const batch = this.take();
      this.running++;
      void this.run(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }
}
