/**
 * The simulated Hush a test drives (test/support/sim-hush.ts): a partner's send settles in simulated time,
 * a private amount waits for its class and goes within its budget, and a crash mid-flight is recovered from
 * the store — each in well under a second of the machine's time per simulated minute.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectOk } from '../support/api-responses.ts';
import { SOL, startSimHush, type SimHush } from '../support/sim-hush.ts';

describe('a Hush on simulated time', () => {
  let h: SimHush;
  before(async () => {
    h = await startSimHush({ seed: 11 });
  });
  after(() => h.close());

  it('pays an amount off the menu two slots after its deposit confirms, on the simulated clock', async () => {
    const acct = await h.createAccount();
    const sender = await h.wallet({ sol: 2n * SOL });
    const recipient = h.address();
    const req = { amount: '123456789', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: recipient };
    const quote = expectOk(await acct.client.quote(req)).quote;
    assert.equal(quote.privacy.standard, false);
    const order = expectOk(await acct.client.order({ quote, senderAddress: sender.address, recipientAddress: recipient })).order;
    const started = h.now();
    await h.deposit(order, sender);
    const rec = await h.waitForOrder(acct.client, order.trackingId, ['completed'], 60_000);
    assert.equal(rec.payouts.length, 1);
    assert.equal(await h.chain.lamports(recipient), BigInt(order.amountOut));
    assert.ok(h.now() - started < 30_000, `completed ${h.now() - started} simulated ms after the deposit`);
  });

  it('holds a menu amount for its class and pays it within its budget (HUSH_PRIVACY_MAX_DELAY_S)', async () => {
    const acct = await h.createAccount();
    const sender = await h.wallet({ sol: 2n * SOL });
    const recipient = h.address();
    const req = { amount: String(SOL / 10n), sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: recipient };
    const quote = expectOk(await acct.client.quote(req)).quote;
    assert.equal(quote.privacy.standard, true);
    const order = expectOk(await acct.client.order({ quote, senderAddress: sender.address, recipientAddress: recipient })).order;
    await h.deposit(order, sender);
    const confirmedAt = h.now();
    const rec = await h.waitForOrder(acct.client, order.trackingId, ['completed'], 1_200_000);
    assert.ok(h.now() - confirmedAt <= h.config.privacyMaxDelayS * 1000 + 10_000, `paid ${h.now() - confirmedAt} ms after its deposit, budget ${h.config.privacyMaxDelayS} s`);
    assert.equal(await h.chain.lamports(recipient), BigInt(rec.amountOut));
  });

  it('settles an order whose process died after its payout was recorded, once, after the restart', async () => {
    const acct = await h.createAccount();
    const sender = await h.wallet({ sol: 2n * SOL });
    const recipient = h.address();
    const req = { amount: '234567891', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: recipient };
    const quote = expectOk(await acct.client.quote(req)).quote;
    const order = expectOk(await acct.client.order({ quote, senderAddress: sender.address, recipientAddress: recipient })).order;
    await h.deposit(order, sender);
    await h.waitForOrder(acct.client, order.trackingId, ['sending', 'completed'], 60_000);
    await h.crashAndRestart();
    const rec = await h.waitForOrder(acct.client, order.trackingId, ['completed'], 120_000);
    assert.equal(await h.chain.lamports(recipient), BigInt(rec.amountOut), 'paid exactly once');
  });
});
