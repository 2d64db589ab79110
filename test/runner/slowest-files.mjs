// A node:test reporter: each test file's wall time (from its first test's start to its last test's end,
// as the runner reports them), the ten slowest printed at the end. It also repeats every failure (file,
// test, error) at the end: a CI log keeps only its tail, and a failure in the middle of the TAP output was
// lost with the rest. Under npm test (HUSH_TEST_REPORT names a file) it writes both as JSON instead, and
// run-tests.mjs prints them for the whole run (and writes durations.json for `npm run test:durations`).
import { writeFileSync } from 'node:fs';
import { relative } from 'node:path';
import { inspect } from 'node:util';
import { sourceOf } from './bundle-tests.mjs';

/** At most this much of each failure's error, and this many failures. */
const ERROR_CHARS = 1_500;
const MAX_FAILURES = 20;

/** A lane's entry (group-files.mjs): its top-level suites are its files, named by their paths. */
const isGroup = (file) => /\/lanes\/[a-z]+-\d+\.test\.mjs$/.test(file ?? '');
/** Per group entry, the file (top-level suite) running now: a group's files run one after another. */
const current = new Map();

function fileOf(event) {
  if (!event.data.file) return '(no file)';
  if (isGroup(event.data.file)) return event.data.nesting === 0 ? event.data.name : (current.get(event.data.file) ?? event.data.file);
  return sourceOf(relative(process.cwd(), event.data.file));
}

function failureOf(event) {
  const file = fileOf(event);
  const err = event.data.details?.error;
  // node:test wraps a test's own error (failureType testCodeFailure) in its cause.
  const shown = err?.cause ?? err;
  const text = (shown instanceof Error ? `${shown.stack ?? shown.message}` : inspect(shown, { depth: 4, breakLength: 160 }))
    .split('\n').filter((l) => !/^\s+at (.*\(node:|node:|.*\(<anonymous>\)$|Array\.map)/.test(l)).join('\n');
  return `# FAILED ${file} > ${event.data.name} (${err?.failureType ?? 'error'})\n${text.slice(0, ERROR_CHARS).replace(/^/gm, '#     ')}`;
}

export default async function* slowestFiles(source) {
  const perFile = new Map();
  const failures = [];
  const counts = { tests: 0, failed: 0, skipped: 0 };
  for await (const event of source) {
    if ((event.type === 'test:pass' || event.type === 'test:fail') && event.data.details?.type !== 'suite') {
      counts.tests++;
      if (event.type === 'test:fail') counts.failed++;
      else if (event.data.skip || event.data.todo) counts.skipped++;
    }
    if (event.type === 'test:start' && event.data.nesting === 0 && isGroup(event.data.file)) current.set(event.data.file, event.data.name);
    if (event.type === 'test:fail' && !['subtestsFailed', 'cancelledByParent'].includes(event.data.details?.error?.failureType)) failures.push(failureOf(event));
    if ((event.type !== 'test:pass' && event.type !== 'test:fail') || event.data.nesting !== 0 || !event.data.file) continue;
    const file = fileOf(event);
    perFile.set(file, (perFile.get(file) ?? 0) + (event.data.details?.duration_ms ?? 0));
  }
  const rows = [...perFile].sort((a, b) => b[1] - a[1]);
  // Under npm test each process of the runner's pool writes its part (run-tests.mjs prints the whole).
  const report = process.env.HUSH_TEST_REPORT;
  if (report) {
    writeFileSync(report, JSON.stringify({ files: Object.fromEntries(rows.map(([f, ms]) => [f, Math.round(ms)])), failures, counts }));
    return;
  }
  yield summary(rows, failures);
}

/** The failures repeated, then the ten slowest files, as the end of a run prints them. */
export function summary(rows, failures) {
  let out = '';
  if (failures.length > 0) out += `\n# ${failures.length} failure(s)${failures.length > MAX_FAILURES ? `, the first ${MAX_FAILURES}` : ''}:\n${failures.slice(0, MAX_FAILURES).join('\n')}\n`;
  out += `\n# the ten slowest test files (seconds of their tests' own time):\n${rows.slice(0, 10).map(([f, ms]) => `#   ${(ms / 1000).toFixed(1).padStart(6)}  ${f}`).join('\n')}\n`;
  return out;
}
