/** The randomness port's generators keep the shape they promise (src/support/random.ts). */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import { seededRandom, systemRandom, type Random } from '../../src/support/random.ts';

const UUID_V4 = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

function shape(r: Random): void {
  for (let i = 0; i < 2_000; i++) {
    const f = r.float();
    assert.ok(f >= 0 && f < 1, `float in [0, 1): ${f}`);
    const n = r.int(58);
    assert.ok(Number.isInteger(n) && n >= 0 && n < 58, `int in [0, 58): ${n}`);
  }
  assert.equal(r.bytes(12).length, 12);
  assert.match(r.uuid(), UUID_V4);
}

it('the system generator draws floats in [0, 1), integers below their bound, bytes and v4 UUIDs', () => shape(systemRandom));

it('a seeded generator has the same shape and replays its draws from its seed', () => {
  shape(seededRandom(7));
  const draw = (r: Random) => [r.float(), r.int(1000), r.bytes(4).toString('hex'), r.uuid()];
  assert.deepEqual(draw(seededRandom(42)), draw(seededRandom(42)));
  assert.notDeepEqual(draw(seededRandom(42)), draw(seededRandom(43)));
});
