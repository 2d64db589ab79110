import { FINAL_STATUSES, ORDER_STATUSES, STATUS_HANDLING, statusesWhere, type OrderStatus, type StatusTraits } from '../../domain/order-state.ts';

/** An SQL list of statuses, `('a', 'b')`: only ever built from the declared status names. */
export function statusList(statuses: readonly OrderStatus[]): string {
  return `(${statuses.map(statusLiteral).join(', ')})`;
}

/** One status as an SQL literal, `'a'`: only ever a declared status name (STATUS.x). */
export function statusLiteral(status: OrderStatus): string {
  return `'${status}'`;
}

/** The SQL list of the statuses with `trait` (docs/spec.md §5, STATUS_TRAITS), or without it. */
export function statusesSql(trait: keyof StatusTraits, has = true): string {
  return statusList(statusesWhere(trait, has));
}

export const FINAL = statusList(FINAL_STATUSES);

/** The statuses whose order is paid (or refunded) next: pay-or-refund's (STATUS_HANDLING). */
export const PAYABLE = statusList(ORDER_STATUSES.filter((s) => STATUS_HANDLING[s].step === 'payOrRefund'));
