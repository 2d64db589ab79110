/**
 * Runs jobs at most `places` at once, taking them in the order given, and never two of one exclusive group at
 * once. A job whose group is busy lets the jobs behind it pass but keeps its turn: the moment its group frees,
 * it is the first to go. A job may leave the queue before it ends (`leave`: its place and its group free, the
 * rest of it runs outside the count), as a bench run does once it no longer needs its chain and only scores.
 * p-limit cannot say this (a job waiting for its group inside a slot holds the slot idle; waiting outside, it
 * queues behind every job after it), hence this small hand-written queue.
 */
export interface QueuedJob<T> {
  /** Jobs with the same group never run at the same time (the bench's heavy runs). */
  exclusive?: string;
  run: (leave: () => void) => Promise<T>;
}

export function runQueue<T>(places: number, jobs: QueuedJob<T>[]): Promise<T>[] {
  if (!Number.isInteger(places) || places < 1) throw new RangeError('places must be a whole number of at least 1');
  const pending = jobs.map((job, i) => ({ job, i }));
  const busy = new Set<string>();
  const settle: { resolve: (v: T) => void; reject: (e: unknown) => void }[] = [];
  const results = jobs.map((_, i) => new Promise<T>((resolve, reject) => void (settle[i] = { resolve, reject })));
  let running = 0;
  const pump = () => {
    for (let k = 0; k < pending.length && running < places; ) {
      const { job, i } = pending[k]!;
      if (job.exclusive !== undefined && busy.has(job.exclusive)) {
        k++;
        continue;
      }
      pending.splice(k, 1);
      running++;
      if (job.exclusive !== undefined) busy.add(job.exclusive);
      let left = false;
      const leave = () => {
        if (left) return;
        left = true;
        running--;
        if (job.exclusive !== undefined) busy.delete(job.exclusive);
        pump();
      };
      // A job that throws synchronously is a rejected run like any other, never a stalled queue.
      Promise.resolve()
        .then(() => job.run(leave))
        .then(settle[i]!.resolve, settle[i]!.reject)
        .finally(leave);
    }
  };
  pump();
  return results;
}
