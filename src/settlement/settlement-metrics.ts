import { Histogram } from 'prom-client';
import type { OrderRecord } from '../store/orders-store.ts';

/** Deposit confirmed → order completed, in seconds (one per process; registered by /metrics). */
export const depositToCompletedSeconds = new Histogram({
  name: 'hush_deposit_confirmed_to_completed_seconds',
  help: 'Time from an order\'s deposit confirmed to the order completed (privacy delay included)',
  buckets: [0.25, 0.5, 1, 2, 4, 8, 15, 30, 60, 120, 300, 600],
  registers: [],
});

/** Observes the orders just completed (those with a confirmed deposit time). */
export function observeCompleted(orders: readonly Pick<OrderRecord, 'deposit'>[], now: number): void {
  for (const o of orders) {
    const at = o.deposit?.confirmedAt ? Date.parse(o.deposit.confirmedAt) : NaN;
    if (Number.isFinite(at)) depositToCompletedSeconds.observe(Math.max(0, (now - at) / 1000));
  }
}
