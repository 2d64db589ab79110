/** The scoring thread (score-rows.ts): scores the job's rows and answers with them. */
import { parentPort, workerData } from 'node:worker_threads';
import { scheduleFrom } from './adversary/fee-schedule.ts';
import type { ScoreJob } from './score-rows.ts';
import { scoreRow } from './score.ts';
import { seeded } from '../../src/support/seeded-random.ts';

const job = workerData as ScoreJob;
const knowledge = { ...job.knowledge, schedule: scheduleFrom(job.knowledge.schedule) };
const random = seeded(job.seed);
parentPort!.postMessage(job.rows.map(({ records, meta }) => scoreRow(job.view, records, knowledge, { ...meta, random })));
