/** Orders and recorded transactions for the settlement store tests (src/store/settlement/*). */
import { randomBytes } from 'node:crypto';
import type { Queryable } from '../../src/store/db.ts';
import { insertOrder, type NewOrder, type OrderStatus } from '../../src/store/orders-store.ts';
import type { NewChainTx } from '../../src/store/settlement/chain-tx.ts';
import { createTestAccount, fakeAddress, newOrder } from './store-fixtures.ts';
import { moveOrder } from './move-order.ts';

/** Forward path from awaiting_deposit to each status the tests put orders in. */
const PATHS: Record<string, OrderStatus[]> = {
  awaiting_deposit: [],
  deposit_detected: ['deposit_detected'],
  deposit_confirmed: ['deposit_detected', 'deposit_confirmed'],
  sending: ['deposit_detected', 'deposit_confirmed', 'sending'],
  refunding: ['deposit_detected', 'deposit_confirmed', 'refunding'],
  completed: ['deposit_detected', 'deposit_confirmed', 'sending', 'completed'],
  expired: ['expired'],
  failed: ['failed'],
};

/** A new order of a new account, moved to `status` (with a deposit from deposit_detected on). */
export async function orderIn(db: Queryable, status: keyof typeof PATHS = 'awaiting_deposit', overrides: Partial<NewOrder> = {}): Promise<{ id: string; order: NewOrder }> {
  const order = newOrder(await createTestAccount(db), overrides);
  const id = ((await insertOrder(db, order, { key: `k-${Math.random()}`, responseStatus: 200, responseBody: {} })) as { id: string }).id;
  let from: OrderStatus = 'awaiting_deposit';
  for (const to of PATHS[status]!) {
    const deposit = { signature: 'sig', amount: order.amountIn.toString(), confirmedAt: new Date().toISOString() };
    if (!(await moveOrder(db, id, from, to, to === 'deposit_detected' || to === 'deposit_confirmed' ? { deposit } : {}))) throw new Error(`${from} → ${to}`);
    from = to;
  }
  return { id, order };
}

/** A signed transaction as the worker records it (fresh signature). */
export function newTx(overrides: Partial<NewChainTx> = {}): NewChainTx {
  return {
    kind: 'payout',
    orderId: null,
    assetId: 'usdc',
    amount: 10n,
    source: fakeAddress(),
    destination: fakeAddress(),
    signature: randomBytes(32).toString('hex'),
    wire: randomBytes(8).toString('base64'),
    lastValidBlockHeight: 1_000n,
    meta: {},
    ...overrides,
  };
}

/** An order's status and lock as stored. */
export async function orderRow(db: Queryable, id: string): Promise<{ status: string; locked_by: string | null; next_run_at: Date; payout_due_at: Date | null }> {
  const { rows } = await db.query<{ status: string; locked_by: string | null; next_run_at: Date; payout_due_at: Date | null }>('SELECT status, locked_by, next_run_at, payout_due_at FROM orders WHERE id = $1', [id]);
  return rows[0]!;
}

/** The statuses an order's history went through, in order. */
export async function historyOf(db: Queryable, id: string): Promise<string[]> {
  const { rows } = await db.query<{ status: string }>('SELECT status FROM order_history WHERE order_id = $1 ORDER BY id', [id]);
  return rows.map((r) => r.status);
}
