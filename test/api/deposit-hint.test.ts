/**
 * The deposit hint records what the chain says about the deposit account, as the worker would: what the
 * order's sender's own transaction put there, never another wallet's top-up. The API runs without a
 * worker (role api), so only the hint can confirm the deposit here. It stays on a real Hush: the simulated one
 * always runs role all, whose worker would see the deposit first and record it instead of the hint.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Address } from '@solana/kit';
import { findAssociatedTokenPda, getTransferCheckedInstruction, TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import { fundFromLocalFaucet } from '../../src/treasury/funding.ts';
import { buildSignedTransaction, latestBlockhash, pollUntil, send, waitForStatus } from '../support/localnet.ts';
import { address, expectError, expectOk, fundedSender, orderRequest, quoteRequest, signDeposit, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { systemClock } from '../../src/support/clock.ts';
import { processFaultPoints } from '../../src/support/fault-points.ts';

let t: TestHush;
let acct: TestAccount;

before(async () => {
  t = await startTestHush({ env: { HUSH_ROLE: 'api' } });
  const { hush } = t;
  // Role api never funds the treasury; quotes need funded pools.
  await fundFromLocalFaucet(hush.db, hush.chain, hush.treasury, hush.config.assets, systemClock, processFaultPoints());
  acct = await t.createAccount();
});
after(async () => {
  await t?.close();
});

test("a hint naming someone else's top-up is refused; the sender's own records exactly what its transaction put there", async () => {
  const usdc = t.hush.config.assets.get('usdc')!;
  const sender = await fundedSender(t, { usdc: 50_000_000n });
  const stranger = await fundedSender(t, { usdc: 10n });
  const req = quoteRequest(sender.address, await address(), { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc' });
  // Quotes are refused until the API's inventory has read the pools funded above (its next refresh).
  const quote = await pollUntil(async () => {
    const r = await acct.client.quote(req);
    return r.status === 200 ? r.body.quote : null;
  }, { timeoutMs: 10_000, intervalMs: 100, what: 'a quote once the funded pools are read' });
  const order = expectOk(await acct.client.order(orderRequest(quote, req))).order;
  const { rows } = await t.db.query<{ deposit_account: string }>('SELECT deposit_account FROM orders WHERE tracking_id = $1', [order.trackingId]);
  const depositAccount = rows[0]!.deposit_account as Address;

  const deposit = await signDeposit(order.transaction, sender);
  await send(t.rpc, deposit.wire as never);
  await waitForStatus(t.rpc, deposit.signature, 'confirmed');
  const [strangerAta] = await findAssociatedTokenPda({ owner: stranger.address, mint: usdc.mint as Address, tokenProgram: TOKEN_PROGRAM_ADDRESS });
  const dust = getTransferCheckedInstruction({ source: strangerAta, mint: usdc.mint as Address, destination: depositAccount, authority: stranger, amount: 1n, decimals: usdc.decimals });
  const topUp = await buildSignedTransaction(stranger, [dust], await latestBlockhash(t.rpc));
  await send(t.rpc, topUp.wire);
  await waitForStatus(t.rpc, topUp.signature, 'confirmed');

  // docs/spec.md §5, "Whose deposit": only a transaction of the order's sender can be its deposit.
  const refused = await acct.client.deposit({ trackingId: order.trackingId, signature: topUp.signature });
  assert.equal(expectError(refused, 409, 'DEPOSIT_MISMATCH').details?.reason, 'not_from_sender');
  const hinted = expectOk(await acct.client.deposit({ trackingId: order.trackingId, signature: deposit.signature }), 200).order;
  assert.equal(hinted.status, 'deposit_confirmed');
  assert.equal(hinted.deposit.signature, deposit.signature, 'the deposit is the sender’s transaction');
  assert.equal(hinted.deposit.amount, quote.amountIn, 'what the sender’s transaction put there, not the balance with the stranger’s 1');
});
