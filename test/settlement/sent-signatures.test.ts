/**
 * A transaction's signature is watched before it is sent (src/settlement/fast-path/sent-signatures.ts, `watch`):
 * watched only at the fate loop's next read of pending ones, a payout that landed first was notified a slot late.
 * A read of pending ones made before its record does not drop it; once settled and a while old, it is dropped.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { ChainSubscriptions } from '../../src/chain/chain-subscriptions.ts';
import { SentSignatures } from '../../src/settlement/fast-path/sent-signatures.ts';
import { RESEND_EVERY_MS } from '../../src/settlement/timing.ts';
import { ManualClock } from '../support/manual-clock.ts';

function watcher() {
  const clock = new ManualClock(1_000_000);
  const live = new Set<string>();
  const subscribed: string[] = [];
  const subscriptions = {
    watchSignature: (s: string) => {
      subscribed.push(s);
      live.add(s);
      return () => void live.delete(s);
    },
  } as unknown as ChainSubscriptions;
  const sent = new SentSignatures({ subscriptions, socketLive: () => true, fallbackPollMs: () => 100, inFlight: () => 0, wake: () => {}, clock });
  return { sent, clock, live, subscribed };
}

test('a signature is watched as it is sent, before any read of pending transactions', () => {
  const { sent, live, subscribed } = watcher();
  sent.watch(['sig-1', 'sig-2']);
  assert.deepEqual(subscribed, ['sig-1', 'sig-2']);
  assert.deepEqual([...live], ['sig-1', 'sig-2']);
  assert.equal(sent.mayHaveLanded, true);
});

test('a read of pending ones made before the record keeps it watched; settled and old, it is dropped', () => {
  const { sent, clock, live, subscribed } = watcher();
  sent.watch(['sig-1']);
  sent.due([]);
  assert.deepEqual([...live], ['sig-1'], 'kept through a read that did not list it yet');
  sent.due([{ signature: 'sig-1' }]);
  assert.deepEqual(subscribed, ['sig-1'], 'listed pending, it is not subscribed twice');
  clock.advance(2 * RESEND_EVERY_MS + 1);
  sent.due([]);
  assert.deepEqual([...live], [], 'settled (no longer pending) and sent a while ago: unwatched');
});
