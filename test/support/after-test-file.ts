/**
 * Cleanup a support module registers once for every test file that uses it (close the file's shared stores,
 * kill the processes it started). A test file alone in its process runs it as a root `after`. In a group
 * (test/runner/group-files.mjs: several files in one process, one after another) a support module is
 * evaluated once, in the first file's suite, so a hook it declared at its top level would run for that file
 * only and the next files' stores and processes would outlive them (the process then never exits): the
 * group's entry keeps these and runs all of them after each file's own `after` hooks.
 */
import { after } from 'node:test';

const GROUP_CLEANUPS = Symbol.for('hush.test.fileCleanups');

export function afterTestFile(fn: () => unknown): void {
  const group = (globalThis as Record<symbol, Set<() => unknown> | undefined>)[GROUP_CLEANUPS];
  if (group) group.add(fn);
  else after(fn);
}
