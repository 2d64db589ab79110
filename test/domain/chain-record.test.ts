import assert from 'node:assert/strict';
import { test } from 'node:test';
import { decodeRecord, encodeRecord, RECORD_PLAINTEXT_LENGTH } from '../../src/domain/chain-record.ts';
import { openRecord, sealRecord, SEALED_RECORD_LENGTH } from '../../src/treasury/record-cipher.ts';
import { seededRandom } from '../../src/support/random.ts';
import { feePayerState, runwayHours } from '../../src/domain/fee-payer-runway.ts';

const KEY = new Uint8Array(32).fill(7);
const OTHER = new Uint8Array(32).fill(8);
const TRK = 'trk_4Kq8XyZa1bCdEfGhJkLmNp';

test('a record round-trips, at one length whatever it holds', () => {
  const full = { kind: 'payout', trackingId: TRK, part: 1, accountId: 'acc_abcdefghijkmnopq', mode: 'exact_out', sourceAssetId: 'usdc', destinationAssetId: 'sol' } as const;
  for (const r of [full, { kind: 'sweep', trackingId: '', part: 0 }, { kind: 'refund', trackingId: TRK, part: 3 }] as const) {
    const bytes = encodeRecord(r);
    assert.equal(bytes.length, RECORD_PLAINTEXT_LENGTH);
    assert.deepEqual(decodeRecord(bytes), r);
  }
  assert.throws(() => encodeRecord({ kind: 'payout', trackingId: 'x'.repeat(28), part: 0 }));
  assert.throws(() => encodeRecord({ kind: 'payout', trackingId: TRK, part: 256 }));
  assert.equal(decodeRecord(new Uint8Array(RECORD_PLAINTEXT_LENGTH)), null, 'version 0 is no record');
  // A term too long for its slot is left out: the record still names the order.
  assert.deepEqual(decodeRecord(encodeRecord({ kind: 'payout', trackingId: TRK, part: 0, sourceAssetId: 'a-very-long-asset' })), { kind: 'payout', trackingId: TRK, part: 0 });
});

test('sealed: one length, random each time, opened only with its key, refused when altered', () => {
  const random = seededRandom(1);
  const a = sealRecord(KEY, { kind: 'payout', trackingId: TRK, part: 0 }, random);
  const b = sealRecord(KEY, { kind: 'payout', trackingId: TRK, part: 0 }, random);
  const s = sealRecord(KEY, { kind: 'sweep', trackingId: '', part: 0 }, random);
  for (const m of [a, b, s]) assert.equal(m.length, SEALED_RECORD_LENGTH);
  assert.notEqual(a, b, 'the same record seals to unrelated bytes');
  assert.deepEqual(openRecord(KEY, a), { kind: 'payout', trackingId: TRK, part: 0 });
  assert.equal(openRecord(OTHER, a), null, 'another seed opens nothing');
  const raw = Buffer.from(a, 'base64');
  raw[20] = raw[20]! ^ 1;
  assert.equal(openRecord(KEY, raw.toString('base64')), null, 'an altered record is refused');
  assert.equal(openRecord(KEY, 'hello'), null);
});

test('the fee payer runway: spending over the readings, top-ups are no spending', () => {
  const h = 3_600_000;
  assert.equal(runwayHours([{ at: 0, lamports: 100n }]), null);
  assert.equal(runwayHours([{ at: 0, lamports: 100n }, { at: h, lamports: 100n }]), null, 'nothing spent');
  assert.equal(runwayHours([{ at: 0, lamports: 100n }, { at: h, lamports: 90n }]), 9);
  // 10 spent, 50 topped up, 10 spent over two hours: 10 an hour, 130 left.
  assert.equal(runwayHours([{ at: 0, lamports: 100n }, { at: h / 2, lamports: 90n }, { at: h, lamports: 140n }, { at: 2 * h, lamports: 130n }]), 13);
  assert.equal(feePayerState(1_000n, null, 24), 'empty');
  assert.equal(feePayerState(10_000_000_000n, 5, 24), 'low');
  assert.equal(feePayerState(10_000_000_000n, null, 24), 'ok');
});
