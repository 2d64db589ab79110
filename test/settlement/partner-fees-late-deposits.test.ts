/**
 * End to end on the local chain: a partner's fee reaches its registered fee recipient in one aggregated
 * transfer per period (never one per order), and funds sent to a deposit account after its order is final
 * go back to the sender less the order's network fee. Then the ledger reconciles with the chain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import type { KeyPairSigner } from '@solana/kit';
import { expectOk, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { buildSignedTransaction, latestBlockhash, pollUntil } from '../support/localnet.ts';
import { ASSETS, SOL, ataOf, balanceOf, chainAt, depositWithRefresh, newWallet, waitForCleanReconcile, waitForOrder, type Chain } from '../support/settlement.ts';

describe('partner fees and late deposits', () => {
  let hush: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  let sender: KeyPairSigner;

  before(async () => {
    hush = await startTestHush({
      admin: true,
      env: { HUSH_PAYOUT_DELAY_S: '0-0', HUSH_SWEEP_INTERVAL_S: '1', HUSH_PARTNER_PAYOUT_INTERVAL_S: '2', LOCALNET_SLOT_MS: '100' },
    });
    acct = await hush.createAccount({ feeCapBps: 200 });
    chain = chainAt(hush.chainUrl);
    sender = await newWallet(chain, { sol: 5n * SOL, tokens: { usdc: 500_000_000n } });
  });
  after(async () => hush?.close());

  test('two orders with a partner fee: the fee recipient receives their sum in one transfer', async () => {
    const feeRecipient = acct.feeRecipients[0]!;
    const partnerFees: bigint[] = [];
    for (const feeBps of [150, 40]) {
      const recipient = (await newWallet(chain)).address;
      const req = { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient, feeBps, feeRecipientAddress: feeRecipient };
      const quote = expectOk(await acct.client.quote(req)).quote;
      assert.equal(BigInt(quote.feeBreakdown.partnerFee), (20_000_000n * BigInt(feeBps)) / 10_000n);
      const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, ...terms } = req;
      const order = expectOk(await acct.client.order({ quote, ...terms })).order;
      await depositWithRefresh(acct.client, chain, { order, trackingId: order.trackingId } as never, sender);
      await waitForOrder(acct.client, order.trackingId, ['completed'], 30_000);
      partnerFees.push(BigInt(quote.feeBreakdown.partnerFee));
    }
    const expected = partnerFees.reduce((a, b) => a + b, 0n);
    const received = await pollUntil(async () => {
      const b = (await balanceOf(chain, feeRecipient, ASSETS.usdc)) ?? 0n;
      return b >= expected ? b : null;
    }, { timeoutMs: 20_000, what: 'the partner payout' });
    assert.equal(received, expected, 'exactly the accrued partner fees, no more');
    // Aggregated: one partner payout per period at most, never one per order by construction.
    // The chain can show the payout before the worker has settled its record: wait for the record.
    const row = await pollUntil(async () => {
      const { rows } = await hush.db.query<{ n: string | number; total: string | null }>(
        `SELECT count(*) AS n, sum(amount)::text AS total FROM chain_txs WHERE kind = 'partner_payout' AND status = 'confirmed' AND destination = $1`,
        [feeRecipient],
      );
      return rows[0]?.total && BigInt(rows[0].total) === expected ? rows[0] : null;
    }, { timeoutMs: 20_000, what: 'the settled partner payout record' });
    assert.ok(Number(row.n) <= 2);
  });

  test('funds sent to a swept deposit account come back to the sender less the network fee', async () => {
    const recipient = (await newWallet(chain)).address;
    const req = { amount: '10000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient };
    const quote = expectOk(await acct.client.quote(req)).quote;
    const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, ...terms } = req;
    const order = expectOk(await acct.client.order({ quote, ...terms })).order;
    await depositWithRefresh(acct.client, chain, { order, trackingId: order.trackingId } as never, sender);
    await waitForOrder(acct.client, order.trackingId, ['completed'], 30_000);
    const { rows } = await hush.db.query<{ deposit_owner: string; deposit_account: string }>('SELECT deposit_owner, deposit_account FROM orders WHERE tracking_id = $1', [order.trackingId]);
    const { deposit_owner: owner, deposit_account: depositAccount } = rows[0]!;
    await pollUntil(async () => (await hush.db.query<{ swept: boolean }>('SELECT swept FROM orders WHERE tracking_id = $1', [order.trackingId])).rows[0]?.swept || null, {
      timeoutMs: 20_000,
      what: 'the sweep of the deposit',
    });

    const late = 3_000_000n;
    const before = (await balanceOf(chain, sender.address, ASSETS.usdc))!;
    const ixs = [
      getCreateAssociatedTokenIdempotentInstruction({ payer: sender, ata: depositAccount as never, owner: owner as never, mint: ASSETS.usdc.mint }),
      getTransferCheckedInstruction({ source: await ataOf(sender.address, ASSETS.usdc.mint), mint: ASSETS.usdc.mint, destination: depositAccount as never, authority: sender, amount: late, decimals: 6 }),
    ];
    const { wire } = await buildSignedTransaction(sender, ixs, await latestBlockhash(chain.rpc));
    await chain.rpc.sendTransaction(wire, { encoding: 'base64' }).send();
    const expectedBack = late - BigInt(quote.networkFee);
    const after = await pollUntil(async () => {
      const b = (await balanceOf(chain, sender.address, ASSETS.usdc))!;
      return b === before - late + expectedBack ? b : null;
    }, { timeoutMs: 30_000, what: 'the late-deposit refund' });
    assert.equal(before - after, BigInt(quote.networkFee), 'the sender loses exactly the network fee');
    const status = expectOk(await acct.client.status(order.trackingId)).order;
    assert.equal(status.status, 'completed', 'the order stays final');

    const report = await waitForCleanReconcile(hush.url, hush.adminToken!, 30_000);
    assert.equal(report.ok, true);
  });
});
