/**
 * A landed payout completes its order before its costs are read (src/settlement/steps/book-costs.ts): the
 * partner's `completed` does not wait on a `getTransaction`. Its fee and rent are booked right after, exactly
 * once, also when the process dies in between; until then the books say a transaction is unbooked, so a
 * reconcile never reports the fee payer's difference as real.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { expectOk } from '../support/api-responses.ts';
import { SOL, startSimHush, type SimHush } from '../support/sim-hush.ts';
import { RpcStandIn } from '../support/sim-rpc-faults.ts';
import { cleanReconcile } from '../support/sim-settlement.ts';

describe('a landed payout\'s costs, booked after its order completes', () => {
  let h: SimHush;
  let rpc: RpcStandIn;
  before(async () => {
    h = await startSimHush({ seed: 72 });
    rpc = new RpcStandIn(h);
  });
  after(() => h.close());

  const costRows = async (signature: string) =>
    (await h.drive(h.db.query<{ account: string; amount: string }>(`SELECT account, amount::text FROM ledger_entries WHERE movement = $1 ORDER BY account`, [`tx:${signature}:cost`]))).rows;
  const feeOf = async (signature: string) =>
    (await h.drive(h.db.query<{ fee: string | null; status: string }>(`SELECT fee_lamports::text AS fee, status FROM chain_txs WHERE signature = $1`, [signature]))).rows[0];

  it('completes the order while its costs cannot be read, and books them once after a crash', async () => {
    const acct = await h.createAccount();
    const sender = await h.wallet({ sol: 2n * SOL });
    const recipient = h.address();
    const req = { amount: '123456789', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: recipient };
    const quote = expectOk(await acct.client.quote(req)).quote;
    const order = expectOk(await acct.client.order({ quote, senderAddress: sender.address, recipientAddress: recipient })).order;
    const deposit = await h.deposit(order, sender);
    // From its deposit on, no getTransaction answers but the deposit's own (its origin, read as it confirms).
    rpc.hold((body) => body.includes('"getTransaction"') && !body.includes(deposit));

    const rec = await h.waitForOrder(acct.client, order.trackingId, ['completed'], 60_000);
    const signature = rec.payouts[0].signature as string;
    // The costs are asked for right after the completion (book-costs.ts), which the partner may see first.
    await h.until("the payout's costs asked for (and held)", async () => rpc.held() > 0, 30_000);
    assert.deepEqual(await costRows(signature), [], 'no cost booked while the chain has not answered');
    assert.deepEqual(await feeOf(signature), { fee: null, status: 'confirmed' });
    const report = (await h.ops.get('/admin/v1/reconcile')).body;
    assert.ok(report.pendingTransactions >= 1, `the uncosted payout counts as unbooked: ${JSON.stringify(report)}`);

    // The process dies with the costs unbooked; the next life finds them at its first pass.
    await h.crashAndRestart();
    rpc.release();
    await cleanReconcile(h);
    const landed = await h.drive(h.chain.call<{ meta: { fee: number; preBalances: number[]; postBalances: number[] } }>('getTransaction', [signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }]));
    assert.deepEqual(await feeOf(signature), { fee: String(landed.meta.fee), status: 'confirmed' });
    const rows = await costRows(signature);
    const payer = rows.find((r) => r.account.startsWith('feepayer:'));
    assert.equal(payer?.amount, String(landed.meta.postBalances[0]! - landed.meta.preBalances[0]!), 'the fee payer\'s change, booked once');
    assert.equal(rows.reduce((s, r) => s + BigInt(r.amount), 0n), 0n, 'the movement balances');
  });
});
