/** A pool and what it can still pay (its balance less pending outflows and what a batch took). */
export interface PoolOffer<P> {
  pool: P;
  available: bigint;
}

export interface Allocation<P> {
  pool: P;
  amount: bigint;
}

/** The pools in a random order, from the caller's random source (the runtime's Random: src/support/random.ts). */
export function shufflePools<P>(pools: readonly P[], random: () => number): P[] {
  return [...pools].sort(() => random() - 0.5);
}

/**
 * Chooses pool wallets for an outgoing amount, from pools already shuffled: the first that covers it
 * alone, else several, largest first, so the one transaction paying from them needs as few pool
 * signatures as it can. Null when together they cannot cover it.
 */
export function allocate<P>(amount: bigint, shuffled: readonly PoolOffer<P>[]): Allocation<P>[] | null {
  const single = shuffled.find((o) => o.available >= amount);
  if (single) return [{ pool: single.pool, amount }];
  const chosen: Allocation<P>[] = [];
  let left = amount;
  for (const o of [...shuffled].sort((a, b) => (b.available > a.available ? 1 : b.available < a.available ? -1 : 0))) {
    const take = o.available < left ? o.available : left;
    if (take <= 0n) continue;
    chosen.push({ pool: o.pool, amount: take });
    left -= take;
    if (left === 0n) break;
  }
  return left > 0n ? null : chosen;
}
