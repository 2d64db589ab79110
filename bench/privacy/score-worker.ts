/** The scoring thread (score-rows.ts): scores its rows of the job (row k with a random stream of its own) and answers with them. */
import { setPriority } from 'node:os';
import { parentPort, workerData } from 'node:worker_threads';
import { scheduleFrom } from './adversary/fee-schedule.ts';
import type { ScoreJob } from './score-rows.ts';
import { scoreRow } from './score.ts';
import { seeded } from '../../src/support/seeded-random.ts';

// The lowest priority, for this thread only (on Linux a priority is a thread's, and 0 names the caller): the
// scoring takes the CPU the runs leave idle. At the same priority λ = 1's two scoring threads starved the λ = 0.2
// run beside them (its Hush lagged, delays p95 1,250–1,430 s against 825 s; 2026-11-26).
try {
  setPriority(0, 19);
} catch {
  // Not permitted here: the scoring runs at the bench's priority, as before.
}
const { job, ks } = workerData as { job: ScoreJob; ks: number[] };
const knowledge = { ...job.knowledge, schedule: scheduleFrom(job.knowledge.schedule) };
parentPort!.postMessage(job.rows.map(({ records, meta }, n) => scoreRow(job.view, records, knowledge, { ...meta, random: seeded(job.seed + ks[n]!) })));
