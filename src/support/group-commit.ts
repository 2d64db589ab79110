/** One caller's item waiting for its batch, and how its answer reaches it. */
export interface Queued<I, O> {
  item: I;
  resolve(o: O): void;
  reject(e: unknown): void;
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

  constructor(private readonly maxInFlight: number) {}

  protected submit(item: I): Promise<O> {
    return new Promise((resolve, reject) => {
      this.queue.push({ item, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      setImmediate(() => {
        this.scheduled = false;
        this.pump();
      });
    });
  }

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
