/**
 * The first key that appears twice in one object of a JSON text, or null. JSON.parse keeps the last of
 * duplicates silently, so `{"amount":"1","amount":"1000"}` would mean something other than what a
 * reviewer or a signing UI shows; docs/spec.md §2 refuses it. Written by hand because no JSON library
 * here reports duplicates; it runs only on text JSON.parse has accepted (at most the 64 KiB body limit),
 * in one linear pass.
 */
export function firstDuplicateKey(text: string): string | null {
  // One entry per open container: the keys seen so far for an object, null for an array.
  const stack: (Set<string> | null)[] = [];
  let i = 0;
  while (i < text.length) {
    const c = text[i]!;
    if (c === '{') stack.push(new Set());
    else if (c === '[') stack.push(null);
    else if (c === '}' || c === ']') stack.pop();
    else if (c === '"') {
      const end = stringEnd(text, i);
      const keys = stack.at(-1);
      if (keys && nextNonSpace(text, end) === ':') {
        const key = JSON.parse(text.slice(i, end)) as string;
        if (keys.has(key)) return key;
        keys.add(key);
      }
      i = end;
      continue;
    }
    i++;
  }
  return null;
}

/** The index just past the string token that opens at `start`. */
function stringEnd(text: string, start: number): number {
  let i = start + 1;
  while (i < text.length && text[i] !== '"') i += text[i] === '\\' ? 2 : 1;
  return i + 1;
}

function nextNonSpace(text: string, from: number): string | undefined {
  let i = from;
  while (i < text.length && (text[i] === ' ' || text[i] === '\t' || text[i] === '\n' || text[i] === '\r')) i++;
  return text[i];
}
