/**
 * A strict JSON parser that keeps every number as its source text. `JSON.parse` turns `0.0000123`
 * into a binary double before we can see it (and Node 20 has no reviver source access), so price
 * APIs that answer JSON numbers are parsed with this instead and the text goes through
 * `parseDecimalFraction`. Objects come back as null-prototype records; duplicate keys are refused.
 */
export class JsonNumber {
  constructor(readonly text: string) {}
}

export type ExactJson = null | boolean | string | JsonNumber | ExactJson[] | { [key: string]: ExactJson };

export class ExactJsonError extends Error {
  override readonly name = 'ExactJsonError';
}

const MAX_DEPTH = 64;
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y;
const STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y;

export function parseExactJson(text: string): ExactJson {
  let i = 0;
  const fail = (what: string): never => {
    throw new ExactJsonError(`${what} at offset ${i}`);
  };
  const ws = () => {
    while (i < text.length) {
      const c = text.charCodeAt(i);
      if (c === 0x20 || c === 0x09 || c === 0x0a || c === 0x0d) i++;
      else break;
    }
  };
  const value = (depth: number): ExactJson => {
    if (depth > MAX_DEPTH) fail('nesting too deep');
    ws();
    const c = text[i];
    if (c === '{') {
      i++;
      const obj: { [key: string]: ExactJson } = Object.create(null);
      ws();
      if (text[i] === '}') {
        i++;
        return obj;
      }
      for (;;) {
        ws();
        if (text[i] !== '"') fail('expected a key');
        const key = string();
        if (Object.prototype.hasOwnProperty.call(obj, key)) fail(`duplicate key "${key}"`);
        ws();
        if (text[i] !== ':') fail('expected ":"');
        i++;
        obj[key] = value(depth + 1);
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === '}') {
          i++;
          return obj;
        }
        fail('expected "," or "}"');
      }
    }
    if (c === '[') {
      i++;
      const arr: ExactJson[] = [];
      ws();
      if (text[i] === ']') {
        i++;
        return arr;
      }
      for (;;) {
        arr.push(value(depth + 1));
        ws();
        if (text[i] === ',') {
          i++;
          continue;
        }
        if (text[i] === ']') {
          i++;
          return arr;
        }
        fail('expected "," or "]"');
      }
    }
    if (c === '"') return string();
    if (text.startsWith('true', i)) {
      i += 4;
      return true;
    }
    if (text.startsWith('false', i)) {
      i += 5;
      return false;
    }
    if (text.startsWith('null', i)) {
      i += 4;
      return null;
    }
    NUMBER.lastIndex = i;
    const m = NUMBER.exec(text);
    if (!m) return fail('unexpected character');
    i += m[0].length;
    return new JsonNumber(m[0]);
  };
  const string = (): string => {
    STRING.lastIndex = i;
    const m = STRING.exec(text);
    if (!m) return fail('bad string');
    i += m[0].length;
    return JSON.parse(m[0]) as string;
  };
  const v = value(0);
  ws();
  if (i !== text.length) fail('trailing characters');
  return v;
}

export function isObject(v: ExactJson | undefined): v is { [key: string]: ExactJson } {
  return typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof JsonNumber);
}

/** A JSON number whose text is a safe integer (no fraction, no exponent), else null. */
export function safeInteger(v: ExactJson | undefined): number | null {
  if (!(v instanceof JsonNumber) || !/^-?(0|[1-9][0-9]*)$/.test(v.text)) return null;
  const n = Number(v.text);
  return Number.isSafeInteger(n) ? n : null;
}
