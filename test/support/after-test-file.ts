/**
 * Cleanup a support module registers once for every test file that uses it (close the file's shared stores,
 * kill the processes it started). A test file alone in its process runs it as a root `after`. In a group
 * (test/runner/group-files.mjs: several files in one process, one after another) a support module is
 * evaluated once, in the first file's suite, so a hook it declared at its top level would run for that file
 * only and the next files' stores and processes would outlive them (the process then never exits): the
 * group's entry keeps these and runs all of them after each file's own `after` hooks.
 *
 * Cleanups run in the order registered, then those registered `last` (closing the kept spare stores: the
 * others' cleanup closes stores that become spares).
 */
import { after } from 'node:test';

const GROUP_CLEANUPS = Symbol.for('hush.test.fileCleanups');

const cleanups: (() => unknown)[] = [];
const finals: (() => unknown)[] = [];
let registered = false;

async function runAll(): Promise<void> {
  const errors: unknown[] = [];
  for (const fn of [...cleanups, ...finals]) {
    try {
      await fn();
    } catch (e) {
      errors.push(e);
    }
  }
  if (errors.length > 0) throw errors[0];
}

export function afterTestFile(fn: () => unknown, opts: { last?: boolean } = {}): void {
  (opts.last ? finals : cleanups).push(fn);
  if (registered) return;
  registered = true;
  const group = (globalThis as Record<symbol, Set<() => unknown> | undefined>)[GROUP_CLEANUPS];
  if (group) group.add(runAll);
  else after(runAll);
}
