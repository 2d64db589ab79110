import type { AmountSchedule } from './amount-model.ts';
import type { PipelineLatency, ReleasePolicy } from './timing-model.ts';

/** What every adversary knows besides the chain: Hush's public fee schedule, release policy and timing. */
export interface AdversaryKnowledge {
  schedule: AmountSchedule;
  policy: ReleasePolicy;
  latency: PipelineLatency;
  /** Seconds per slot (public: any cluster's performance samples tell it). */
  slotS: number;
  /** Standard amounts per asset (GET /tokens): under class release they say which payouts wait for a class. */
  denominations?: ReadonlyMap<string, ReadonlySet<bigint>>;
  /** Accounts every Hush transaction or deposit names: programs, mints, sysvars, Hush's fee payer and pools. */
  commonAccounts: ReadonlySet<string>;
}
