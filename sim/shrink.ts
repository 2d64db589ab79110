import { runSeed, type RunOptions, type RunReport } from './run.ts';
import type { Session } from './traffic.ts';

/** Replays a shrink may spend: each is a whole run of the seed on fewer users. */
const BUDGET = 24;

/**
 * The shortest schedule the failure survives on: users are dropped in halves, then quarters, … (delta
 * debugging's reduction), keeping a cut whenever the same invariant still fails. Faults are drawn from the
 * seed's own stream, so a shorter schedule meets the same kinds of faults, not always the same ones.
 */
export async function shrink(o: RunOptions, failed: RunReport, progress: (m: string) => void): Promise<{ kept: Session[]; runs: number }> {
  const invariant = failed.failure!.invariant;
  let kept = failed.sessions;
  let runs = 0;
  let parts = 2;
  while (kept.length > 1 && runs < BUDGET) {
    const size = Math.ceil(kept.length / parts);
    let cut = false;
    for (let i = 0; i < kept.length && runs < BUDGET; i += size) {
      const without = [...kept.slice(0, i), ...kept.slice(i + size)];
      if (without.length === 0) continue;
      runs++;
      const r = await runSeed({ ...o, keep: new Set(without.map((s) => s.id)), echo: undefined });
      if (!r.ok && r.failure!.invariant === invariant) {
        progress(`shrink: ${without.length} users still fail (${invariant})`);
        kept = without;
        cut = true;
        break;
      }
    }
    if (!cut) {
      if (size === 1) break;
      parts = Math.min(parts * 2, kept.length);
    } else parts = Math.max(parts - 1, 2);
  }
  return { kept, runs };
}
