/**
 * What an outside reader counts as one release on the chain (docs/privacy.md, the bench's burst rule):
 * payouts of a class whose landing slots lie no more than a span apart, chained. The span is a release's
 * spread in slots plus Hush's own landing latency, which does not scale with the slot time: five slots of
 * 400 ms and five more slots. The status record's privacy.releasedWith is this count over the order's
 * release (docs/spec.md §9, issue 54), so it is never larger than what the chain shows.
 */

/** The burst span in slots for a release spread over `spreadMs`, on a chain of `slotMs` slots. */
export function burstSpanSlots(spreadMs: number, slotMs: number): number {
  const scale = Math.max(1, Math.round(400 / slotMs));
  return Math.ceil(spreadMs / slotMs) + 5 * scale + 5;
}

/**
 * Each member's burst size: members sorted by landed slot fall into the same burst while the gap to the
 * one before is at most `spanSlots`. A member without a landed slot (no payout landed) counts in none and
 * gets no size.
 */
export function landedBurstSizes(members: { id: string; slot: bigint | null }[], spanSlots: number): Map<string, number> {
  const landed = members.filter((m): m is { id: string; slot: bigint } => m.slot !== null).sort((a, b) => (a.slot < b.slot ? -1 : a.slot > b.slot ? 1 : 0));
  const sizes = new Map<string, number>();
  let start = 0;
  for (let i = 1; i <= landed.length; i++) {
    if (i === landed.length || landed[i]!.slot - landed[i - 1]!.slot > BigInt(spanSlots)) {
      for (let j = start; j < i; j++) sizes.set(landed[j]!.id, i - start);
      start = i;
    }
  }
  return sizes;
}
