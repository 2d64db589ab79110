/** The status record's `privacy` (docs/spec.md §4): what an order was promised and what it got, from the store's row alone. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { orderPrivacy, recordAsOf, statusRecord } from '../../src/services/order-views.ts';
import type { OrderRecord } from '../../src/store/order-record.ts';
import { ORDER_STATUSES } from '../../src/domain/order-state.ts';
import { fakeAddress } from '../support/store-fixtures.ts';

const CONFIRMED = '2026-11-23T10:00:00.000Z';
const base = {
  quote: { privacy: { standard: true } },
  status: 'awaiting_deposit' as OrderRecord['status'],
  deposit: null as OrderRecord['deposit'],
  payoutDueAt: null as Date | null,
  classRelease: null as OrderRecord['classRelease'],
};

test('before a deposit nothing is held; while held, releaseBy is its own due time; once released, the set and the hold', () => {
  assert.deepEqual(orderPrivacy(base), { standard: true, releaseBy: null, releasedWith: null, releasedWithPending: null, heldSeconds: null });
  const due = new Date(Date.parse(CONFIRMED) + 812_345);
  const held = { ...base, status: 'deposit_confirmed' as const, deposit: { signature: 's', amount: '1', confirmedAt: CONFIRMED }, payoutDueAt: due };
  assert.deepEqual(orderPrivacy(held), { standard: true, releaseBy: due.toISOString(), releasedWith: null, releasedWithPending: null, heldSeconds: null });
  assert.deepEqual(orderPrivacy({ ...held, status: 'swapping' }).releaseBy, due.toISOString(), 'a swap waits for its class too');
  const sent = new Date(Date.parse(CONFIRMED) + 216_400);
  const released = { ...held, status: 'completed' as const, payoutDueAt: sent, classRelease: { at: new Date(Date.parse(CONFIRMED) + 200_000), size: 20, landedSize: null } };
  // Issue 54: none until its release's payouts are counted where they landed, then the chain's burst (not Hush's 20).
  // Completed before the rest of its release landed: the status says why the set is missing.
  assert.deepEqual(orderPrivacy(released), { standard: true, releaseBy: null, releasedWith: null, releasedWithPending: 'release_landing', heldSeconds: 216 });
  assert.deepEqual(orderPrivacy({ ...released, classRelease: { ...released.classRelease, landedSize: 17 } }), { standard: true, releaseBy: null, releasedWith: 17, releasedWithPending: null, heldSeconds: 216 });
  assert.equal(orderPrivacy({ ...released, status: 'sending' }).releasedWithPending, null, 'not completed yet: nothing to explain');
  assert.equal(orderPrivacy({ ...released, classRelease: { ...released.classRelease, landedSize: 0 } }).releasedWith, null, 'no payout landed: no set');
});

test('an amount off the menu is never held and says so; privacy off (no release) shows no set', () => {
  const free = { ...base, quote: { privacy: { standard: false } }, status: 'deposit_confirmed' as const, deposit: { signature: 's', amount: '1', confirmedAt: CONFIRMED }, payoutDueAt: new Date(Date.parse(CONFIRMED) + 800) };
  assert.deepEqual(orderPrivacy(free), { standard: false, releaseBy: null, releasedWith: null, releasedWithPending: null, heldSeconds: null });
  assert.equal(orderPrivacy({ ...free, status: 'completed' }).releasedWithPending, 'not_private', 'completed off the menu: never counted, and said so');
  assert.equal(orderPrivacy({ ...free, quote: {} }).standard, false, 'a quote without privacy is not private');
});

test('any row: releaseBy only while held, releasedWith and heldSeconds only once released, heldSeconds never negative, a completed order has a set or a reason', () => {
  fc.assert(
    fc.property(
      fc.constantFrom(...ORDER_STATUSES),
      fc.boolean(),
      fc.option(fc.integer({ min: -10_000, max: 900_000 })),
      fc.option(fc.integer({ min: 1, max: 100 })),
      fc.boolean(),
      (status, standard, dueOffset, size, confirmed) => {
        const p = orderPrivacy({
          quote: { privacy: { standard } },
          status,
          deposit: confirmed ? { signature: 's', amount: '1', confirmedAt: CONFIRMED } : null,
          payoutDueAt: dueOffset === null ? null : new Date(Date.parse(CONFIRMED) + dueOffset),
          classRelease: size === null ? null : { at: new Date(CONFIRMED), size: size + 1, landedSize: size },
        });
        if (p.releaseBy !== null) assert.ok(standard && size === null && (status === 'deposit_confirmed' || status === 'swapping'));
        assert.equal(p.releasedWith, size);
        // A completed order carries either its set or the reason it has none; no other order carries a reason.
        if (status === 'completed') assert.ok((p.releasedWith === null) !== (p.releasedWithPending === null));
        else assert.equal(p.releasedWithPending, null);
        if (p.heldSeconds !== null) assert.ok(size !== null && p.heldSeconds >= 0);
      },
    ),
  );
});

test('a webhook event for a state before the deposit was confirmed carries no hold, later ones carry the current record', () => {
  const record = statusRecord({
    id: '1', trackingId: 'trk_x', accountId: 'a', quoteKey: 'q', quote: { privacy: { standard: true } }, status: 'completed',
    sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_in', amountIn: 10n, amountOut: 9n, serviceFee: 0n, partnerFee: 0n, networkFee: 1n, feeBps: 0,
    feeRecipient: null, sender: fakeAddress(), recipient: fakeAddress(), depositOwner: fakeAddress(), depositAccount: fakeAddress(), expiration: new Date(CONFIRMED), txBlockhash: 'b',
    txLastValidBlockHeight: 1n, txExpiresAtSlot: 1n, createdAt: new Date(CONFIRMED), updatedAt: new Date(CONFIRMED),
    deposit: { signature: 's', amount: '10', confirmedAt: CONFIRMED }, payouts: [], refund: null, failureReason: null,
    history: [{ status: 'awaiting_deposit', at: new Date(CONFIRMED) }], payoutDueAt: new Date(Date.parse(CONFIRMED) + 100_000), classRelease: { at: new Date(CONFIRMED), size: 8, landedSize: 7 },
  });
  assert.equal(record.privacy.releasedWith, 7);
  assert.equal(recordAsOf(record, { status: 'awaiting_deposit', sequence: 1, at: new Date(CONFIRMED) }).privacy.releasedWith, null);
  assert.equal(recordAsOf(record, { status: 'deposit_detected', sequence: 2, at: new Date(CONFIRMED) }).privacy.releasedWith, null);
  // Issue 54: the set is counted where the payouts landed: no event before the order is final carries it.
  assert.equal(recordAsOf(record, { status: 'sending', sequence: 4, at: new Date(CONFIRMED) }).privacy.releasedWith, null);
  assert.equal(recordAsOf(record, { status: 'sending', sequence: 4, at: new Date(CONFIRMED) }).privacy.releasedWithPending, null);
  assert.equal(recordAsOf(record, { status: 'sending', sequence: 4, at: new Date(CONFIRMED) }).privacy.heldSeconds, record.privacy.heldSeconds);
  assert.equal(recordAsOf(record, { status: 'completed', sequence: 5, at: new Date(CONFIRMED) }).privacy.releasedWith, 7);
});
