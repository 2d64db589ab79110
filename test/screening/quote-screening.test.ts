/**
 * docs/spec.md §12 at quote, on a simulated Hush (test/support/sim-hush.ts) with real list files: a blocked
 * sender, recipient or fee recipient is 403 ADDRESS_BLOCKED naming the field and never the list (the same message
 * whichever list); the refusal is in the screening log with its list and version; a clear quote is unaffected.
 */
import assert from 'node:assert/strict';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { listScreeningLog } from '../../src/store/screening-log-store.ts';
import { seededRandom } from '../../src/support/random.ts';
import { expectError, expectOk } from '../support/api-responses.ts';
import { quoteRequest } from '../support/hush-server.ts';
import { closeSim } from '../support/sim-close.ts';
import { SimWallet, startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';

describe('screening at quote (403 ADDRESS_BLOCKED)', () => {
  let h: SimHush;
  let acct: SimAccount;
  const dir = mkdtempSync(join(tmpdir(), 'hush-screening-quote-'));
  // The listed addresses are written before Hush starts: drawn from a seed of their own.
  const drawn = seededRandom(3);
  const onCsv = SimWallet.draw(drawn).address as Address;
  const onPlain = SimWallet.draw(drawn).address as Address;
  before(async () => {
    writeFileSync(join(dir, 'sdn.csv'), `1,"X","-0-","-0-","-0-","-0-","-0-","-0-","-0-","Digital Currency Address - SOL ${onCsv};"\n`);
    writeFileSync(join(dir, 'own.txt'), `# ours\n${onPlain}\nnot-an-address\n`);
    // The lists only, as the real-process harness ran it (no risk API).
    h = await startSimHush({ seed: 7, env: { HUSH_SCREENING_LISTS: `${join(dir, 'sdn.csv')},${join(dir, 'own.txt')}`, HUSH_SCREENING_URL: '' } });
    acct = await h.createAccount({ feeRecipients: 1 });
  });
  after(async () => {
    await closeSim(h);
    rmSync(dir, { recursive: true, force: true });
  });

  test('a blocked sender or recipient is refused with the field, one message whichever list; a clear quote passes', async () => {
    const clear = h.address();
    const bySender = expectError(await acct.client.quote(quoteRequest(onCsv, clear)), 403, 'ADDRESS_BLOCKED');
    assert.deepEqual(bySender.details, { field: 'senderAddress' });
    const byRecipient = expectError(await acct.client.quote(quoteRequest(clear, onPlain)), 403, 'ADDRESS_BLOCKED');
    assert.deepEqual(byRecipient.details, { field: 'recipientAddress' });
    const otherList = expectError(await acct.client.quote(quoteRequest(onPlain, clear)), 403, 'ADDRESS_BLOCKED');
    assert.equal(otherList.message, bySender.message, 'the same message whichever list');
    assert.doesNotMatch(JSON.stringify(otherList), /own\.txt|sdn\.csv/, 'the list is never named');
    expectOk(await acct.client.quote(quoteRequest(clear, h.address())));

    // The log is written beside the 403, not before it: wait for the three rows.
    const log = await h.until('the three refusals logged', async () => {
      const rows = await listScreeningLog(h.db);
      return rows.length >= 3 ? rows : null;
    }, 1_000, 20);
    assert.equal(log.length, 3);
    const first = log.at(-1)!;
    assert.equal(first.stage, 'quote');
    assert.equal(first.result, 'blocked');
    assert.equal(first.field, 'senderAddress');
    assert.equal(first.address, onCsv);
    assert.equal(first.list, 'sdn.csv');
    assert.match(first.version ?? '', /^[0-9a-f]{16}$/, 'a list\'s version is what it lists, never when it was read');

    // The operator reads the same log over the admin API.
    const page = expectOk(await h.ops.get('/admin/v1/screening-log?limit=2')) as unknown as { entries: { id: string; field: string }[] };
    assert.deepEqual(page.entries.map((e) => e.field), ['senderAddress', 'recipientAddress']);
    const rest = expectOk(await h.ops.get(`/admin/v1/screening-log?before=${page.entries[1]!.id}`)) as unknown as { entries: { field: string }[] };
    assert.deepEqual(rest.entries.map((e) => e.field), ['senderAddress']);
    assert.equal((await h.ops.get('/admin/v1/screening-log?limit=0')).status, 400);
  });

  test('/readyz shows screening: the lists with their versions, address counts and when each was read, and the failure policy', async () => {
    const ready = expectOk(await h.ops.get('/readyz')) as unknown as { screening: string };
    assert.match(ready.screening, /^on: sdn\.csv@[0-9a-f]{16} \(1\) read \d{4}-\d\d-\d\dT[\d:.]+Z, own\.txt@[0-9a-f]{16} \(1\) read \d{4}-[\d-]+T[\d:.]+Z; on error hold$/);
  });
});
