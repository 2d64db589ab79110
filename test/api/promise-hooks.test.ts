/**
 * Issue 56: nothing in Hush switches on Node's promise hooks (one AsyncLocalStorage anywhere does, for every
 * promise of the process: ~7 % of a quote's CPU). The chain's request lanes travel as parameters
 * (src/chain/rpc-lane.ts). Asked in a process of its own (test/support/promise-hooks-probe.ts): a real
 * Hush serving a quote, an order and a deposit hint, each of the last two making its chain call in the
 * API lane.
 */
import assert from 'node:assert/strict';
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { test } from 'node:test';
import { promisify } from 'node:util';

test('a Hush that served a quote, an order and a deposit hint never switched promise hooks on', { timeout: 120_000 }, async () => {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(import.meta.dirname, '../support/promise-hooks-probe.ts')], { timeout: 110_000 });
  const out = JSON.parse(stdout.trim().split('\n').at(-1)!) as { before: number; after: number; statuses: number[] };
  assert.deepEqual(out.statuses, [200, 200, 202], 'the quote and order answered, the hint of an unknown transaction was accepted to watch');
  assert.equal(out.before, 0);
  assert.equal(out.after, 0, 'a promise continuation ran with an async id: promise hooks are on');
});
