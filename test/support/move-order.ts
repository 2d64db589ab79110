/**
 * Moves an order along one edge of docs/spec.md §5 through the edge's own writer (the lifecycle's
 * registry): fixtures that need an order in some status get there the way settlement would, one
 * compare-and-set with its history row, never by writing the status.
 */
import type { OrderStatus } from '../../src/domain/order-state.ts';
import type { Queryable } from '../../src/store/db.ts';
import { writerOf, type OrderPatch } from '../../src/store/order-transitions.ts';
import '../../src/store/order-writers.ts';

export function moveOrder(db: Queryable, id: string, from: OrderStatus, to: OrderStatus, patch: OrderPatch = {}, opts: { idle?: boolean; deadAtHeight?: bigint } = {}): Promise<boolean> {
  const writer = writerOf(from, to);
  if (!writer) throw new Error(`${from} → ${to} has no writer`);
  return writer.move(db, id, from, to, patch, opts);
}
