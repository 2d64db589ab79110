/**
 * docs/spec.md §12 disclosure receipts, end to end on the local chain: a completed order's receipt names
 * its deposit and payout exactly as the chain and the status record show them, verifies with the SDK
 * against the published keys, and fails once any field is changed; it is not there before the order is
 * final (RECEIPT_NOT_READY) and another account gets 404. The key is the receipts' own.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { createHushClient, verifyReceipt, type Receipt } from '../../packages/sdk/src/index.ts';
import { loadConfig } from '../../src/config/config.ts';
import { expectError, expectOk, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { chainAt, depositWithRefresh, newWallet, placeOrder, waitForOrder, type Chain } from '../support/settlement.ts';
import { runPartnerCli } from '../support/partner-cli.ts';


describe('disclosure receipts', () => {
  let hush: TestHush;
  let acct: TestAccount;
  let other: TestAccount;
  let chain: Chain;
  before(async () => {
    hush = await startTestHush();
    [acct, other] = [await hush.createAccount(), await hush.createAccount()];
    chain = chainAt(hush.chainUrl);
  });
  after(() => hush?.close());

  test('a completed order: the receipt states its deposit and payout, verifies, and any change breaks it', async () => {
    const sender = await newWallet(chain, { sol: 100_000_000n, tokens: { usdc: 20_000_000n } });
    const recipient = (await newWallet(chain)).address;
    const placed = await placeOrder(acct.client, { amount: '10000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient });

    const early = expectError(await acct.client.request('GET', `/transfer/v1/status/${placed.trackingId}/receipt`), 409, 'RECEIPT_NOT_READY');
    assert.deepEqual(early.details, { status: 'awaiting_deposit' });

    await depositWithRefresh(acct.client, chain, placed, sender);
    const done = await waitForOrder(acct.client, placed.trackingId, ['completed'], 30_000);
    await hush.hush.receipts!.pass();

    const sdk = createHushClient({ baseUrl: hush.url, apiKey: acct.apiKey });
    const [receipt, keys] = await Promise.all([sdk.receipt(placed.trackingId), sdk.receiptKeys()]);
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
    const { value } = await chain.rpc.getSignatureStatuses([d.deposit!.signature as never, d.payouts[0]!.signature as never]).send();
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
    assert.equal(await hush.hush.receipts!.pass(), 0);
    const again = expectOk(await acct.client.request('GET', `/transfer/v1/status/${placed.trackingId}/receipt`)) as unknown as { receipt: Receipt };
    assert.deepEqual(again.receipt, receipt);

    // The partner CLI prints it only once it verifies against the published keys.
    const cli = await runPartnerCli(['receipt', placed.trackingId], { HUSH_URL: hush.url, HUSH_API_KEY: acct.apiKey });
    assert.equal(cli.code, 0, cli.stderr);
    assert.deepEqual(JSON.parse(cli.stdout), receipt);
    assert.match(cli.stderr, new RegExp(`verified: signed by receipt key ${d.keyId}`));
  });

  test('the process facing partners never holds the receipt key', () => {
    assert.throws(() => loadConfig({ HUSH_ROLE: 'api', HUSH_RECEIPT_KEY: 'ab'.repeat(32), HUSH_QUOTE_KEY: 'cd'.repeat(32) }), /HUSH_RECEIPT_KEY is set for HUSH_ROLE=api/);
    assert.throws(() => loadConfig({ HUSH_RECEIPT_KEY: 'short' }), /HUSH_RECEIPT_KEY must encode at least 32 bytes/);
  });
});
