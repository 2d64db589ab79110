/**
 * Mulberry32: a small seeded generator for what must repeat: bench:privacy's workloads and a property
 * test's draws (fast-check shrinks the seed, and `HUSH_PROPERTY_SEED` replays the run). Never for keys,
 * ids or a release's order in production: the worker uses crypto randomness there.
 */
export function seeded(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s + 0x6d2b79f5) >>> 0;
    let z = s;
    z = Math.imul(z ^ (z >>> 15), z | 1);
    z ^= z + Math.imul(z ^ (z >>> 7), z | 61);
    return ((z ^ (z >>> 14)) >>> 0) / 4294967296;
  };
}
