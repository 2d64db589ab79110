import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import fc from 'fast-check';
import { ExactJsonError, JsonNumber, isObject, parseExactJson, safeInteger } from '../../src/prices/exact-json.ts';

describe('parseExactJson', () => {
  it('keeps number literals as their text', () => {
    const v = parseExactJson('{"a": 0.0000123, "b": [1, -2.5e-7, true, null, "x\\u00e9"], "c": {}}');
    assert.ok(isObject(v));
    assert.ok(v.a instanceof JsonNumber);
    assert.equal(v.a.text, '0.0000123');
    assert.ok(Array.isArray(v.b));
    assert.equal((v.b[1] as JsonNumber).text, '-2.5e-7');
    assert.equal(v.b[2], true);
    assert.equal(v.b[3], null);
    assert.equal(v.b[4], 'xé');
    assert.equal(safeInteger(v.b[0]), 1);
    assert.equal(safeInteger(v.a), null);
  });

  it('refuses invalid JSON, duplicate keys and trailing garbage', () => {
    for (const bad of ['', '{', '{"a":1,}', '[1,]', '{"a":1}x', '{"a":01}', '{"a":1,"a":2}', "{'a':1}", 'NaN', '{"a":.5}', '"\u0001"', '<html>']) {
      assert.throws(() => parseExactJson(bad), ExactJsonError, bad);
    }
    assert.throws(() => parseExactJson('['.repeat(100) + ']'.repeat(100)), ExactJsonError);
  });

  it('agrees with JSON.parse on structure for any JSON value (property)', () => {
    const toPlain = (v: unknown): unknown =>
      v instanceof JsonNumber ? Number(v.text) : Array.isArray(v) ? v.map(toPlain) : v && typeof v === 'object' ? Object.fromEntries(Object.entries(v).map(([k, x]) => [k, toPlain(x)])) : v;
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (value) => {
        const text = JSON.stringify(value);
        assert.deepEqual(toPlain(parseExactJson(text)), JSON.parse(text));
      }),
      { numRuns: 300 },
    );
  });
});
