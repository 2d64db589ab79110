// `npm run mutate [-- --mutate <globs>]`: StrykerJS over the money paths (stryker.config.json), then the committed report
// (docs/mutation.md, scripts/mutation-report.mjs). With no arguments it mutates every money path the config names; a
// run on this two-core machine takes the subset docs/testing.md ("Mutation testing") gives, with --mutate.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { writeMutationReport } from './mutation-report.mjs';

const args = process.argv.slice(2);
const started = Date.now();
const REPORT = 'reports/mutation/mutation.json';
// A run over a subset (--mutate) replaces those files' results in the last report and keeps the others'.
const before = args.includes('--mutate') && existsSync(REPORT) ? JSON.parse(readFileSync(REPORT, 'utf8')) : null;
const r = spawnSync(process.execPath, ['node_modules/@stryker-mutator/core/bin/stryker.js', 'run', ...args], { stdio: 'inherit' });
if (r.status !== 0) process.exit(r.status ?? 1);
if (before) {
  const after = JSON.parse(readFileSync(REPORT, 'utf8'));
  writeFileSync(REPORT, JSON.stringify({ ...after, files: { ...before.files, ...after.files } }));
}
const config = JSON.parse(readFileSync('stryker.config.json', 'utf8'));
const i = args.indexOf('--mutate');
const files = Object.keys(JSON.parse(readFileSync(REPORT, 'utf8')).files);
const mutated = i < 0 ? config.mutate.join(', ') : before ? `${files.length} files (this run: ${args[i + 1]}; the others kept from the last report)` : args[i + 1];
const minutes = Math.round((Date.now() - started) / 60_000);
const date = new Date().toISOString().slice(0, 10);
process.stdout.write(`${writeMutationReport({ date, what: `mutated ${mutated}; killers ${config.tap.testFiles.join(', ')}; ${minutes} min on this machine` })}\n`);
