/**
 * Answers true the first time it sees a key (an ALERT told once per process, not on every pass or retry).
 * Bounded: past `max` keys it forgets them all, so a key may be told once more rather than memory grow.
 */
export class OncePerKey {
  private readonly seen = new Set<string>();

  constructor(private readonly max = 10_000) {}

  first(key: string): boolean {
    if (this.seen.has(key)) return false;
    if (this.seen.size >= this.max) this.seen.clear();
    this.seen.add(key);
    return true;
  }
}
