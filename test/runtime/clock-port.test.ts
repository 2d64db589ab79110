/**
 * Hush reads the time and waits only through its clock port (src/support/clock.ts), and draws only through
 * its randomness port (src/support/random.ts), each handed down from a composition root: what it decides by
 * time or by chance can then be decided by a test's clock or the simulator's seed. This scan fails on any
 * other reader of time, timer, timeout or draw in `src/`, and on any part that falls back to the system's
 * clock or randomness by itself. Outside the two ports only the edges below remain, each with its reason.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { it } from 'node:test';

const SRC = join(import.meta.dirname, '../../src');

/** What the scan looks for, by name. */
const FORMS = {
  'Date.now': /\bDate\.now\b/g,
  'new Date()': /\bnew Date\(\s*\)/g,
  'performance.now': /\bperformance\.now\b/g,
  // Not a method of something else (a socket's setTimeout is its idle timeout, not a timer).
  timer: /(?:(?<![\w.$])|\bglobalThis\.)(?:setTimeout|setInterval|clearTimeout|clearInterval)\b/g,
  'AbortSignal.timeout': /\bAbortSignal\.timeout\b/g,
  'node:timers': /['"](?:node:)?timers(?:\/promises)?['"]/g,
  'Math.random': /\bMath\.random\b/g,
  'crypto draw': /\bimport\s*\{[^}]*\b(?:randomInt|randomBytes|randomUUID|randomFill|randomFillSync|getRandomValues)\b[^}]*\}\s*from\s*['"](?:node:)?crypto['"]|\bcrypto\.(?:randomInt|randomBytes|randomUUID|getRandomValues)\b/g,
  'system default': /(?:=|\?\?)\s*system(?:Clock|Random)\b/g,
  'system port by name': /\bsystem(?:Clock|Random)\b/g,
} as const;
type Form = keyof typeof FORMS;

/** The files that may use a form, and why. Paths are relative to src/. */
const EDGES: { file: RegExp; forms: Form[]; why: string }[] = [
  { file: /^support\/(clock|random)\.ts$/, forms: Object.keys(FORMS) as Form[], why: 'the ports themselves: the system clock and node:crypto behind them' },
  { file: /^cli\/[^/]+\.ts$/, forms: ['system port by name'], why: 'the composition roots: each entry point wires the system clock and randomness' },
  { file: /^store\/pglite-template\.ts$/, forms: ['Date.now'], why: "unique names of temporary files beside the shared template: a name, not a time Hush decides by" },
  { file: /^treasury\/secret-file\.ts$/, forms: ['crypto draw'], why: 'key material written once to DATA_DIR: its strength never rests on a generator a run may seed' },
  { file: /^treasury\/seed-rotation\.ts$/, forms: ['crypto draw'], why: 'a rotation writes a new treasury seed to DATA_DIR: key material never rests on a generator a run may seed' },
];

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : []));
}

/** The text without its comments (a comment may name what the code must not do). */
function code(text: string): string {
  return text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:'"`\\])\/\/.*$/gm, '$1');
}

/** Each form found in `text`, with what matched. */
export function timeAndChance(text: string): { form: Form; found: string }[] {
  const body = code(text);
  return (Object.entries(FORMS) as [Form, RegExp][]).flatMap(([form, re]) => [...body.matchAll(re)].map((m) => ({ form, found: m[0] })));
}

it('finds every form of reading the time, waiting, drawing, and falling back to the system', () => {
  const sample = [
    'const a = Date.now(); const b = new Date(); const c = new Date( ); const d = new Date(x); const e = Date.parse(s);',
    'constructor(private readonly now: () => number = Date.now) {}',
    'this.now = opts.now ?? Date.now;',
    'const t = performance.now();',
    'setTimeout(f, 1); setInterval(f, 2); clearTimeout(t); clearInterval(t); globalThis.setTimeout(f, 3);',
    "socket.setTimeout(2000, () => socket.destroy()); setImmediate(flush);",
    'fetch(url, { signal: AbortSignal.timeout(5000) });',
    "import { setTimeout as sleep } from 'node:timers/promises';",
    'const r = Math.random();',
    "import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';",
    'const id = crypto.randomUUID();',
    'private readonly clock: Clock = systemClock,',
    'const random = opts.random ?? systemRandom;',
    '// Date.now() in a comment, and /* Math.random() */ in another, are not code.',
    "const url = 'http://127.0.0.1:9'; // setTimeout",
  ].join('\n');
  assert.deepEqual(
    timeAndChance(sample).map((f) => `${f.form}: ${f.found}`),
    [
      'Date.now: Date.now',
      'Date.now: Date.now',
      'Date.now: Date.now',
      'new Date(): new Date()',
      'new Date(): new Date( )',
      'performance.now: performance.now',
      'timer: setTimeout',
      'timer: setInterval',
      'timer: clearTimeout',
      'timer: clearInterval',
      'timer: globalThis.setTimeout',
      'timer: setTimeout',
      'AbortSignal.timeout: AbortSignal.timeout',
      "node:timers: 'node:timers/promises'",
      'Math.random: Math.random',
      "crypto draw: import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'",
      'crypto draw: crypto.randomUUID',
      'system default: = systemClock',
      'system default: ?? systemRandom',
      'system port by name: systemClock',
      'system port by name: systemRandom',
    ],
  );
});

it('no file of src/ reads the time, waits, draws or falls back to the system outside the ports and the named edges', () => {
  const offenders = sourceFiles(SRC).flatMap((path) => {
    const file = relative(SRC, path).split('\\').join('/');
    const allowed = new Set(EDGES.filter((e) => e.file.test(file)).flatMap((e) => e.forms));
    return timeAndChance(readFileSync(path, 'utf8'))
      .filter((f) => !allowed.has(f.form))
      .map((f) => `${file}: ${f.form} (${f.found})`);
  });
  assert.deepEqual(offenders, []);
});

it('every named edge is still used: an edge nobody needs any more is removed from the list', () => {
  const files = sourceFiles(SRC).map((path) => ({ file: relative(SRC, path).split('\\').join('/'), found: new Set(timeAndChance(readFileSync(path, 'utf8')).map((f) => f.form)) }));
  const unused = EDGES.filter((e) => !files.some((f) => e.file.test(f.file) && e.forms.some((form) => f.found.has(form)))).map((e) => String(e.file));
  assert.deepEqual(unused, []);
});
