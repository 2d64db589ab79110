/**
 * A test's name says the behaviour it checks: what a reader of a failure needs, with no tracker at hand. It
 * never cites an issue, a pull request or a review's finding by number ("issue 49:", "(#12)", "finding 3:");
 * comments may, for history. Read: the first argument of describe, it, test and suite (and their .skip,
 * .only and .todo, and a subtest's t.test) in every test file, when it is a string or a template.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { it } from 'node:test';
import { lex, lineOf, sourceFiles } from '../support/source-scan.ts';

const TEST = join(import.meta.dirname, '..');
/** A citation by number: an issue, a pull request, a finding, or a bare #12. */
const CITATION = /\b(?:issues?|pr|pull request|findings?)\s*#?\s*\d+|#\d+\b/i;
const CALL = /\b(?:describe|it|test|suite)(?:\.(?:skip|only|todo))?\s*\(\s*$/;

/** The names of the tests and suites `text` declares, each with its line. */
export function testNames(text: string): { line: number; name: string }[] {
  const { code, strings, templates } = lex(text);
  // A template's first chunk starts right after its backtick; its name is its text up to the first ${…}.
  const literals = [...strings, ...templates.filter((t) => text[t.start - 1] === '`')].sort((a, b) => a.start - b.start);
  return literals.filter((l) => CALL.test(code.slice(Math.max(0, l.start - 40), l.start - 1))).map((l) => ({ line: lineOf(text, l.start), name: l.text }));
}

it('finds the names of tests and suites, however they are declared', () => {
  const text = ["describe('a suite', () => {", "  it(\"a test\", () => {});", '  test.skip(`a template ${1}`, () => {});', "  await t.test('a subtest', () => {});", "  it(", "    'a name on its own line',", '  );', "  const s = 'not a name';", '});'].join('\n');
  assert.deepEqual(testNames(text).map((n) => n.name), ['a suite', 'a test', 'a template ', 'a subtest', 'a name on its own line']);
  for (const cited of ['issue 49: screened', 'holds (issue 50)', 'finding 2: held', 'fixed in #12', 'PR 7 regression']) assert.match(cited, CITATION, cited);
  for (const plain of ['the finding it resolved', 'is issued now', 'two workers finding the same SOL', 'ids 10 and on sort first']) assert.doesNotMatch(plain, CITATION, plain);
});

it('no test or suite name cites an issue or a finding by number', () => {
  const offenders = sourceFiles(TEST).flatMap((f) =>
    testNames(readFileSync(f, 'utf8'))
      .filter((n) => CITATION.test(n.name))
      .map((n) => `${relative(TEST, f)}:${n.line}: ${n.name}`),
  );
  assert.deepEqual(offenders, []);
});
