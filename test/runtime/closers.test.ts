import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { Closers } from '../../src/runtime/closers.ts';

describe('Closers: the one list of what a running Hush closes', () => {
  it('closes the servers first, then the rest, each in reverse order of registration', async () => {
    const closed: string[] = [];
    const c = new Closers();
    for (const name of ['store', 'chain']) c.add(() => closed.push(name));
    c.addServing(() => closed.push('ops'));
    c.add(async () => closed.push('worker'));
    c.addServing(() => closed.push('api'));
    await c.closeAll();
    assert.deepEqual(closed, ['api', 'ops', 'worker', 'chain', 'store']);
  });

  it('a close that fails stops a shutdown (it is news); after a failed start every handler runs and is told so', async () => {
    const seen: boolean[] = [];
    const c = new Closers();
    c.add((how) => seen.push(how.failedStart));
    c.add(() => {
      throw new Error('stuck');
    });
    await assert.rejects(c.closeAll(), /stuck/);
    assert.deepEqual(seen, []);
    await c.closeAll({ failedStart: true });
    assert.deepEqual(seen, [true]);
  });
});
