/** The scans' TypeScript reader (test/support/source-scan.ts): what it blanks, and that it ends on any input. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { lex } from '../support/source-scan.ts';

test('a regular expression after `return` (with quotes in it) is read as one, not as a division and strings', () => {
  const src = `function f(t: string) {\n  return /^\\s*"?(\\d+)"?\\s*,/.exec(t)?.[1];\n}\nconst s = 'held';\n`;
  const { strings, code } = lex(src);
  assert.deepEqual(strings.map((x) => x.text), ['held'], 'the only string is the real one');
  assert.ok(!code.includes('"?'), 'the pattern is blanked');
  assert.ok(code.includes('return /'), 'the code around it is kept');
});

test('a division stays a division; typeof and case before a pattern too', () => {
  const { strings } = lex(`const half = total / 2; const r = typeof x / 1; switch (y) { case /'a'/.source: break; }\nconst q = "b";\n`);
  assert.deepEqual(strings.map((x) => x.text), ['b']);
});

test('an unterminated string fails with its line instead of reading forever', () => {
  assert.throws(() => lex(`const a = 1;\nconst b = 'open\nconst c = 2;\n`), /unterminated string literal at line 2/);
});
