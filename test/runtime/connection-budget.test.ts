/** The listeners' connection caps within the process's open-file limit (src/runtime/connection-budget.ts). */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { FD_RESERVE, connectionBudget, openFileLimit } from '../../src/runtime/connection-budget.ts';

const defaults = { maxConnections: 4096, maxConnectionsPerIp: 64, opsMaxConnections: 256, writeTimeoutMs: 30_000 };

test('the open-file limit is read from /proc/self/limits; unknown or unlimited gives null', () => {
  const limits = 'Limit                     Soft Limit           Hard Limit           Units     \nMax open files            20000                20000                files     \n';
  assert.equal(openFileLimit(() => limits), 20000);
  assert.equal(openFileLimit(() => limits.replace(/20000 +20000/, 'unlimited            unlimited')), null);
  assert.equal(openFileLimit(() => { throw new Error('ENOENT'); }), null);
  // This machine's own (Linux): a number, as Node raised it at start.
  if (process.platform === 'linux') assert.ok((openFileLimit() ?? 0) > 0);
});

test('the settings stand when the limit holds them with the reserve; a lower limit lowers them, never below a working floor', () => {
  assert.deepEqual(connectionBudget(defaults, 20000), {
    partner: { maxTotal: 4096, maxPerAddress: 64, maxAnswering: 20000 - FD_RESERVE - 256 - 4096, writeTimeoutMs: 30_000 },
    ops: { maxTotal: 256, maxPerAddress: 0, maxAnswering: 256, writeTimeoutMs: 30_000 },
    fileLimit: 20000,
    lowered: [],
  });
  assert.deepEqual(connectionBudget(defaults, null).lowered, []);
  const tight = connectionBudget(defaults, 4096);
  assert.equal(tight.ops.maxTotal, 256);
  // A quarter of what the listeners may use stays for answering connections over a cap (429/503, not a reset).
  const partner = Math.floor((4096 - FD_RESERVE - 256) * 0.75);
  assert.equal(tight.partner.maxTotal, partner);
  assert.equal(tight.partner.maxAnswering, 4096 - FD_RESERVE - 256 - partner);
  assert.deepEqual(tight.lowered, [`HUSH_MAX_CONNECTIONS 4096 → ${partner}`]);
  // The listeners, the answers and the reserve fit within the limit.
  for (const limit of [1024, 2048, 4096, 8192]) {
    const b = connectionBudget(defaults, limit);
    assert.ok(b.partner.maxTotal + b.ops.maxTotal + b.partner.maxAnswering! + FD_RESERVE <= limit, `${limit}`);
    assert.ok(b.partner.maxPerAddress <= b.partner.maxTotal);
  }
  const tiny = connectionBudget(defaults, 256);
  assert.deepEqual([tiny.partner.maxTotal, tiny.ops.maxTotal], [16, 8]);
});
