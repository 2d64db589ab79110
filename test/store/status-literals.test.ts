/**
 * No order status is written out by hand outside the registry: SQL and comparisons name statuses through
 * `src/domain/order-state.ts` (STATUS, STATUS_TRAITS, STATUS_HANDLING) and the store's SQL helpers
 * (`statusesSql`, `statusList`, `statusLiteral` in src/store/settlement/final-statuses.ts), so a status's
 * meaning lives in one place and a list of statuses cannot drift from its trait.
 *
 * The rule, for every .ts file of src/ outside the registry files (REGISTRY):
 * - SQL: an order status quoted as an SQL literal ('sending') in a template literal or a double-quoted
 *   string is flagged;
 * - TypeScript: a quoted order status that is an operand of ===, !==, == or != or a `case` label is flagged.
 * A status passed where the type is OrderStatus (a writer's moves, a wire example, a test fixture) is not: tsc
 * checks it against ORDER_STATUSES. Migrations (.sql) are history and are not read. Other tables share some
 * of the words ('failed', 'expired', 'held', …): each such use is allowed below by its exact text, with the
 * table or type it belongs to, so a new order-status literal beside it is still caught.
 */
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { describe, it } from 'node:test';
import { ORDER_STATUSES } from '../../src/domain/order-state.ts';
import { lex, lineOf, sourceFiles } from '../support/source-scan.ts';

const SRC = join(import.meta.dirname, '../../src');
/** Where statuses are declared and turned into SQL. */
const REGISTRY = ['domain/order-state.ts', 'store/order-transitions.ts', 'store/settlement/final-statuses.ts'];
const WORDS = new Set<string>(ORDER_STATUSES);

/** Another table's or type's status that shares an order status's name: file, the exact text, and whose it is. */
const OTHERS: readonly { file: string; text: string; whose: string }[] = [
  { file: 'admin/fund-holds-service.ts', text: "h.status !== 'held'", whose: 'screening_holds.status (a fund hold)' },
  { file: 'admin/approvals-service.ts', text: "h.status !== 'held'", whose: 'screening_holds.status (a fund hold)' },
  { file: 'admin/fund-holds-service.ts', text: "to === 'frozen'", whose: 'screening_holds.status (a fund hold)' },
  { file: 'admin/stray-funds-service.ts', text: "fate === 'expired'", whose: 'TxFate (domain/settlement/tx-fate.ts)' },
  { file: 'admin/stray-funds-service.ts', text: "fate === 'failed'", whose: 'TxFate (domain/settlement/tx-fate.ts)' },
  { file: 'admin/stray-funds-service.ts', text: "info.state === 'frozen'", whose: "a token account's state" },
  { file: 'settlement/steps/settle-fates.ts', text: "fate === 'failed'", whose: 'TxFate (domain/settlement/tx-fate.ts)' },
  { file: 'settlement/steps/settle-fates.ts', text: "fate === 'expired'", whose: 'TxFate (domain/settlement/tx-fate.ts)' },
  { file: 'settlement/steps/late-refunds.ts', text: "t.status !== 'expired'", whose: 'chain_txs.status' },
  { file: 'settlement/steps/late-refunds.ts', text: "t.status !== 'failed'", whose: 'chain_txs.status' },
  { file: 'settlement/steps/recipient-refused.ts', text: "t.status === 'failed'", whose: 'chain_txs.status' },
  { file: 'settlement/steps/replace-dead-parts.ts', text: "dead.status === 'expired'", whose: 'chain_txs.status (an expired attempt: its replacement escalates)' },
  { file: 'store/settlement/abandoned-late-refunds.ts', text: "WHERE latest.status IN ('expired', 'failed')", whose: 'chain_txs.status (a late refund attempt)' },
  { file: 'store/settlement/dead-late-refunds.ts', text: "latest WHERE status IN ('expired', 'failed')", whose: 'chain_txs.status (a late refund attempt)' },
  { file: 'store/settlement/part-attempts.ts', text: "WHERE status = 'failed'", whose: 'chain_txs.status' },
  { file: 'store/settlement/pool-commitments.ts', text: "FROM screening_holds WHERE kind = 'late' AND status IN ('held', 'refund_due')", whose: 'screening_holds.status' },
  { file: 'store/settlement/pool-commitments.ts', text: "CASE WHEN held THEN 'held' ELSE 'owed' END AS side", whose: "a commitment's side (PoolCommitments.held)" },
  { file: 'store/settlement/pool-commitments.ts', text: "WHERE status IN ('expired', 'failed'))", whose: 'chain_txs.status (a late refund attempt)' },
  { file: 'store/holds/fund-holds.ts', text: "VALUES ('fee', $1, $2, $3, 'held',", whose: 'screening_holds.status' },
  { file: 'store/holds/fund-holds.ts', text: "WHERE status IN ('held', 'refund_due') DO UPDATE", whose: 'screening_holds.status' },
  { file: 'store/holds/fund-holds.ts', text: "AND subject = $1 AND status = 'held'", whose: 'screening_holds.status' },
  { file: 'store/screening-log-store.ts', text: "AND h.status IN ('released', 'refund_due', 'refunded')", whose: 'screening_holds.status' },
  { file: 'store/holds/fund-holds.ts', text: "LEFT JOIN orders o ON o.id = h.order_id WHERE h.status = 'held' AND ${fundHoldWhere(", whose: 'screening_holds.status' },
  { file: 'store/holds/fund-holds.ts', text: "WHERE id = $1 AND status = 'held' RETURNING id", whose: 'screening_holds.status' },
  { file: 'store/holds/fund-holds.ts', text: "VALUES ('late', $1, $2, $3, $4, $5, 'held',", whose: 'screening_holds.status' },
  { file: 'store/holds/fund-holds.ts', text: "UPDATE screening_holds SET status = 'held',", whose: 'screening_holds.status' },
  { file: 'store/holds/fund-holds.ts', text: "UPDATE screening_holds SET status = 'refunded'", whose: 'screening_holds.status' },
  { file: 'store/holds/hold-ref.ts', text: "FROM screening_holds h WHERE h.id = $1::bigint AND h.status = 'held'", whose: 'screening_holds.status (an open fund hold)' },
  { file: 'admin/hold-notes-service.ts', text: "state.status === 'held'", whose: 'screening_holds.status (an open fund hold)' },
];

