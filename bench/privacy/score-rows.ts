/**
 * Scores a run's rows on a thread of its own. Scoring is seconds to minutes of synchronous arithmetic (the
 * attacks' matchings): on the bench's main thread it stalled every other run's Hush, chain and arrivals
 * while it ran (with λ = 1 started first, 42 of 238 patient orders failed with "fetch failed"), so the
 * runs could not overlap their scoring with each other's traffic. What crosses is plain data: the chain
 * as read, the records, the knowledge with its fee schedule as quotes (scheduleFrom rebuilds it), and a
 * seed for the shuffles in place of the run's random stream.
 *
 * A large run's rows are scored on two threads: λ = 1's four rows took 428 s on one (2026-11-26), the tail of
 * the whole bench. Each row has a random stream of its own (the job's seed and the row's place), so a row's
 * score does not depend on which thread scored it or on the rows before it.
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
  /** Seeds the shuffles' random streams (row k's stream: seed + k). */
  seed: number;
  rows: { records: TruthRecord[]; meta: Omit<RowMeta, 'random'> }[];
}

/** A run with more completed records than this scores its rows on two threads. */
const TWO_THREADS_FROM = 3000;

/** The rows scored, in the job's order, by score-worker.ts on a thread (or two) of their own. */
export async function scoreRows(job: ScoreJob): Promise<ScoredRow[]> {
  const records = job.rows.reduce((n, r) => n + r.records.length, 0);
  const threads = records > TWO_THREADS_FROM && job.rows.length > 1 ? 2 : 1;
  const indices = job.rows.map((_, k) => k);
  const shares = Array.from({ length: threads }, (_, t) => indices.filter((k) => k % threads === t));
  const scored = await Promise.all(shares.map((ks) => onThread(job, ks)));
  const out: ScoredRow[] = [];
  shares.forEach((ks, t) => ks.forEach((k, n) => (out[k] = scored[t]![n]!)));
  return out;
}

/** Rows `ks` of the job, scored on a thread of their own. */
function onThread(job: ScoreJob, ks: number[]): Promise<ScoredRow[]> {
  return new Promise((resolve, reject) => {
    const worker = typescriptWorker(new URL('./score-worker.ts', import.meta.url), { workerData: { job: { ...job, rows: ks.map((k) => job.rows[k]!) }, ks } });
    let done = false;
    worker.once('message', (rows: ScoredRow[]) => ((done = true), resolve(rows)));
    worker.once('error', reject);
    worker.once('exit', (code) => done || reject(new Error(`the scoring thread exited with ${code} before answering`)));
  });
}
