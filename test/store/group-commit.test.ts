/**
 * GroupCommit's commit delay (PostgreSQL's commit_delay for a queue): a lone item on a quiet queue goes at the end of
 * its turn; while items arrive close together, one that would go alone waits for company, up to the delay or until
 * the queue is long enough.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { GroupCommit, type CommitDelay, type Queued } from '../../src/support/group-commit.ts';
import { systemClock } from '../../src/support/clock.ts';

class Recorder extends GroupCommit<string, number> {
  readonly batches: string[][] = [];
  constructor(delay?: CommitDelay) {
    super(1, systemClock, delay);
  }
  add(item: string): Promise<number> {
    return this.submit(item);
  }
  protected take(): Queued<string, number>[] {
    const batch = this.queue;
    this.queue = [];
    return batch;
  }
  protected async run(batch: Queued<string, number>[]): Promise<void> {
    this.batches.push(batch.map((q) => q.item));
    for (const q of batch) q.resolve(batch.length);
  }
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

test('without a delay, and on a quiet queue with one, a lone item goes at the end of its turn', async () => {
  for (const delay of [undefined, { ms: 10_000, whenWithinMs: 50, flushAt: 64 }]) {
    const q = new Recorder(delay);
    const started = performance.now();
    assert.equal(await q.add('a'), 1);
    // A turn, not the delay: far below 10 s even on a loaded machine.
    assert.ok(performance.now() - started < 2_000);
    await sleep(100); // quiet again: past whenWithinMs
    assert.equal(await q.add('b'), 1);
    assert.deepEqual(q.batches, [['a'], ['b']]);
  }
});

test('items arriving close together: the one that would go alone waits, and what arrives meanwhile shares its batch', async () => {
  const q = new Recorder({ ms: 300, whenWithinMs: 60_000, flushAt: 64 });
  await q.add('a'); // the first: nothing came before it
  await sleep(10); // a's batch has ended: a batch still in the store is a wait of its own, and adds no delay
  const b = q.add('b'); // within whenWithinMs of a, the store idle: waits up to 300 ms
  await sleep(20);
  const c = q.add('c');
  assert.deepEqual(await Promise.all([b, c]), [2, 2]);
  assert.deepEqual(q.batches, [['a'], ['b', 'c']]);
});

test('a queue as long as flushAt goes at once, without waiting out the delay', async () => {
  const q = new Recorder({ ms: 10_000, whenWithinMs: 60_000, flushAt: 3 });
  await q.add('a');
  await sleep(10);
  const started = performance.now();
  const sizes = await Promise.all([q.add('b'), q.add('c'), q.add('d')]);
  assert.ok(performance.now() - started < 2_000, 'not the 10 s delay');
  assert.deepEqual(sizes, [3, 3, 3]);
  assert.deepEqual(q.batches, [['a'], ['b', 'c', 'd']]);
});
