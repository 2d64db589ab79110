/**
 * Issue 51: bench:privacy's runs share a few places, and its heavy runs go one at a time. A heavy run waiting
 * for the heavy one before it must neither hold a place idle nor lose its turn to the light runs behind it.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { runQueue } from '../../bench/support/run-queue.ts';

/** A job that records when it starts and ends and finishes when the test says. */
function gate(name: string, log: string[]) {
  let open!: () => void;
  const done = new Promise<void>((r) => (open = r));
  return {
    open: () => open(),
    run: async () => {
      log.push(`+${name}`);
      await done;
      log.push(`-${name}`);
      return name;
    },
  };
}

const tick = () => new Promise((r) => setImmediate(r));

describe('run queue (bench:privacy)', () => {
  test('a heavy job waiting for its group lets light jobs take the free places, then goes first when its group frees', async () => {
    const log: string[] = [];
    const [h1, h2, l1, l2, l3] = ['h1', 'h2', 'l1', 'l2', 'l3'].map((n) => gate(n, log));
    const results = runQueue(3, [
      { exclusive: 'heavy', run: h1!.run },
      { exclusive: 'heavy', run: h2!.run },
      { run: l1!.run },
      { run: l2!.run },
      { run: l3!.run },
    ]);
    await tick();
    // h2 waits for h1 without holding a place: l1 and l2 take the other two.
    assert.deepEqual(log, ['+h1', '+l1', '+l2']);
    h1!.open();
    await tick();
    await tick();
    // h1's place goes to h2 (its turn kept), not to l3, which was behind it in the list.
    assert.deepEqual(log, ['+h1', '+l1', '+l2', '-h1', '+h2']);
    l1!.open();
    await tick();
    await tick();
    assert.deepEqual(log.slice(5), ['-l1', '+l3']);
    for (const g of [h2, l2, l3]) g!.open();
    assert.deepEqual(await Promise.all(results), ['h1', 'h2', 'l1', 'l2', 'l3']);
  });

  test('a job that leaves frees its place and its group at once; the rest of it still settles its own result', async () => {
    const log: string[] = [];
    const h2 = gate('h2', log);
    let finish!: () => void;
    const scoring = new Promise<void>((r) => (finish = r));
    const results = runQueue(1, [
      {
        exclusive: 'heavy',
        run: async (leave) => {
          log.push('+h1');
          leave();
          leave(); // twice is once
          await scoring;
          log.push('-h1');
          return 'h1';
        },
      },
      { exclusive: 'heavy', run: h2.run },
    ]);
    await tick();
    await tick();
    assert.deepEqual(log, ['+h1', '+h2'], 'h2 takes the one place and the heavy turn while h1 still runs');
    finish();
    h2.open();
    assert.deepEqual(await Promise.all(results), ['h1', 'h2']);
  });

  test('never more than its places at once; a job that throws rejects its own result and frees its place', async () => {
    let now = 0;
    let most = 0;
    const job = (fail: boolean) => async () => {
      now++;
      most = Math.max(most, now);
      await tick();
      now--;
      if (fail) throw new Error('run failed');
      return 'ok';
    };
    const results = runQueue(2, Array.from({ length: 7 }, (_, i) => ({ run: job(i === 1), ...(i % 3 === 0 ? { exclusive: 'heavy' } : {}) })));
    const settled = await Promise.allSettled(results);
    assert.equal(most, 2);
    assert.deepEqual(settled.map((s) => s.status), ['fulfilled', 'rejected', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled', 'fulfilled']);
    assert.throws(() => runQueue(0, []), RangeError);
  });
});
