/**
 * Every writer of an order's status (docs/spec.md §5), one module each under store/, registered with the
 * lifecycle (order-transitions.ts) as it loads. Importing this loads them all: the lifecycle's test
 * checks that each edge of §5 then has exactly one writer.
 */
export { detectDeposit } from './settlement/detect-deposit.ts';
export { undetectDeposit } from './settlement/undetect-deposit.ts';
export { expireOrder } from './settlement/expire-order.ts';
export { confirmDeposits } from './settlement/confirm-deposits.ts';
export { markSwapping } from './settlement/mark-swapping.ts';
export { startPayouts } from './settlement/start-payouts.ts';
export { completePayouts } from './settlement/complete-payouts.ts';
export { refundOrder } from './settlement/refund-order.ts';
export { finishRefund } from './settlement/finish-refund.ts';
export { failOrder } from './settlement/fail-order.ts';
export { holdForScreening } from './settlement/hold-for-screening.ts';
export { resolveHold } from './holds/resolve-hold.ts';
