/** The SDK's one-line status detail (what `hush send` and `hush watch` print): a held private payout says when it goes at the latest. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { statusDetail } from '../../packages/sdk/src/status-detail.ts';
import type { StatusRecord } from '../../packages/sdk/src/types.ts';

const NOW = Date.parse('2026-11-23T10:00:00.000Z');
const base = {
  trackingId: 'trk_x', status: 'deposit_confirmed', final: false, payouts: [], refund: null, failureReason: null,
  privacy: { standard: true, releaseBy: '2026-11-23T10:05:00.000Z', releasedWith: null, releasedWithPending: null, heldSeconds: null },
} as unknown as StatusRecord;

test('held: the latest release moment and the seconds left; completed: the set it went out with; not private: nothing added', () => {
  assert.equal(statusDetail(base, NOW), 'held for privacy: released by 2026-11-23T10:05:00.000Z (in ~300 s)');
  const done = { ...base, status: 'completed', payouts: [{ signature: 'sig1', amount: '1', confirmedAt: null }], privacy: { standard: true, releaseBy: null, releasedWith: 20, heldSeconds: 216 } } as unknown as StatusRecord;
  assert.equal(statusDetail(done, NOW), 'payout sig1 (released with its class: 20 payouts, after 216 s)');
  const free = { ...done, privacy: { standard: false, releaseBy: null, releasedWith: null, releasedWithPending: 'not_private', heldSeconds: null } } as unknown as StatusRecord;
  assert.equal(statusDetail(free, NOW), 'payout sig1');
  const landing = { ...done, privacy: { standard: true, releaseBy: null, releasedWith: null, releasedWithPending: 'release_landing', heldSeconds: 216 } } as unknown as StatusRecord;
  assert.equal(statusDetail(landing, NOW), 'payout sig1 (released with its class, after 216 s; its set is counted once the release has landed)');
  assert.equal(statusDetail({ ...base, privacy: { ...base.privacy, releaseBy: null } } as StatusRecord, NOW), '');
  // Released, not yet paid: the set it goes with, before the payout line.
  // Released, not yet paid: the set it goes with and when the payout is due, never "after" a wait not yet over (issue 43).
  const confirmedAt = new Date(NOW - 30_000).toISOString();
  const released = { ...base, status: 'deposit_confirmed', deposit: { signature: 'd', amount: '1', confirmedAt }, privacy: { standard: true, releaseBy: null, releasedWith: 3, heldSeconds: 41 } } as unknown as StatusRecord;
  assert.equal(statusDetail(released, NOW), 'released for privacy with its class: 3 payouts, payout due in ~11 s');
  assert.equal(statusDetail({ ...released, status: 'sending' } as StatusRecord, NOW + 20_000), 'released for privacy with its class: 3 payouts, payout going out');
  assert.equal(statusDetail({ ...released, deposit: null } as unknown as StatusRecord, NOW), 'released for privacy with its class: 3 payouts');
  // Released, its set not counted yet (issue 54: counted where the release landed): released, without a number.
  const uncounted = { ...released, privacy: { ...released.privacy, releasedWith: null } } as unknown as StatusRecord;
  assert.equal(statusDetail(uncounted, NOW), 'released for privacy with its class, payout due in ~11 s');
});
