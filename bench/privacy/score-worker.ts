/** The scoring thread (score-rows.ts): scores its rows of the job (row k with a random stream of its own) and answers with them. */
import { parentPort, workerData } from 'node:worker_threads';
import { scheduleFrom } from './adversary/fee-schedule.ts';
import type { ScoreJob } from './score-rows.ts';
import { scoreRow } from './score.ts';
import { seeded } from '../../src/support/seeded-random.ts';

const { job, ks } = workerData as { job: ScoreJob; ks: number[] };
const knowledge = { ...job.knowledge, schedule: scheduleFrom(job.knowledge.schedule) };
parentPort!.postMessage(job.rows.map(({ records, meta }, n) => scoreRow(job.view, records, knowledge, { ...meta, random: seeded(job.seed + ks[n]!) })));
