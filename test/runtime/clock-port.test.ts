/**
 * Hush reads "now" through its clock port (src/support/clock.ts), never from Date itself: what it decides
 * by time can then be decided by a test's clock. Outside the port only the embedded local chain (a program
 * of its own, whose slots follow the wall clock), the operator console's browser script, and unique
 * temporary file names read Date.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { it } from 'node:test';

const SRC = join(import.meta.dirname, '../../src');
const ALLOWED = [/^support\/clock\.ts$/, /^localnet\//, /^store\/pglite-template\.ts$/];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The places in `text` that read the current time from Date. */
export function dateReads(text: string): string[] {
  return [...text.matchAll(/Date\.now\(\)|new Date\(\s*\)/g)].map((m) => m[0]);
}

it('finds a read of the time however it is written', () => {
  assert.deepEqual(dateReads('a = Date.now(); b = new Date(); c = new Date( ); d = new Date(x); e = Date.parse(s)'), ['Date.now()', 'new Date()', 'new Date( )']);
});

it('no file of src/ outside the clock port reads Date for the time', () => {
  const offenders = sourceFiles(SRC)
    .map((f) => [relative(SRC, f), dateReads(readFileSync(f, 'utf8'))] as const)
    .filter(([f, reads]) => reads.length > 0 && !ALLOWED.some((a) => a.test(f)))
    .map(([f, reads]) => `${f}: ${reads.length}`);
  assert.deepEqual(offenders, []);
});
