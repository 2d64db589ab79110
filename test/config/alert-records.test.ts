/**
 * ALERTs are structured records (issue 26): `alert: <kind>` with their fields, at warn, counted in
 * hush_alerts_total{kind}; the worker's other records keep their fields too.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { startTestHush, type TestHush } from '../support/hush-server.ts';

const records: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
let t: TestHush;
before(async () => {
  t = await startTestHush({ records: (level, fields, msg) => records.push({ level, fields, msg }) });
});
after(async () => t?.close());

test('the privacy-off ALERT is a warn record with its kind, and /metrics counts it', async () => {
  const alert = records.find((r) => r.fields.alert === 'privacy_off');
  assert.ok(alert, `records: ${JSON.stringify(records.slice(0, 5))}`);
  assert.equal(alert.level, 'warn');
  assert.match(alert.msg, /^ALERT: HUSH_PRIVACY=off/);
  for (const r of records) assert.doesNotThrow(() => JSON.stringify(r.fields), 'fields are plain JSON (no bigint)');
  const m = await t.ops.get('/metrics');
  assert.match(m.text, /^hush_alerts_total\{kind="privacy_off"\} [1-9]\d*$/m);
});
