import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { ORDER_STATUSES, type OrderStatus, canTransition, isFinal, isOrderStatus, nextStatuses } from '../../src/domain/order-state.ts';

// The whole docs/spec.md §5 table: row = from, columns in ORDER_STATUSES order, 1 = allowed.
//                          aw dd dc sw se co ex rf rd fa he fr
const TABLE: Record<OrderStatus, string> = {
  awaiting_deposit:  '0 1 0 0 0 0 1 0 0 1 0 0',
  deposit_detected:  '1 0 1 0 0 0 0 0 0 1 0 0',
  deposit_confirmed: '0 0 0 1 1 0 0 1 0 1 1 0',
  swapping:          '0 0 0 0 1 0 0 1 0 1 1 0',
  sending:           '0 0 0 0 0 1 0 1 0 1 1 0',
  completed:         '0 0 0 0 0 0 0 0 0 0 0 0',
  expired:           '0 0 0 0 0 0 0 0 0 0 0 0',
  refunding:         '0 0 0 0 0 0 0 0 1 1 1 0',
  refunded:          '0 0 0 0 0 0 0 0 0 0 0 0',
  failed:            '0 0 0 0 0 0 0 0 0 0 0 0',
  held:              '0 0 1 0 0 0 0 1 0 1 0 1',
  frozen:            '0 0 0 0 0 0 0 0 0 0 0 0',
};

describe('order states', () => {
  it('has exactly the docs/spec.md §5 statuses and final flags', () => {
    assert.deepEqual([...ORDER_STATUSES].sort(), Object.keys(TABLE).sort());
    const finals = ORDER_STATUSES.filter(isFinal);
    assert.deepEqual(finals.sort(), ['completed', 'expired', 'failed', 'frozen', 'refunded']);
    assert.ok(isOrderStatus('sending'));
    assert.ok(!isOrderStatus('cancelled'));
  });

  it('allows exactly the listed transitions (all 144 pairs)', () => {
    for (const from of ORDER_STATUSES) {
      const row = TABLE[from].split(' ');
      ORDER_STATUSES.forEach((to, i) => {
        assert.equal(canTransition(from, to), row[i] === '1', `${from} → ${to}`);
      });
      assert.deepEqual([...nextStatuses(from)].sort(), ORDER_STATUSES.filter((to) => canTransition(from, to)).sort());
    }
  });

  it('every non-final status can fail, no final status can move', () => {
    for (const s of ORDER_STATUSES) {
      assert.equal(canTransition(s, 'failed'), !isFinal(s), s);
      if (isFinal(s)) assert.equal(nextStatuses(s).length, 0);
    }
  });
});
