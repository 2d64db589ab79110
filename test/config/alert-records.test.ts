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
  // A Redis nobody listens on: the shared rate limits' ALERT, raised as the API starts.
  t = await startTestHush({ env: { REDIS_URL: 'redis://127.0.0.1:9' }, records: (level, fields, msg) => records.push({ level, fields, msg }) });
});
after(async () => t?.close());

test('an ALERT is a warn record with its kind and fields, and /metrics counts it', async () => {
  const deadline = Date.now() + 10_000;
  while (!records.some((r) => r.fields.alert === 'redis_unreachable') && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50));
  const alert = records.find((r) => r.fields.alert === 'redis_unreachable');
  assert.ok(alert, `records: ${JSON.stringify(records.slice(0, 5))}`);
  assert.equal(alert.level, 'warn');
  assert.match(alert.msg, /^ALERT: Redis at 127\.0\.0\.1:9 unreachable/);
  assert.equal(alert.fields.redis, '127.0.0.1:9');
  for (const r of records) assert.doesNotThrow(() => JSON.stringify(r.fields), 'fields are plain JSON (no bigint)');
  const m = await t.ops.get('/metrics');
  assert.match(m.text, /^hush_alerts_total\{kind="redis_unreachable"\} [1-9]\d*$/m);
});
