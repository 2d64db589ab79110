/**
 * What the scan tests read of a TypeScript file: its code with comments and the insides of literals blanked
 * (so a word in a comment or a message is not taken for code), its quoted strings, and the text of its
 * template literals (where Hush writes its SQL). Offsets are the file's own: `code` keeps every character's
 * place, so a hit maps back to its line.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';

/** Every file under `dir` whose name ends with `ext`, recursively. */
export function sourceFiles(dir: string, ext = '.ts'): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => (e.isDirectory() ? sourceFiles(join(dir, e.name), ext) : e.name.endsWith(ext) ? [join(dir, e.name)] : []));
}

/** A string or a template literal's text chunk: `start`/`end` bound its content (quotes excluded). */
export interface Literal {
  start: number;
  end: number;
  text: string;
  quote: "'" | '"' | '`';
}

export interface Lexed {
  /** The file with comments and literal contents replaced by spaces (newlines kept). */
  code: string;
  /** Quoted strings in code ('…' and "…"), ${…} expressions of templates included. */
  strings: Literal[];
  /** Template literal text, one chunk per stretch between its backticks and ${…} expressions. */
  templates: Literal[];
}

/** The 1-based line of `index` in `text`. */
export function lineOf(text: string, index: number): number {
  let line = 1;
  for (let i = 0; i < index; i++) if (text.charCodeAt(i) === 10) line++;
  return line;
}

/** Keywords after which a `/` starts a regular expression (`return /x/.test(s)`), not a division. */
const REGEX_AFTER = new Set(['return', 'typeof', 'case', 'do', 'else', 'in', 'of', 'new', 'delete', 'void', 'throw', 'yield', 'await']);

/** The identifier that ends just before `index` (whitespace skipped), or ''. */
function wordBefore(src: string, index: number): string {
  let end = index;
  while (end > 0 && /\s/.test(src[end - 1]!)) end--;
  let start = end;
  while (start > 0 && /[\w$]/.test(src[start - 1]!)) start--;
  return src.slice(start, end);
}

/** Reads `src` as TypeScript, well enough for scans: strings, templates (nested), comments, regular expressions. */
export function lex(src: string): Lexed {
  const out = src.split('');
  const strings: Literal[] = [];
  const templates: Literal[] = [];
  const blank = (from: number, to: number) => {
    for (let k = from; k < to; k++) if (out[k] !== '\n') out[k] = ' ';
  };
  // One entry per template whose ${…} expression is open: the braces opened inside that expression.
  const open: number[] = [];
  const chunk = (from: number): number => {
    for (let j = from; j < src.length; j++) {
      const c = src[j];
      if (c === '\\') {
        j++;
        continue;
      }
      if (c === '`' || (c === '$' && src[j + 1] === '{')) {
        templates.push({ start: from, end: j, text: src.slice(from, j), quote: '`' });
        blank(from, j);
        if (c === '`') return j + 1;
        open.push(0);
        return j + 2;
      }
    }
    throw new Error('unterminated template literal');
  };
  let last = '';
  let i = 0;
  while (i < src.length) {
    const c = src[i]!;
    const next = src[i + 1];
    if (c === '/' && next === '/') {
      const e = src.indexOf('\n', i);
      const end = e < 0 ? src.length : e;
      blank(i, end);
      i = end;
    } else if (c === '/' && next === '*') {
      const end = src.indexOf('*/', i + 2) + 2;
      blank(i, end);
      i = end;
    } else if (c === "'" || c === '"') {
      let j = i + 1;
      while (src[j] !== c) {
        // A string never spans a line: a quote misread (say, inside a regular expression) fails here, not forever.
        if (j >= src.length || src[j] === '\n') throw new Error(`unterminated string literal at line ${lineOf(src, i)}`);
        j += src[j] === '\\' ? 2 : 1;
      }
      strings.push({ start: i + 1, end: j, text: src.slice(i + 1, j), quote: c });
      blank(i + 1, j);
      i = j + 1;
      last = c;
    } else if (c === '`') {
      i = chunk(i + 1);
      last = '`';
    } else if (open.length > 0 && c === '}' && open[open.length - 1] === 0) {
      open.pop();
      i = chunk(i + 1);
      last = '`';
    } else if (c === '/' && (last === '' || '(,=:[!&|?{};+-*%<>~^'.includes(last) || REGEX_AFTER.has(wordBefore(src, i)))) {
      // A regular expression (after an operator or an opening bracket; a division follows a value).
      let j = i + 1;
      let inClass = false;
      while (j < src.length && (inClass || src[j] !== '/')) {
        if (src[j] === '\\') j++;
        else if (src[j] === '[') inClass = true;
        else if (src[j] === ']') inClass = false;
        j++;
      }
      blank(i + 1, j);
      i = j + 1;
      last = '/';
    } else {
      if (open.length > 0 && c === '{') open[open.length - 1]!++;
      else if (open.length > 0 && c === '}') open[open.length - 1]!--;
      if (!/\s/.test(c)) last = c;
      i++;
    }
  }
  return { code: out.join(''), strings, templates };
}
