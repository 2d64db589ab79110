import type { Horizon } from './run.ts';

/**
 * Real seconds of arrivals per run of bench:privacy: a warm-up of a quarter budget that is not scored (a fresh
 * Hush measures no class rate for its first fourteenth of a hold, and sends those payouts alone: the cold
 * start has a row of its own; in a quarter budget the main classes have been seen at λ = 0.2 too), a scored
 * span of one and a half budgets (at least five minutes), then a budget of padding, so that every scored
 * order's class reaches its target or its deadline with the traffic a steady stream would bring. The count
 * per row (`maxOrders`) caps it (the scored span shrinks first). Rows that ask to wait (`patient`) keep
 * traffic coming for half the ceiling after the scored span. bench:privacy-bound's --bench-span replays the
 * same span without a chain (docs/privacy.md, "The λ = 1 gap to the ideal").
 */
export function horizonFor(rate: number, policy: { budgetS: number; ceilingS: number }, maxOrders: number, patient = false): Horizon {
  const padding = patient ? Math.max(policy.budgetS, policy.ceilingS / 2) : policy.budgetS;
  const warmup = policy.budgetS / 4;
  const scored = Math.max(300, 1.5 * padding);
  return { warmup, scored: Math.max(60, Math.min(scored, maxOrders / rate - padding - warmup)), padding };
}
