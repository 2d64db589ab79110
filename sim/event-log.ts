import { createHash } from 'node:crypto';

/**
 * What a run did, line by line, each stamped with its simulated time: what users asked and were answered,
 * each order's transitions, crashes and restarts, the invariants' checks. Two runs of one seed must write it
 * byte for byte (its hash is compared); `tail` keeps the last lines for a failure's report.
 */
export class EventLog {
  private readonly hash = createHash('sha256');
  private readonly recent: string[] = [];
  lines = 0;

  constructor(
    private readonly now: () => number,
    private readonly startedAt: number,
    private readonly echo?: (line: string) => void,
  ) {}

  add(text: string): void {
    const line = `${((this.now() - this.startedAt) / 1000).toFixed(3)} ${text}`;
    this.hash.update(line).update('\n');
    this.lines++;
    this.recent.push(line);
    if (this.recent.length > 200) this.recent.shift();
    this.echo?.(line);
  }

  tail(n = 40): string[] {
    return this.recent.slice(-n);
  }

  /** Folds `text` into the digest without a line of the log: what moved, at the run's end (run.ts). */
  fold(text: string): void {
    this.hash.update(text).update('\n');
  }

  digest(): string {
    return this.hash.copy().digest('hex');
  }
}
