/** firstDuplicateKey: a key twice in one object of a JSON text, found in one pass; strings and nesting do not fool it. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { firstDuplicateKey } from '../../src/api/duplicate-keys.ts';

test('no duplicates in anything JSON.stringify writes; the same key in sibling or nested objects is no duplicate', () => {
  fc.assert(fc.property(fc.jsonValue(), (v) => assert.equal(firstDuplicateKey(JSON.stringify(v)), null)), { numRuns: 500 });
  assert.equal(firstDuplicateKey('[{"a":1},{"a":2}]'), null);
  assert.equal(firstDuplicateKey('{"a":{"a":1},"b":"a\\":"}'), null);
  assert.equal(firstDuplicateKey('{"k":["a","a"]}'), null, 'array strings are values, not keys');
});

test('a key twice in one object is named, escapes decoded, whitespace anywhere', () => {
  assert.equal(firstDuplicateKey('{"amount":"1","amount":"1000"}'), 'amount');
  assert.equal(firstDuplicateKey('{ "a" : 1 ,\n "\\u0061"\t: 2 }'), 'a');
  assert.equal(firstDuplicateKey('{"x":{"q\\"":1,"y":[{"z":1,"z":2}]}}'), 'z');
  // A value ending in an escaped backslash ends there: the quote after it closes the string.
  assert.equal(firstDuplicateKey('{"a":"x\\\\","a":1}'), 'a');
  assert.equal(firstDuplicateKey('{"a":"\\"\\\\","b":{"a":1},"b":2}'), 'b');
  fc.assert(
    fc.property(fc.dictionary(fc.string(), fc.jsonValue(), { minKeys: 1 }), (obj) => {
      const key = Object.keys(obj)[0]!;
      const text = `{${JSON.stringify(key)}:0,${JSON.stringify(obj).slice(1)}`;
      assert.equal(firstDuplicateKey(text), key);
    }),
    { numRuns: 300 },
  );
});
