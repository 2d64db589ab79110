/** docs/spec.md §4 `expiration` and §11 HUSH_ORDER_TTL_S: which deadline an order gets. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { orderExpirationMs, orderTtlS } from '../../src/domain/order-deadline.ts';

test('HUSH_ORDER_TTL_S bounds every order; a swap takes HUSH_SWAP_ORDER_TTL_S only when it is shorter', () => {
  assert.equal(orderTtlS(false, { orderTtlS: 1800, swapOrderTtlS: 600 }), 1800);
  assert.equal(orderTtlS(true, { orderTtlS: 1800, swapOrderTtlS: 600 }), 600);
  // An operator (or a test) shortening HUSH_ORDER_TTL_S shortens swaps too.
  assert.equal(orderTtlS(true, { orderTtlS: 30, swapOrderTtlS: 600 }), 30);
  assert.equal(orderTtlS(false, { orderTtlS: 30, swapOrderTtlS: 5 }), 30);
  // Unset (the default): swaps live as long as sends (docs/spec.md §4: 30 min by default).
  assert.equal(orderTtlS(true, { orderTtlS: 1800, swapOrderTtlS: null }), 1800);
});

test('the deadline never comes before the handed-out transaction can die', () => {
  const created = 1_000_000;
  assert.equal(orderExpirationMs(created, 1800, created + 75_000), created + 1_800_000);
  assert.equal(orderExpirationMs(created, 5, created + 75_000.2), created + 75_001);
});
