/**
 * One writer per edge: every pair `from → to` of an order's status (what the UPDATE compares and what it
 * sets) is written by exactly one function of src/. The scan reads each transition statement
 * (`transitionSql({ route … })`) and each `transitionOrder(…, from, to)` call, resolves the statuses it
 * names (a literal, a parameter's union type, a constant map), and attributes it to the exported function
 * that writes it (a statement's constant, or a private helper, counts for the functions of its file that
 * use it). one-status-writer.test.ts proves every status write goes through those two; this one that no
 * edge has two of them.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { canTransition, ORDER_STATUSES, type OrderStatus } from '../../src/domain/order-state.ts';

const SRC = join(import.meta.dirname, '../../src');
/** The builder itself (its own `route: [from, to]` is every caller's). */
const BUILDER = 'store/order-transitions.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

const uncommented = (text: string): string => text.replace(/\/\*[\s\S]*?\*\//g, (c) => c.replace(/[^\n]/g, ' ')).replace(/^\s*\/\/.*$/gm, (c) => ' '.repeat(c.length));

/** Top-level declarations of a file: name, where it starts and ends, whether it is exported. */
interface Decl {
  name: string;
  start: number;
  end: number;
  exported: boolean;
}

function declarations(text: string): Decl[] {
  const starts = [...text.matchAll(/^(export\s+)?(?:async\s+)?(?:function\s*\*?\s*|const\s+|let\s+|class\s+)(\w+)/gm)];
  return starts.map((m, i) => ({ name: m[2]!, start: m.index!, end: starts[i + 1]?.index ?? text.length, exported: !!m[1] }));
}

/** The text of a balanced (…) or {…} or […] starting at `open`. */
function balanced(text: string, open: number): string {
  const pairs: Record<string, string> = { '(': ')', '{': '}', '[': ']' };
  const stack: string[] = [];
  let quote: string | null = null;
  for (let i = open; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
      continue;
    }
    if (c === "'" || c === '"' || c === '`') quote = c;
    else if (pairs[c]) stack.push(pairs[c]!);
    else if (c === stack[stack.length - 1]) {
      stack.pop();
      if (stack.length === 0) return text.slice(open + 1, i);
    }
  }
  throw new Error(`unbalanced at ${open}`);
}

/** Splits at top-level commas. */
function args(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let quote: string | null = null;
  let from = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text[i]!;
    if (quote) {
      if (c === '\\') i++;
      else if (c === quote) quote = null;
    } else if (c === "'" || c === '"' || c === '`') quote = c;
    else if ('([{'.includes(c)) depth++;
    else if (')]}'.includes(c)) depth--;
    else if (c === ',' && depth === 0) {
      out.push(text.slice(from, i).trim());
      from = i + 1;
    }
  }
  if (text.slice(from).trim()) out.push(text.slice(from).trim());
  return out;
}

const ANY = '*';
const literals = (s: string): string[] => [...s.matchAll(/'([a-z_]+)'/g)].map((m) => m[1]!);

/** The statuses an expression may hold, in the function `scope` of file `text`: ANY when it may be any. */
function statuses(expr: string, scope: string, text: string): string[] {
  expr = expr.trim();
  const literal = /^'([a-z_]+)'$/.exec(expr);
  if (literal) return [literal[1]!];
  const indexed = /^(\w+)\[\w+\]$/.exec(expr);
  if (indexed) {
    const map = new RegExp(`const ${indexed[1]} = (\\{[^}]*\\})`).exec(text);
    if (map) return literals(map[1]!);
  }
  if (/^\w+$/.test(expr)) {
    const typed = new RegExp(`\\b${expr}\\??:\\s*([^,)=;]+)`).exec(scope);
    if (typed) return typeStatuses(typed[1]!.trim(), text);
  }
  return [ANY];
}

