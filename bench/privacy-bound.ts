/**
 * bench:privacy-bound — the arithmetic behind docs/privacy.md's "why no release policy meets the
 * standard-amount targets": the linked share an ideal class release reaches under the bench's own
 * workloads, with no chain and no Hush (a second, not ten minutes).
 *
 * The class mix comes from the workloads' own draw (200,000 orders per row). For each class (asset,
 * pinned amount, mode: for the swap mix, source asset and amount) arriving as Poisson at λ·p, a release
 * cycle starts at its first deposit and takes every deposit of the class until k are waiting or the cap
 * has passed; the best adversary then guesses one of a release's n at random, so it links one order per
 * release and the share linked is Σ p / E[n]. It ignores the release spread, the run's edges and
 * whatever else the real adversary exploits or misses: at the defaults it is close to bench:privacy's
 * standard rows (15 % against 13.5–16.4 % measured), at larger k it has been well below them.
 *
 *   npm run bench:privacy-bound                      k ∈ {8, 16, 24, ∞} × caps, at λ ∈ {0.2, 1}
 *   npm run bench:privacy-bound -- --usd=20-100      only the denominations worth $20–$100 offered
 */
import { loadConfig } from '../src/config/config.ts';
import { denominationsOf, seeded, workloads } from './privacy/workloads.ts';

const args = new Map(process.argv.slice(2).map((a) => a.replace(/^--/, '').split('=') as [string, string | undefined]));
const usd = args.get('usd')?.split('-').map(Number);
const config = loadConfig({});
const assets = new Map(config.assets.list.map((a) => [a.assetId, a]));
const worthUsd = (id: string, d: bigint) => (Number(d) / 10 ** assets.get(id)!.decimals) * Number(assets.get(id)!.referencePriceUsd);
const table = {
  get: (id: string) => assets.get(id)!,
  denominations: (id: string) => denominationsOf(assets.get(id)!).filter((d) => !usd || (worthUsd(id, d) >= usd[0]! * 0.99 && worthUsd(id, d) <= usd[1]! * 1.01)),
};

/** Expected release size of a class whose cycle gathers Poisson(m) more deposits after its first, up to k. */
function releaseSize(m: number, k: number): number {
  let p = Math.exp(-m);
  let below = 0;
  let size = 0;
  for (let j = 0; j < k - 1 && j < 10_000; j++) {
    size += (1 + j) * p;
    below += p;
    p *= m / (j + 1);
  }
  return size + Math.min(k, 10_001) * Math.max(0, 1 - below);
}

const DRAWS = 200_000;
const rows = workloads(table).filter((w) => ['std-out', 'std-in', 'swap'].includes(w.id));
const rand = seeded(20261122);
console.log(`linked share of an ideal class release (one link per release)${usd ? `, denominations worth $${usd[0]}–$${usd[1]} only` : ''}`);
console.log('row      classes  λ /s  cap s   k=8     k=16    k=24    k=∞');
for (const w of rows) {
  const counts = new Map<string, number>();
  for (let i = 0; i < DRAWS; i++) {
    const o = w.draw(rand);
    const key = `${o.sourceAssetId}:${o.amount}:${o.mode}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  const shares = [...counts.values()].map((c) => c / DRAWS);
  for (const [rate, caps] of [[1, [240, 270]], [0.2, [240, 540]]] as const) {
    for (const cap of caps) {
      const linked = [8, 16, 24, Infinity].map((k) => shares.reduce((s, p) => s + p / releaseSize(rate * p * cap, k === Infinity ? 100_000 : k), 0));
      console.log(`${w.id.padEnd(8)} ${String(counts.size).padStart(7)}  ${String(rate).padEnd(4)}  ${String(cap).padEnd(5)}  ${linked.map((l) => `${(100 * l).toFixed(1)} %`.padEnd(7)).join(' ')}`);
    }
  }
}