const COMPARE = /([\w$.?!\])]+)\s*(===|!==|==|!=)\s*$/;

/** The order-status literals `text` writes by hand, each as the text that shows it (a comparison, or its SQL line). */
export function statusLiterals(text: string): { line: number; text: string }[] {
  const { code, strings, templates } = lex(text);
  const hits: { line: number; text: string }[] = [];
  const sqlLine = (at: number) => text.slice(text.lastIndexOf('\n', at) + 1, (text.indexOf('\n', at) + 1 || text.length + 1) - 1).trim();
  const inSql = (body: string, offset: number) => {
    for (const m of body.matchAll(/'([a-z_]+)'/g)) if (WORDS.has(m[1]!)) hits.push({ line: lineOf(text, offset + m.index), text: sqlLine(offset + m.index) });
  };
  for (const s of strings) {
    if (s.quote === '"') inSql(s.text, s.start);
    if (!WORDS.has(s.text)) continue;
    const before = code.slice(Math.max(0, s.start - 80), s.start - 1);
    const after = code.slice(s.end + 1, s.end + 8);
    const cmp = COMPARE.exec(before);
    const reversed = /^\s*(===|!==|==|!=)/.exec(after);
    const shown = cmp ? `${cmp[1]} ${cmp[2]} '${s.text}'` : /\bcase\s*$/.test(before) ? `case '${s.text}'` : reversed ? `'${s.text}' ${reversed[1]}` : null;
    if (shown) hits.push({ line: lineOf(text, s.start), text: shown });
  }
  for (const t of templates) inSql(t.text, t.start);
  return hits;
}

describe('order statuses are named through the registry', () => {
  it('the scan finds a status written by hand in SQL or a comparison, and nothing else', () => {
    const flagged = [
      "db.query(`SELECT 1 FROM orders WHERE status = 'held'`)",
      'db.query(`UPDATE orders SET x = 1 WHERE status IN (${a}, \'sending\')`)',
      'db.query("SELECT 1 FROM orders WHERE status = \'completed\'")',
      "if (o.status === 'expired') return;",
      "const x = 'refunding' !== order.status;",
      "switch (o.status) { case 'swapping': break; }",
      "const paid = status == 'completed';",
    ];
    for (const f of flagged) assert.equal(statusLiterals(f).length, 1, f);
    const clean = [
      "orderWriter('x', [['sending', 'completed']]);",
      "const example = { status: 'completed' };",
      "// a comment: status === 'held'",
      'const m = `The order is ${o.status}, not held`;',
      "db.query(`SELECT 1 FROM orders WHERE status IN ${statusesSql('operatorHold')}`)",
      "const r = /'sending'/; if (o.status === STATUS.sending) {}",
      "const rows = db.query(`SELECT ${statusLiteral(STATUS.refunding)}, '${x}'`);",
    ];
    for (const c of clean) assert.deepEqual(statusLiterals(c), [], c);
  });

  it('no file of src/ outside the registry writes an order status by hand (other tables\' statuses allowed by name)', () => {
    const used = new Set<(typeof OTHERS)[number]>();
    const offenders = sourceFiles(SRC).flatMap((f) => {
      const rel = relative(SRC, f);
      if (REGISTRY.includes(rel)) return [];
      return statusLiterals(readFileSync(f, 'utf8')).flatMap((h) => {
        const allowed = OTHERS.find((o) => o.file === rel && h.text.includes(o.text));
        if (allowed) return void used.add(allowed), [];
        return [`${rel}:${h.line}: ${h.text}`];
      });
    });
    assert.deepEqual(offenders, []);
    // An allowance nothing uses any more is dropped, so the list stays what src/ does.
    assert.deepEqual(OTHERS.filter((o) => !used.has(o)).map((o) => `${o.file}: ${o.text}`), []);
  });
});
