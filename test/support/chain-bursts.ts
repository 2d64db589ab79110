/**
 * What an outside reader counts as one release on the chain, computed by a test from the landing slots it
 * read itself (the rule of bench/privacy/score.ts chainBurstSizes, docs/privacy.md): payouts no more than
 * `spanSlots` apart, chained. Issue 54: privacy.releasedWith must equal it.
 */

/** The bench's span for a chain of `slotMs` slots and a release spread of `spreadMs`: the spread in slots + 5c + 5, c = 400 / slotMs. */
export function benchSpanSlots(spreadMs: number, slotMs: number): number {
  const c = 400 / slotMs;
  return Math.ceil(spreadMs / slotMs) + 5 * c + 5;
}

/** Each key's burst size, from its payout's landed slot. */
export function chainBursts(slots: Map<string, bigint>, spanSlots: number): Map<string, number> {
  const sorted = [...slots].sort((a, b) => (a[1] < b[1] ? -1 : a[1] > b[1] ? 1 : 0));
  const out = new Map<string, number>();
  let start = 0;
  for (let i = 1; i <= sorted.length; i++) {
    if (i === sorted.length || sorted[i]![1] - sorted[i - 1]![1] > BigInt(spanSlots)) {
      for (let j = start; j < i; j++) out.set(sorted[j]![0], i - start);
      start = i;
    }
  }
  return out;
}
