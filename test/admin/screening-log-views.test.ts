/**
 * The screening log's CSV (src/support/csv.ts, src/admin/screening-log-views.ts) and its query's checks
 * (src/admin/log-query.ts, src/admin/query-words.ts): RFC 4180 quoting, a spreadsheet's formulas shown as text,
 * a cut export saying where to go on; times read the same whatever the database's zone, the calendar checked,
 * and the admin CLI's check of a query in the admin API's words.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { csvField, csvRecord } from '../../src/support/csv.ts';
import { logCsv, logPage } from '../../src/admin/screening-log-views.ts';
import { LOG_PAGE_WORDS, LogQuery, logFilterOf } from '../../src/admin/log-query.ts';
import { checkQuery, isoTime } from '../../src/admin/query-words.ts';
import type { ScreeningLogRow } from '../../src/store/screening-log-store.ts';

const row = (id: number, note: string | null = null): ScreeningLogRow => ({
  id: String(id), at: '2026-11-24T10:00:00.000Z', trackingId: null, accountId: 'acc_1', stage: 'quote', field: 'senderAddress', address: 'So1', result: 'blocked', list: 'sdn.csv', version: 'v', reason: 'listed', actor: 'hush', approvedBy: null, note,
});

describe('CSV', () => {
  test('a field is quoted only when RFC 4180 needs it, its quotes doubled; empty for null', () => {
    assert.equal(csvField('plain text'), 'plain text');
    assert.equal(csvField('a,b'), '"a,b"');
    assert.equal(csvField('say "hi"'), '"say ""hi"""');
    assert.equal(csvField('one\ntwo'), '"one\ntwo"');
    assert.equal(csvField('one\r\ntwo'), '"one\r\ntwo"');
    assert.equal(csvField(null), '');
    assert.equal(csvField(undefined), '');
    assert.equal(csvRecord(['a', null, 'b,c']), 'a,,"b,c"\r\n');
  });

  test('a field a spreadsheet would run as a formula starts with an apostrophe', () => {
    for (const start of ['=', '+', '-', '@', '\t', '\r']) {
      const value = `${start}SUM(A1:A9)`;
      const out = csvField(value);
      const text = out.startsWith('"') ? out.slice(1, -1) : out;
      assert.equal(text, `'${value}`, JSON.stringify(value));
    }
    assert.equal(csvField('=HYPERLINK("http://x","y")'), `"'=HYPERLINK(""http://x"",""y"")"`);
    assert.equal(csvField('a=b'), 'a=b', 'only at the start');
    assert.equal(csvField("'quoted"), "'quoted");
  });

  test('a page says whether an older one exists; an export cut at its limit says where the rest starts', () => {
    const rows = [row(5), row(4), row(3)];
    assert.deepEqual(logPage(rows, 2), { entries: [rows[0], rows[1]], next: '4' });
    assert.deepEqual(logPage(rows, 3), { entries: rows, next: null });
    const whole = logCsv([row(2, '=1+1'), row(1)], 2);
    assert.equal(whole.csv, "id,at,trackingId,accountId,stage,field,address,result,list,version,reason,actor,approvedBy,note\r\n2,2026-11-24T10:00:00.000Z,,acc_1,quote,senderAddress,So1,blocked,sdn.csv,v,listed,hush,,'=1+1\r\n1,2026-11-24T10:00:00.000Z,,acc_1,quote,senderAddress,So1,blocked,sdn.csv,v,listed,hush,,\r\n");
    assert.equal(whole.next, null);
    const cut = logCsv([row(3), row(2), row(1)], 2);
    assert.equal(cut.rows, 2);
    assert.equal(cut.next, '2');
    assert.ok(cut.csv.endsWith('\r\n2,2026-11-24T10:00:00.000Z,,acc_1,quote,senderAddress,So1,blocked,sdn.csv,v,listed,hush,,\r\n# cut at 2 entries: older ones match too; export again with before=2 for them\r\n'));
  });
});

describe("the log's query", () => {
  test('times: a date is midnight UTC, an offset is kept, the calendar is checked', () => {
    assert.deepEqual(isoTime('from', '2026-11-24'), { text: '2026-11-24T00:00:00Z', ms: Date.UTC(2026, 10, 24) });
    assert.equal(isoTime('from', '2026-11-24T10:00+02:00').ms, Date.UTC(2026, 10, 24, 8));
    assert.equal(isoTime('from', '2026-11-24T10:00:00.25Z').ms, Date.UTC(2026, 10, 24, 10, 0, 0, 250));
    assert.equal(isoTime('from', '2028-02-29T00:00:00Z').ms, Date.UTC(2028, 1, 29), 'a leap day');
    for (const bad of ['2027-02-29', '2026-13-01', '2026-11-24T24:00:00Z', '2026-11-24T10:60:00Z', '2026-11-24T10:00:00+24:00', '0000-01-01']) {
      assert.throws(() => isoTime('from', bad), (e: Error & { code?: string }) => e.code === 'INVALID_REQUEST' && /from is not a time on the calendar/.test(e.message), bad);
    }
  });

  test('the filter: decisions are stage resolution; a contradiction or a reversed range is refused', () => {
    assert.deepEqual(logFilterOf({ decisions: 'true', accountId: 'acc_1' }), { stage: 'resolution', accountId: 'acc_1' });
    assert.deepEqual(logFilterOf({ decisions: 'true', stage: 'resolution' }), { stage: 'resolution' });
    assert.deepEqual(logFilterOf({ decisions: 'false', stage: 'quote', before: '9' }), { stage: 'quote', beforeId: '9' });
    assert.throws(() => logFilterOf({ decisions: 'true', stage: 'quote' }), /decisions are the operators' entries/);
    assert.throws(() => logFilterOf({ from: '2026-11-24', to: '2026-11-24' }), /to must be after from/);
  });

  test("the CLI's check gives the admin API's words", () => {
    const words = (q: Record<string, unknown>) => {
      try {
        checkQuery(LogQuery, q, LOG_PAGE_WORDS);
        return 'ok';
      } catch (e) {
        return (e as Error).message;
      }
    };
    assert.equal(words({ stage: 'quote', limit: '5' }), 'ok');
    assert.equal(words({ limit: '0' }), 'Invalid request: limit must be a whole number from 1 to 1000');
    assert.equal(words({ stage: 'later' }), 'Invalid request: stage must be one of: "quote", "deposit", "payout", "refund", "late", "fee", "resolution"');
    assert.equal(words({ addressPrefix: 'O' }), 'Invalid request: addressPrefix must be 1–44 base58 characters (no 0, O, I or l)');
    assert.equal(words({ sort: 'asc' }), 'Invalid request: sort unknown field');
  });
});
