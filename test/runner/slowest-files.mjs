// A node:test reporter: each test file's wall time (from its first test's start to its last test's end,
// as the runner reports them), the ten slowest printed at the end, and all of them written as JSON when
// HUSH_TEST_DURATIONS names a file (`npm run test:durations` writes test/runner/durations.json).
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { sourceOf } from './bundle-tests.mjs';

export default async function* slowestFiles(source) {
  const perFile = new Map();
  for await (const event of source) {
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || !event.data.file) continue;
    const file = sourceOf(relative(process.cwd(), event.data.file));
    perFile.set(file, (perFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  // Each lane writes its own file beside the named one; `npm run test:durations` merges them.
  const out = process.env.HUSH_TEST_DURATIONS;
  if (out) writeFileSync(`${out}.${process.env.HUSH_TEST_LANE ?? 'all'}`, `${JSON.stringify(Object.fromEntries(rows.filter(([f]) => f.endsWith('.test.ts')).map(([f, ms]) => [f, Math.round(ms)])), null, 1)}\n`);
  yield `\n# the ten slowest test files (seconds of their tests' own time):\n${rows.slice(0, 10).map(([f, ms]) => `#   ${(ms / 1000).toFixed(1).padStart(6)}  ${f}`).join('\n')}\n`;
}