function typeStatuses(type: string, text: string): string[] {
  if (/^'/.test(type)) return literals(type);
  if (type === 'OrderStatus') return [ANY];
  const alias = new RegExp(`type ${type} = ([^;]+);`).exec(text);
  return alias ? literals(alias[1]!) : [ANY];
}

/** One write found: the pairs it writes, where, and in which top-level declaration. */
interface Write {
  file: string;
  decl: string;
  pairs: [string, string][];
}

function cross(froms: string[], tos: string[]): [string, string][] {
  return froms.flatMap((f) => tos.map((t): [string, string] => [f, t]));
}

function writesIn(rel: string, raw: string): Write[] {
  const text = uncommented(raw);
  const decls = declarations(text);
  const declAt = (i: number): Decl => [...decls].reverse().find((d) => d.start <= i) ?? { name: '(module)', start: 0, end: text.length, exported: false };
  const out: Write[] = [];
  for (const m of text.matchAll(/\btransitionSql\(\s*\{/g)) {
    const d = declAt(m.index!);
    const scope = text.slice(d.start, d.end);
    const shape = balanced(text, m.index! + m[0].length - 1);
    const routeAt = /\broute:\s*\[/.exec(shape);
    if (!routeAt) throw new Error(`${rel}: a transition statement without a literal route`);
    const route = args(balanced(shape, routeAt.index + routeAt[0].length - 1)).map((e) => statuses(e, scope, text));
    const fromCount = Number(/\bfromCount:\s*(\d+)/.exec(shape)?.[1] ?? 1);
    const toAt = /\bto:\s*\{/.exec(shape);
    const tos = toAt ? [/\bthen:\s*'(\w+)'/, /\belse:\s*'(\w+)'/].map((r) => r.exec(balanced(shape, toAt.index + toAt[0].length - 1))![1]!) : route[route.length - 1]!;
    out.push({ file: rel, decl: d.name, pairs: cross(route.slice(0, fromCount).flat(), tos) });
  }
  for (const m of text.matchAll(/\btransitionOrder\(/g)) {
    const d = declAt(m.index!);
    const a = args(balanced(text, m.index! + m[0].length - 1));
    const scope = text.slice(d.start, d.end);
    out.push({ file: rel, decl: d.name, pairs: cross(statuses(a[2]!, scope, text), statuses(a[3]!, scope, text)) });
  }
  return out.map((w) => ({ ...w, decl: writers(text, decls, w.decl).join('|') }));
}

/** The exported functions a declaration writes for: itself, or (a statement, a private helper) those of its file that use it. */
function writers(text: string, decls: Decl[], name: string, seen = new Set<string>()): string[] {
  const d = decls.find((x) => x.name === name);
  if (!d || d.exported || seen.has(name)) return [name];
  seen.add(name);
  const users = decls.filter((x) => x.name !== name && new RegExp(`\\b${name}\\b`).test(text.slice(x.start, x.end)));
  return users.length === 0 ? [name] : [...new Set(users.flatMap((u) => writers(text, decls, u.name, seen)))].sort();
}

/** Every pair `from → to` (ANY expanded to each status that may reach `to`), with the functions that write it. */
function edgeWriters(files: { rel: string; text: string }[]): Map<string, Set<string>> {
  const edges = new Map<string, Set<string>>();
  for (const { rel, text } of files) {
    for (const w of writesIn(rel, text)) {
      for (const [from, to] of w.pairs.filter(([f, t]) => f !== t)) {
        const froms = from === ANY ? ORDER_STATUSES.filter((s) => canTransition(s, to as OrderStatus)) : [from];
        for (const f of froms) {
          const key = `${f} → ${to}`;
          edges.set(key, (edges.get(key) ?? new Set()).add(`${w.file}:${w.decl}`));
        }
      }
    }
  }
  return edges;
}

const srcFiles = () =>
  sourceFiles(SRC)
    .map((f) => ({ rel: relative(SRC, f), text: readFileSync(f, 'utf8') }))
    .filter((f) => f.rel !== BUILDER);

describe('one writer per edge', () => {
  it('each from → to pair of an order status is written by exactly one function of src/', () => {
    const edges = edgeWriters(srcFiles());
    const shared = [...edges].filter(([, w]) => w.size !== 1).map(([e, w]) => `${e}: ${[...w].sort().join(', ')}`);
    assert.deepEqual(shared, []);
    // The scan sees the writers it is about (a scan that finds nothing proves nothing).
    const writer = (e: string) => [...(edges.get(e) ?? [])];
    assert.deepEqual(writer('deposit_confirmed → sending'), ['store/settlement/start-payouts.ts:startPayouts']);
    assert.deepEqual(writer('swapping → sending'), ['store/settlement/start-payouts.ts:startPayouts']);
    assert.deepEqual(writer('deposit_detected → deposit_confirmed'), ['store/settlement/confirm-deposits.ts:confirmDeposits']);
    assert.deepEqual(writer('awaiting_deposit → sending'), ['store/settlement/confirm-deposits.ts:confirmDeposits']);
    assert.deepEqual(writer('sending → completed'), ['store/settlement/complete-payouts.ts:completePayouts']);
    assert.deepEqual(writer('refunding → failed'), ['store/settlement/fail-order.ts:failOrder']);
    assert.deepEqual(writer('deposit_confirmed → refunding'), ['store/settlement/refund-order.ts:refundOrder']);
    assert.deepEqual(writer('held → refunding'), ['store/holds/resolve-hold.ts:resolveHold']);
    assert.ok(edges.size >= 25, `${edges.size} edges seen`);
  });

  it('the scan sees the same edge written twice, by a statement, a call, a typed parameter or a map', () => {
    const one = `export async function a(db) { return transitionOrder(db, id, 'sending', 'completed'); }`;
    const statement = `const S = transitionSql({\n  route: ['sending', 'completed'],\n});\nexport async function b(db) { return db.query(S); }`;
    const typed = `type From = Extract<OrderStatus, 'sending' | 'swapping'>;\nexport async function c(db, from: From) { return transitionOrder(db, id, from, 'completed'); }`;
    const composed = `const C = transitionSql({\n  route: ['swapping', 'sending', 'completed'],\n  fromCount: 2, to: { when: 'x', then: 'completed', else: 'sending' },\n});\nexport function d() { return C; }`;
    const stuck = `export async function e(db, r) { return transitionOrder(db, id, r.status, 'failed'); }\nexport async function f(db) { return transitionOrder(db, id, 'refunding', 'failed'); }`;
    const edges = edgeWriters([one, statement, typed, composed, stuck].map((text, i) => ({ rel: `f${i}.ts`, text })));
    assert.deepEqual([...edges.get('sending → completed')!].sort(), ['f0.ts:a', 'f1.ts:b', 'f2.ts:c', 'f3.ts:d']);
    assert.deepEqual([...edges.get('swapping → sending')!], ['f3.ts:d']);
    assert.deepEqual([...edges.get('refunding → failed')!].sort(), ['f4.ts:e', 'f4.ts:f']);
  });
});
