/**
 * Every status write goes through the lifecycle module (src/store/order-transitions.ts): no other file of
 * src/ writes `orders.status` or an order's history. order-lifecycle.test.ts checks its registry.
 */
import assert from 'node:assert/strict';
import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { INITIAL_STATUS } from '../../src/domain/order-state.ts';

const SRC = join(import.meta.dirname, '../../src');
const WRITER = 'store/order-transitions.ts';
// Order creation: the one status an order is born in (BORN, INITIAL_STATUS's literal), with its first history row.
const CREATOR = 'store/orders-store.ts';

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(join(dir, e.name)) : e.name.endsWith('.ts') ? [join(dir, e.name)] : [],
  );
}

/** The ways a statement in `text` writes an order's status or history, as found by reading its SQL. */
function statusWrites(text: string, creator: boolean): string[] {
  const found: string[] = [];
  // UPDATE orders [alias] SET <list> — the list ends where FROM / WHERE / RETURNING / the template does.
  for (const m of text.matchAll(/UPDATE\s+orders\b(?:\s+(?:AS\s+)?\w+)?\s+SET\s+([\s\S]*?)(?=\bFROM\b|\bWHERE\b|\bRETURNING\b|`|$)/gi)) {
    const set = m[1]!;
    if (/(?:^|,)\s*(?:\w+\.)?status\s*=/i.test(set) || /\([^)]*\bstatus\b[^)]*\)\s*=/i.test(set)) found.push(m[0].slice(0, 80));
  }
  for (const m of text.matchAll(/DO\s+UPDATE\s+SET\s+([\s\S]*?)(?=\bWHERE\b|\bRETURNING\b|`|$)/gi)) {
    if (/\borders\b/i.test(text) && /(?:^|,)\s*status\s*=/i.test(m[1]!)) found.push(m[0].slice(0, 80));
  }
  for (const m of text.matchAll(/INSERT\s+INTO\s+order_history\b[^`]*/gi)) {
    if (!creator || !/SELECT id, \$\{BORN\}, created_at FROM o/.test(m[0])) found.push(m[0].slice(0, 80));
  }
  for (const m of text.matchAll(/INSERT\s+INTO\s+orders\b[^`]*/gi)) {
    if (!creator || !m[0].includes('${ORDER_INSERT_COLUMNS}')) found.push(m[0].slice(0, 80));
  }
  return found;
}

describe('one writer of orders.status', () => {
  it('no file of src/ but the transition module writes an order status or history row', () => {
    const offenders = sourceFiles(SRC).flatMap((f) => {
      const rel = relative(SRC, f);
      if (rel === WRITER) return [];
      return statusWrites(readFileSync(f, 'utf8'), rel === CREATOR).map((s) => `${rel}: ${s}`);
    });
    assert.deepEqual(offenders, []);
  });

  it('order creation writes only the initial status', () => {
    const text = readFileSync(join(SRC, CREATOR), 'utf8');
    assert.equal(INITIAL_STATUS, 'awaiting_deposit');
    assert.match(text, /const BORN = statusLiteral\(INITIAL_STATUS\);/);
    const values = /const ORDER_INSERT_VALUES = `([^`]*)`/.exec(text)?.[1];
    assert.ok(values, 'ORDER_INSERT_VALUES found');
    assert.deepEqual([...values.matchAll(/'([a-z_]+)'|\$\{(\w+)\}/g)].map((m) => m[1] ?? m[2]), ['BORN']);
  });

  it('the scan sees a status written anywhere else', () => {
    // What each kind of stray writer looks like: the scan must flag every one.
    const strays = [
      "db.query(`UPDATE orders SET status = 'completed' WHERE id = $1`)",
      "db.query(`UPDATE orders o SET updated_at = now(), status = $2 FROM v WHERE o.id = v.id`)",
      "db.query(`WITH u AS (UPDATE orders SET (status, updated_at) = ('failed', now()) RETURNING id) SELECT 1`)",
      "db.query(`INSERT INTO order_history (order_id, status, at) VALUES ($1, 'sending', now())`)",
      "db.query(`INSERT INTO orders (tracking_id, status) VALUES ($1, 'completed')`)",
    ];
    for (const s of strays) assert.equal(statusWrites(s, false).length, 1, s);
    assert.deepEqual(statusWrites("db.query(`UPDATE orders SET locked_by = NULL WHERE status = 'sending'`)", false), [], 'a status in WHERE is a read');
  });
});
