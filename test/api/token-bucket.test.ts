/**
 * The token bucket behind the rate limits (docs/spec.md §7), as a pure function over request times: never more
 * than the burst plus the refill in any interval, never a refusal while the caller stays under the rate,
 * and answers the plugin reads correctly (remaining, reset, Retry-After).
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { LOCAL_MAX_KEYS, LocalBuckets, takeToken } from '../../src/api/token-bucket-store.ts';

type State = Parameters<typeof takeToken>[0];

function run(times: number[], capacity: number, refillMs: number) {
  let state: State;
  return times.map((now) => {
    const r = takeToken(state, now, capacity, refillMs);
    state = r.state;
    return { now, passed: r.answer.current <= capacity, answer: r.answer };
  });
}

test('in any interval at most capacity + rate × length pass', () => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 100 }),
      fc.integer({ min: 100, max: 10_000 }),
      fc.array(fc.integer({ min: 0, max: 2_000 }), { minLength: 1, maxLength: 300 }),
      (capacity, refillMs, steps) => {
        let now = 0;
        const times = steps.map((d) => (now += d));
        const passed = run(times, capacity, refillMs).filter((r) => r.passed).map((r) => r.now);
        for (let i = 0; i < passed.length; i++) {
          for (let j = i; j < passed.length; j++) {
            const allowed = capacity + ((passed[j]! - passed[i]!) * capacity) / refillMs;
            assert.ok(j - i + 1 <= allowed + 1e-9, `${j - i + 1} passed in ${passed[j]! - passed[i]!} ms, at most ${allowed}`);
          }
        }
      },
    ),
  );
});

test('a caller at or under the rate is never refused', () => {
  fc.assert(
    fc.property(fc.integer({ min: 1, max: 100 }), fc.integer({ min: 100, max: 10_000 }), fc.integer({ min: 1, max: 200 }), (capacity, refillMs, n) => {
      const every = Math.ceil(refillMs / capacity); // one token's refill time
      const times = Array.from({ length: n }, (_, i) => i * every);
      assert.ok(run(times, capacity, refillMs).every((r) => r.passed));
    }),
  );
});

test('answers: remaining counts whole tokens, reset is the time to full, Retry-After the time to the next token', () => {
  // Capacity 4 refilled in 2 s: one token per 500 ms.
  const r = run([0, 0, 0, 0, 0, 100, 600], 4, 2000);
  assert.deepEqual(
    r.map((x) => [x.passed, 4 - x.answer.current]),
    [
      [true, 3],
      [true, 2],
      [true, 1],
      [true, 0],
      [false, -1],
      [false, -1],
      [true, 0],
    ],
  );
  assert.equal(r[0]!.answer.ttl, 500, 'one token short of full');
  assert.equal(r[3]!.answer.ttl, 2000, 'empty: the whole refill');
  assert.equal(r[4]!.answer.ttl, 500, 'refused at once: the next token in 500 ms');
  assert.equal(r[5]!.answer.ttl, 400, 'refused 100 ms later: 400 ms to go');
  assert.equal(r[6]!.answer.ttl, Math.ceil(2000 - 0.2 * 500), 'the token at 500 ms spent, 100 ms of the next refilled');
});

test('the in-process store, when full, forgets buckets full again, then those nearest to full: an emptied bucket stays empty', () => {
  let clock = 1_000_000;
  class Clocked extends LocalBuckets {
    protected override now(): number {
      return clock;
    }
  }
  const store = new Clocked();
  const take = (key: string) => {
    let answer!: { current: number; ttl: number };
    store.incr(key, (_e, r) => (answer = r!), 2000, 2);
    return answer.current <= 2;
  };
  // A client empties its bucket, then floods the store with as many other addresses as it holds.
  assert.deepEqual([take('me'), take('me'), take('me')], [true, true, false]);
  for (let i = 0; i < LOCAL_MAX_KEYS + 10; i++) take(`other-${i}`);
  assert.ok(store.size <= LOCAL_MAX_KEYS);
  assert.equal(take('me'), false, 'still empty: the flood did not reset it');
  // A second later the first flood's buckets (one token short) are full again, and 'me' takes the one token
  // it got back: now it is full only in 2 s, the second flood's buckets in 1 s, so those go before it.
  clock += 1000;
  assert.equal(take('me'), true);
  for (let i = 0; i < LOCAL_MAX_KEYS; i++) take(`later-${i}`);
  assert.ok(store.size <= LOCAL_MAX_KEYS);
  assert.equal(take('me'), false, 'emptied again, and kept');
});
