/**
 * One read in flight per connection, shared by the callers on that connection. A caller inside a transaction
 * never joins a read made outside it: on PGlite everything outside waits for the open transaction, so a
 * transaction waiting for that read would wait for itself (a partner payout's plan hung the seed 4
 * `--faults store` simulation so). Written by hand: a memoizing library keys by arguments, not by the
 * connection the answer will come through.
 */
export class ReadPerConnection<On, T> {
  private inFlight: { on: On; answer: Promise<T> } | null = null;

  constructor(private readonly read: (on: On) => Promise<T>) {}

  /** The answer of the read in flight on `on`, or of a new one (which later callers on `on` then share). */
  get(on: On): Promise<T> {
    if (this.inFlight?.on === on) return this.inFlight.answer;
    const mine = { on, answer: this.read(on) };
    mine.answer = mine.answer.finally(() => {
      if (this.inFlight === mine) this.inFlight = null;
    });
    this.inFlight ??= mine;
    return mine.answer;
  }
}
