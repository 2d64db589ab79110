import type { Clock } from '../support/clock.ts';

/**
 * A settlement step in phases, each its own recovery point ("atomic phases"):
 * - claim: takes the work — a lease on orders, an advisory lock, or rows only this step reads — and
 *   makes the reads its plan needs (store, chain). Nothing is written but the claim itself.
 * - plan: pure; what to do, from what was claimed, the reads and the time. Tested without I/O.
 * - commit: records the plan with compare-and-set writes, intent before any on-chain effect, and hands
 *   the effects (signed transactions) to the outbox, which sends them after the record.
 * A crash between phases leaves a claim that runs out (its lease or lock) or a record the settle loop
 * resends or settles; never an effect without its record.
 * `Deps`: the part of the context the step touches (its `…Deps` type, a Pick of SettlementContext).
 */
export interface Step<Deps, Claimed, Reads, Plan> {
  readonly name: string;
  claim(ctx: Deps): Promise<{ claimed: Claimed; reads: Reads } | null>;
  plan(claimed: Claimed, reads: Reads, now: number): Plan;
  commit(ctx: Deps, plan: Plan): Promise<number>;
}

/** Runs one pass of a step: claim, plan, commit. Returns what commit counted (0 when nothing was claimed). */
export async function runStep<D extends { readonly clock: Clock }, C, R, P>(ctx: D, step: Step<D, C, R, P>): Promise<number> {
  const claimed = await step.claim(ctx);
  if (!claimed) return 0;
  return step.commit(ctx, step.plan(claimed.claimed, claimed.reads, ctx.clock.now()));
}
