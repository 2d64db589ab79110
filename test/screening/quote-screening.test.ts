/**
 * docs/spec.md §12 at quote, over real HTTP with real list files: a blocked sender, recipient or fee
 * recipient is 403 ADDRESS_BLOCKED naming the field and never the list (the same message whichever list);
 * the refusal is in the screening log with its list and version; a clear quote is unaffected.
 */
import assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { listScreeningLog } from '../../src/store/screening-log-store.ts';
import { makeTempDir } from '../support/localnet.ts';
import { address, expectError, expectOk, quoteRequest, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';

describe('screening at quote (403 ADDRESS_BLOCKED)', () => {
  let t: TestHush;
  let acct: TestAccount;
  const dir = makeTempDir('hush-screening-quote-');
  let onCsv: Address;
  let onPlain: Address;
  before(async () => {
    [onCsv, onPlain] = [await address(), await address()];
    writeFileSync(join(dir, 'sdn.csv'), `1,"X","-0-","-0-","-0-","-0-","-0-","-0-","-0-","Digital Currency Address - SOL ${onCsv};"\n`);
    writeFileSync(join(dir, 'own.txt'), `# ours\n${onPlain}\nnot-an-address\n`);
    t = await startTestHush({ admin: true, env: { HUSH_SCREENING_LISTS: `${join(dir, 'sdn.csv')},${join(dir, 'own.txt')}` } });
    acct = await t.createAccount({ feeRecipients: 1 });
  });
  after(() => t?.close());

  test('a blocked sender or recipient is refused with the field, one message whichever list; a clear quote passes', async () => {
    const clear = await address();
    const bySender = expectError(await acct.client.quote(quoteRequest(onCsv, clear)), 403, 'ADDRESS_BLOCKED');
    assert.deepEqual(bySender.details, { field: 'senderAddress' });
    const byRecipient = expectError(await acct.client.quote(quoteRequest(clear, onPlain)), 403, 'ADDRESS_BLOCKED');
    assert.deepEqual(byRecipient.details, { field: 'recipientAddress' });
    const otherList = expectError(await acct.client.quote(quoteRequest(onPlain, clear)), 403, 'ADDRESS_BLOCKED');
    assert.equal(otherList.message, bySender.message, 'the same message whichever list');
    assert.doesNotMatch(JSON.stringify(otherList), /own\.txt|sdn\.csv/, 'the list is never named');
    expectOk(await acct.client.quote(quoteRequest(clear, await address())));

    // The log is written beside the 403, not before it: wait for the three rows.
    let log = await listScreeningLog(t.db);
    for (let i = 0; i < 50 && log.length < 3; i++) log = await new Promise((r) => setTimeout(r, 20)).then(() => listScreeningLog(t.db));
    assert.equal(log.length, 3);
    const first = log.at(-1)!;
    assert.equal(first.stage, 'quote');
    assert.equal(first.result, 'blocked');
    assert.equal(first.field, 'senderAddress');
    assert.equal(first.address, onCsv);
    assert.equal(first.list, 'sdn.csv');
    assert.match(first.version ?? '', /^[0-9a-f]{16}@/);

    // The operator reads the same log over the admin API.
    const admin = t.ops.withKey(t.adminToken!);
    const page = expectOk(await admin.get('/admin/v1/screening-log?limit=2')) as unknown as { entries: { id: string; field: string }[] };
    assert.deepEqual(page.entries.map((e) => e.field), ['senderAddress', 'recipientAddress']);
    const rest = expectOk(await admin.get(`/admin/v1/screening-log?before=${page.entries[1]!.id}`)) as unknown as { entries: { field: string }[] };
    assert.deepEqual(rest.entries.map((e) => e.field), ['senderAddress']);
    assert.equal((await admin.get('/admin/v1/screening-log?limit=0')).status, 400);
  });

  test('/readyz shows screening: the lists with their versions and address counts, and the failure policy', async () => {
    const ready = expectOk(await t.ops.get('/readyz')) as unknown as { screening: string };
    assert.match(ready.screening, /^on: sdn\.csv@[0-9a-f]{16} \(1\), own\.txt@[0-9a-f]{16} \(1\); on error hold$/);
  });
});
