/**
 * docs/spec.md §12 disclosure receipts, end to end on a simulated Hush (test/support/sim-hush.ts): a completed
 * order's receipt names its deposit and payout exactly as the chain and the status record show them, verifies
 * with the SDK against the published keys, and fails once any field is changed; it is not there before the order
 * is final (RECEIPT_NOT_READY) and another account gets 404. The key is the receipts' own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { verifyReceipt, type Receipt } from '../../packages/sdk/src/index.ts';
import { loadConfig } from '../../src/config/config.ts';
import { expectError, expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { simCli, simSdk } from '../support/sim-sdk.ts';
import { place } from '../support/sim-screening.ts';

describe('disclosure receipts', () => {
  let h: SimHush;
  let acct: SimAccount;
  let other: SimAccount;
  before(async () => {
    // Screening off, as the real-process harness ran it: the receipt then claims no screening.
    h = await startSimHush({ seed: 12, env: { HUSH_SCREENING_URL: '' } });
    [acct, other] = [await h.createAccount(), await h.createAccount()];
  });
  after(() => closeSim(h));

  test('a completed order: the receipt states its deposit and payout, verifies, and any change breaks it', async () => {
    const sender = await h.wallet({ sol: 100_000_000n, usdc: 20_000_000n });
    const recipient = h.address();
    const placed = await place(h, acct.client, { amount: '10000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: recipient });

    const early = expectError(await acct.client.request('GET', `/transfer/v1/status/${placed.trackingId}/receipt`), 409, 'RECEIPT_NOT_READY');
    assert.deepEqual(early.details, { status: 'awaiting_deposit' });

    await h.deposit(placed.order, sender);
    const done = await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
    await h.drive(h.hush.receipts!.pass());

    const sdk = simSdk(h, acct.apiKey);
    const [receipt, keys] = await h.drive(Promise.all([sdk.receipt(placed.trackingId), sdk.receiptKeys()]));
    const d = receipt.document;
    assert.equal(d.trackingId, placed.trackingId);
    assert.equal(d.status, 'completed');
    assert.deepEqual(d.deposit, done.deposit, 'the deposit as the status record shows it');
    assert.deepEqual(d.payouts, done.payouts.map((p: { signature: string; amount: string }) => ({ signature: p.signature, amount: p.amount })));
    assert.equal(d.sender, sender.address);
    assert.equal(d.recipient, recipient);
    assert.equal(d.amountOut, placed.amountOut.toString());
    assert.deepEqual(d.screening, [], 'screening off: nothing claimed');
    // The signatures it names are transactions that landed.
    const { value } = await h.drive(h.chain.call<{ value: ({ err: unknown } | null)[] }>('getSignatureStatuses', [[d.deposit!.signature, d.payouts[0]!.signature]]));
    assert.ok(value.every((s) => s !== null && s.err === null));

    assert.deepEqual(keys.map((k) => k.keyId), [d.keyId]);
    assert.deepEqual(await verifyReceipt(receipt, keys), { valid: true, keyId: d.keyId });

    const changed = (f: (r: Receipt) => void) => {
      const copy = structuredClone(receipt);
      f(copy);
      return verifyReceipt(copy, keys);
    };
    assert.deepEqual(await changed((r) => void (r.document.amountOut = '9999999999')), { valid: false, reason: 'bad_signature' });
    assert.deepEqual(await changed((r) => void (r.document.payouts[0]!.signature = d.deposit!.signature)), { valid: false, reason: 'bad_signature' });
    assert.deepEqual(await changed((r) => void Object.assign(r.document, { note: 'added' })), { valid: false, reason: 'bad_signature' });
    assert.deepEqual(await changed((r) => void (r.document.keyId = sender.address)), { valid: false, reason: 'unknown_key' });
    assert.deepEqual(await verifyReceipt(receipt, []), { valid: false, reason: 'unknown_key' });

    // Only the order's own partner; signed once (a second pass signs nothing).
    expectError(await other.client.request('GET', `/transfer/v1/status/${placed.trackingId}/receipt`), 404, 'NOT_FOUND');
    assert.equal(await h.drive(h.hush.receipts!.pass()), 0);
    const again = expectOk(await acct.client.request('GET', `/transfer/v1/status/${placed.trackingId}/receipt`)) as unknown as { receipt: Receipt };
    assert.deepEqual(again.receipt, receipt);

    // The partner CLI prints it only once it verifies against the published keys (its code in this process:
    // test/sdk/cli-process.test.ts starts the CLI's own process).
    const cli = await simCli(h, ['receipt', placed.trackingId], { HUSH_API_KEY: acct.apiKey });
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), receipt);
    assert.match(cli.stderr, new RegExp(`verified: signed by receipt key ${d.keyId}`));
  });

  test('the process facing partners never holds the receipt key', () => {
    assert.throws(() => loadConfig({ HUSH_ROLE: 'api', HUSH_RECEIPT_KEY: 'ab'.repeat(32), HUSH_QUOTE_KEY: 'cd'.repeat(32) }), /HUSH_RECEIPT_KEY is set for HUSH_ROLE=api/);
    assert.throws(() => loadConfig({ HUSH_RECEIPT_KEY: 'short' }), /HUSH_RECEIPT_KEY must encode at least 32 bytes/);
  });
});
