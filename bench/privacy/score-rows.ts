/**
 * Scores a run's rows on a thread of its own. Scoring is seconds to minutes of synchronous arithmetic (the
 * attacks' matchings): on the bench's main thread it stalled every other run's Hush, chain and arrivals
 * while it ran (with λ = 1 started first, 42 of 238 patient orders failed with "fetch failed"), so the
 * runs could not overlap their scoring with each other's traffic. What crosses is plain data: the chain
 * as read, the records, the knowledge with its fee schedule as quotes (scheduleFrom rebuilds it), and a
 * seed for the shuffles in place of the run's random stream.
 */
import { typescriptWorker } from '../../src/support/typescript-worker.ts';
import type { ChainView } from './adversary/observe-chain.ts';
import type { AdversaryKnowledge } from './adversary/knowledge.ts';
import type { ScheduleData } from './adversary/fee-schedule.ts';
import type { TruthRecord } from './driver.ts';
import type { RowMeta, ScoredRow } from './score.ts';

export interface ScoreJob {
  view: ChainView;
  knowledge: Omit<AdversaryKnowledge, 'schedule'> & { schedule: ScheduleData };
  /** Seeds the shuffles' random stream (one stream for the rows in order, as the run's was). */
  seed: number;
  rows: { records: TruthRecord[]; meta: Omit<RowMeta, 'random'> }[];
}

/** The rows scored, in the job's order, by score-worker.ts on a thread of its own. */
export function scoreRows(job: ScoreJob): Promise<ScoredRow[]> {
  return new Promise((resolve, reject) => {
    const worker = typescriptWorker(new URL('./score-worker.ts', import.meta.url), { workerData: job });
    let done = false;
    worker.once('message', (rows: ScoredRow[]) => ((done = true), resolve(rows)));
    worker.once('error', reject);
    worker.once('exit', (code) => done || reject(new Error(`the scoring thread exited with ${code} before answering`)));
  });
}
