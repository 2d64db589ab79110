import { FINAL_STATUSES, type OrderStatus } from '../../domain/order-state.ts';

/** An SQL list of statuses, `('a', 'b')`: only ever built from the declared status names. */
export function statusList(statuses: readonly OrderStatus[]): string {
  return `(${statuses.map((s) => `'${s}'`).join(', ')})`;
}

export const FINAL = statusList(FINAL_STATUSES);
