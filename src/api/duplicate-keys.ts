/**
 * The first key that appears twice in one object of a JSON text, or null. JSON.parse keeps the last of
 * duplicates silently, so `{"amount":"1","amount":"1000"}` would mean something other than what a
 * reviewer or a signing UI shows; docs/spec.md §2 refuses it. Written by hand because no JSON library
 * here reports duplicates; it runs only on text JSON.parse has accepted (at most the 64 KiB body limit),
 * in one linear pass. Strings are skipped with indexOf and keys decoded only when they hold an escape:
 * an order's body (its quote inside) took 6.5 µs a request scanned character by character (issue 56).
 */
const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COLON = 0x3a;

export function firstDuplicateKey(text: string): string | null {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const stack: (Set<string> | null)[] = [];
  let keys: Set<string> | null = null;
  const n = text.length;
  let i = 0;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = stringEnd(text, i);
      if (keys !== null && nextNonSpace(text, end) === COLON) {
        const raw = text.slice(i + 1, end - 1);
        const key = raw.indexOf('\\') === -1 ? raw : (JSON.parse(text.slice(i, end)) as string);
        if (keys.has(key)) return key;
        keys.add(key);
      }
      i = end;
      continue;
    }
    if (c === 0x7b /* { */) stack.push((keys = new Set()));
    else if (c === 0x5b /* [ */) stack.push((keys = null));
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) {
      stack.pop();
      keys = stack.length === 0 ? null : stack[stack.length - 1]!;
    }
    i++;
  }
  return null;
}

/** The index just past the string token that opens at `start`: the first quote not escaped by an odd run of backslashes. */
function stringEnd(text: string, start: number): number {
  let from = start + 1;
  for (;;) {
    const q = text.indexOf('"', from);
    if (q === -1) return text.length;
    let before = q - 1;
    while (text.charCodeAt(before) === BACKSLASH) before--;
    if ((q - 1 - before) % 2 === 0) return q + 1;
    from = q + 1;
  }
}

function nextNonSpace(text: string, from: number): number {
  let i = from;
  let c = text.charCodeAt(i);
  while (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) c = text.charCodeAt(++i);
  return c;
}
