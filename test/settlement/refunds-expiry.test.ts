/**
 * The orders that do not complete, end to end on a simulated Hush (test/support/sim-hush.ts: its API, worker,
 * store and local chain on a clock that runs only as the test waits):
 * - a short deposit (the sender crafts their own transaction into the order's deposit account, creating
 *   it non-idempotently like Hush's transaction, with less than amountIn) is refunded: deposit − networkFee
 *   back to the sender, refund.reason set, nothing paid to the recipient;
 * - an over-deposit is refunded the same way (docs/spec.md §5: any amount other than amountIn);
 * - no deposit: the order expires once its blockhash is dead (short HUSH_ORDER_TTL_S, fast slots), after
 *   which its transaction can no longer land.
 * And, on the same server (privacy delay 0-0, so a payout is planned before its own deposit can be swept
 * into a pool): a payout larger than any one pool is one transaction from several pools, paid exactly once.
 * Then the ledger reconciles with the chain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenInstruction, getSyncNativeInstruction } from '@solana-program/token';
import { expectError } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import { cleanReconcile, holding, signerAt, startSettlementSim, type SimChain } from '../support/sim-settlement.ts';
import {
  ASSETS, SOL, TOKEN_PROGRAM, accountExists, assertHistory, assertHushShape, assertPaidOnce, chainTxRows, jsonish,
  lamportDelta, placeOrder, type AssetId, type HushBudget,
} from '../support/settlement.ts';

let h: SimHush;
let acct: SimAccount;
let cs: SimChain;
let feePayer: string;
let budget: HushBudget;
let ataRent: bigint;

before(async () => {
  ({ h, acct, cs, feePayer, budget, ataRent } = await startSettlementSim(53, { HUSH_ORDER_TTL_S: '1', HUSH_SWEEP_INTERVAL_S: '2' }));
});
after(() => closeSim(h));

async function wrongDeposit(assetId: AssetId, amount: bigint, deposit: (amountIn: bigint) => bigint, reason: string) {
  const asset = ASSETS[assetId];
  const sender: SimWallet = asset.native ? await cs.wallet({ sol: 2n * SOL }) : await cs.wallet({ sol: SOL, tokens: { [assetId]: amount * 3n } });
  const recipient = h.address();
  const placed = await placeOrder(acct.client, { amount: amount.toString(), sourceAssetId: assetId, destinationAssetId: assetId, senderAddress: sender.address as Address, recipientAddress: recipient });
  const deposited = deposit(placed.amountIn);
  assert.notEqual(deposited, placed.amountIn);
  const lamportsBefore = await cs.lamports(sender.address);
  const tokensBefore = asset.native ? 0n : (await cs.balance(sender.address, asset))!;

  const signature = await cs.ownDeposit(placed, sender, asset, deposited);
  const depositTx = await cs.landed(signature);
  assert.equal(depositTx.err, null);
  // The order's own transaction can no longer land: the deposit account exists now (non-idempotent create).
  const own = sender.signWire(placed.order.transaction);
  await assert.rejects(cs.send(own.wire), 'Hush’s transaction fails once the account exists');

  const rec = await h.waitForOrder(acct.client, placed.trackingId, ['refunded']);
  const expectedRefund = deposited - placed.networkFee;
  assert.equal(rec.final, true);
  assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'refunding', 'refunded']);
  assert.equal(rec.deposit.signature, signature);
  assert.equal(rec.deposit.amount, deposited.toString(), 'the deposit record carries what arrived');
  assert.deepEqual(rec.payouts, [], 'nothing was paid to the recipient');
  assert.equal(rec.refund.amount, expectedRefund.toString(), 'refund = deposit − networkFee');
  assert.equal(rec.refund.reason, reason);
  assert.equal(rec.failureReason, reason);

  // Exactly one refund in the store, no payout at all; the recipient's holding was never touched.
  const rows = await h.drive(assertPaidOnce(h.db, placed.trackingId, 'refund', expectedRefund));
  assert.deepEqual(rows.map((r) => r.signature), [rec.refund.signature]);
  assert.deepEqual(await h.drive(chainTxRows(h.db, placed.trackingId, 'payout')), []);
  assert.deepEqual(await cs.signatures(holding(recipient, assetId)), [], 'the recipient got nothing');

  // The refund transaction: Hush's shape, from a pool (never the deposit account) to the sender.
  const refundTx = await cs.landed(rec.refund.signature);
  assert.equal(refundTx.err, null);
  assertHushShape(refundTx, feePayer, budget);
  assert.ok(!refundTx.accountKeys.includes(placed.depositAccount) && !refundTx.accountKeys.includes(placed.depositOwner), 'refund paid from a pool');

  // The sender: paid `deposited` + its fee + the deposit account rent, got `deposited − networkFee` and the rent back
  // (the quote's feeBreakdown.depositAccountRent), the rent from Hush's fee payer in the refund's own transaction.
  const rent = lamportDelta(depositTx, placed.depositAccount) - (asset.native ? deposited : 0n);
  assert.equal(rent, ataRent);
  assert.equal(placed.quote.feeBreakdown.depositAccountRent, rent.toString(), 'the quote stated the rent');
  assert.equal(lamportDelta(refundTx, sender.address), (asset.native ? expectedRefund : 0n) + rent, 'the refund returns the rent with the deposit');
  const lamportsAfter = await cs.lamports(sender.address);
  if (asset.native) {
    assert.equal(lamportsBefore - lamportsAfter, deposited + depositTx.fee - expectedRefund);
  } else {
    assert.equal(lamportsBefore - lamportsAfter, depositTx.fee, 'the sender is out only its own transaction fee in SOL');
    assert.equal(tokensBefore - (await cs.balance(sender.address, asset))!, deposited - expectedRefund, 'the sender is out exactly the network fee');
  }
  return placed;
}

const refunded: { depositAccount: Address }[] = [];

// Side by side on the one simulated clock, as before beside each other on a live Hush.
describe('refunds and expiry', { concurrency: true }, () => {
  test('SOL short deposit → refunded (deposit − networkFee, reason deposit_short)', async () => {
    refunded.push(await wrongDeposit('sol', 100_000_000n, (a) => a / 2n, 'deposit_short'));
  });

  test('USDC short deposit → refunded', async () => {
    refunded.push(await wrongDeposit('usdc', 10_000_000n, (a) => a - 3_000_000n, 'deposit_short'));
  });

  test('BONK over-deposit → refunded in full less the network fee (reason deposit_over)', async () => {
    refunded.push(await wrongDeposit('bonk', 10_000_000_000n, (a) => a + 1_000_000_000n, 'deposit_over'));
  });

  test('SOL sent without SyncNative still counts: the full amount completes the order, and its hint is 200', async () => {
    const sender = await cs.wallet({ sol: 2n * SOL });
    const recipient = h.address();
    const placed = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address as Address, recipientAddress: recipient });
    const signature = await cs.ownDeposit(placed, sender, ASSETS.sol, placed.amountIn, { syncNative: false });
    await cs.succeeded([signature]);
    const hint = await acct.client.deposit({ trackingId: placed.trackingId, signature });
    assert.equal(hint.status, 200, JSON.stringify(hint.body));
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
    assert.equal(rec.deposit.signature, signature);
    assert.equal(rec.deposit.amount, placed.amountIn.toString(), 'the lamports above the rent reserve are the deposit');
    assert.equal(await cs.lamports(recipient), placed.amountOut, 'the recipient got exactly amountOut');
    await h.until('the deposit account swept (closed)', async () => !(await cs.exists(placed.depositAccount)), 600_000, 1_000);
  });

  test("a SOL refund below a wallet's rent to a sender holding no SOL lands: the deposit account's rent goes back beside it, to the order's sender", async () => {
    // Only the order's sender's own transaction is its deposit (docs/spec.md §5, "Whose deposit"): another
    // wallet pays the fee and the account's rent, and the sender sends all it holds (a wallet's rent plus a
    // little), so it ends with no SOL and the refund (that less networkFee) is below a wallet's rent.
    const sender = cs.keypair();
    const payer = await cs.wallet({ sol: SOL });
    const placed = await placeOrder(acct.client, { amount: '10000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address as Address, recipientAddress: h.address() });
    const walletRent = await cs.rent(0n);
    assert.ok(placed.networkFee > 10_000n, 'the refund below is under a wallet’s rent');
    const all = walletRent + 10_000n;
    await cs.succeeded([await h.drive(h.chain.airdrop(sender.address, all))]);
    await cs.run(
      payer,
      [
        getCreateAssociatedTokenInstruction({ payer: signerAt(payer.address), ata: placed.depositAccount, owner: placed.depositOwner, mint: ASSETS.sol.mint, tokenProgram: TOKEN_PROGRAM }),
        getTransferSolInstruction({ source: signerAt(sender.address), destination: placed.depositAccount, amount: all }),
        getSyncNativeInstruction({ account: placed.depositAccount }),
      ],
      [sender],
    );
    assert.equal(await cs.lamports(sender.address), 0n, 'the sender holds no SOL');
    // Alone the refund (all − networkFee) could not open the sender's wallet; with the rent in the same transaction it
    // does. The rent goes to the order's sender, whoever paid it: the refund is the sender's, and so is settling with a
    // wallet that paid for its deposit.
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['refunded']);
    assert.equal(rec.failureReason, 'deposit_short');
    assert.equal(rec.refund.amount, (all - placed.networkFee).toString());
    assert.equal(await cs.lamports(sender.address), all - placed.networkFee + ataRent);
  });

  test('no deposit → expired once the blockhash is dead; the transaction can no longer land', async () => {
    const sender = await cs.wallet({ sol: SOL });
    const recipient = h.address();
    const placed = await placeOrder(acct.client, { amount: '50000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address as Address, recipientAddress: recipient });
    const expiration = Date.parse(placed.order.expiration);
    // Its transaction's death (a blockhash lives 150 slots, 60 s of 400 ms slots, and Hush allows a margin), far
    // below the simulation's 600 s deadline: not a moment before it, as order-deadline.ts says.
    assert.ok(expiration - h.now() <= 90_000, `a short order deadline with HUSH_ORDER_TTL_S=1 (got ${placed.order.expiration}, ${expiration - h.now()} ms on)`);
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['expired']);
    assertHistory(rec, ['awaiting_deposit', 'expired']);
    assert.equal(rec.final, true);
    assert.ok(Date.parse(rec.history[1].at) >= expiration, 'expired only after the deadline');
    assert.equal(rec.deposit, null);
    assert.deepEqual(rec.payouts, []);
    assert.equal(rec.refund, null);
    // Nothing moved, and nothing can: the transaction's blockhash is dead.
    const { wire } = sender.signWire(placed.order.transaction);
    await assert.rejects(
      cs.send(wire),
      (e: any) => /BlockhashNotFound|blockhash/i.test(String(e?.message)) || assert.fail(`expected a blockhash error, got ${String(e)} ${jsonish(e)}`),
    );
    assert.equal(await cs.exists(placed.depositAccount), false);
    assert.equal(await cs.lamports(sender.address), SOL, 'the sender paid nothing');
    expectError(await acct.client.refresh(placed.trackingId), 410, 'ORDER_EXPIRED');
    assert.deepEqual(await h.drive(chainTxRows(h.db, placed.trackingId, 'payout')), []);
  });
});

describe('a payout no single pool covers', () => {
  test('SOL exact_out larger than any one pool: one transaction, a transfer from each of several pools, paid exactly once', async () => {
    // Pools are funded with 500 SOL each: 700 SOL cannot leave from one of them.
    const sender = await cs.wallet({ sol: 710n * SOL });
    const recipient = h.address();
    const placed = await placeOrder(acct.client, { amount: (700n * SOL).toString(), sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address as Address, recipientAddress: recipient, mode: 'exact_out' });
    await h.deposit(placed.order, sender);
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
    assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending', 'completed']);
    // docs/spec.md §9: a payout is one transaction, never parts reaching the recipient at different times.
    assert.equal(rec.payouts.length, 1, `one payout transaction: ${jsonish(rec.payouts)}`);
    assert.equal(await cs.lamports(recipient), placed.amountOut, 'the recipient holds exactly amountOut');
    const rows = await h.drive(assertPaidOnce(h.db, placed.trackingId, 'payout', placed.amountOut));
    assert.equal(rows.length, 1);
    assert.deepEqual(await cs.signatures(recipient), [rec.payouts[0]!.signature], 'one transaction credited the recipient');
    const tx = await cs.landed(rec.payouts[0]!.signature);
    assertHushShape(tx, feePayer, budget);
    assert.ok(!tx.accountKeys.includes(sender.address) && !tx.accountKeys.includes(placed.depositAccount), 'paid from the pools');
    assert.equal(lamportDelta(tx, recipient), placed.amountOut);
    const pools = tx.signers.filter((a) => a !== feePayer);
    assert.ok(pools.length >= 2, `several pools sign the one transaction: ${pools.join(', ')}`);
    // Each pool's share left that pool (the transaction fee is the fee payer's).
    const shares = pools.map((p) => -lamportDelta(tx, p as Address));
    assert.ok(shares.every((x) => x > 0n), 'every signing pool paid a share');
    assert.equal(shares.reduce((a, b) => a + b, 0n), placed.amountOut, 'the shares add up to amountOut');
    refunded.push(placed);
  });
});

describe('after refunds', () => {
  test('deposits are swept; the ledger reconciles with the chain', async () => {
    assert.equal(refunded.length, 4, 'every deposit-taking scenario ran');
    await h.until('deposits swept', async () => (await Promise.all(refunded.map((r) => accountExists(cs.chain, r.depositAccount)))).every((x) => !x), 600_000, 1_000);
    const report = await cleanReconcile(h);
    assert.equal(report.ok, true);
  });
});
