/**
 * Issue 35 finding 6 (docs/spec.md §5, "Whose deposit"), on a simulated Hush (test/support/sim-hush.ts): a
 * deposit counts only what a transaction of the order's sender put into the deposit account.
 * - front-run: a third party creates the order's deposit token account first (idempotent create, from
 *   its own wallet) and sends it one base unit. The order is neither confirmed, failed nor refunded on
 *   that; the sender's own transaction then fails on chain (the account exists), the order expires with
 *   `failureReason: deposit_account_taken`, the recipient gets nothing, a hint naming the stranger's
 *   transaction is refused, and the stranger's unit is swept as late funds; reconcile stays clean.
 * - an empty account: a stranger only creates the deposit account; the order expires with the same reason.
 * - SOL at the bare address: a stranger sends lamports to the wrapped-SOL deposit address before the
 *   account exists; the sender's transaction still lands over them, the order is paid on exactly its own
 *   amount (its transaction is not the account's earliest), the stranger's surplus is late funds.
 * - top-up: a stranger sends extra to the deposit account in the very slot the real deposit lands (so
 *   Hush first sees both together): the order is paid exactly amountOut once on its own deposit, the extra
 *   is swept as late funds; reconcile stays clean.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { expectError } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import { ata, cleanReconcile, logLines, SETTLEMENT_ENV, signerAt, SimChain } from '../support/sim-settlement.ts';
import { ASSETS, SOL, TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM, assertPaidOnce, chainTxRows, placeOrder } from '../support/settlement.ts';

const USDC = ASSETS.usdc;
const AMOUNT = 5_000_000n;

// The four flows run side by side on the one simulated clock: their waits for expiry and sweeps overlap.
describe('deposits count only what the order’s sender put there', { concurrency: true }, () => {
  let h: SimHush;
  let acct: SimAccount;
  let cs: SimChain;
  let logged: string[];

  before(async () => {
    // An order's transaction lives no longer than its deadline: 20 s, so the untaken orders below expire soon.
    h = await startSimHush({ seed: 43, env: { ...SETTLEMENT_ENV, HUSH_ORDER_TTL_S: '20', HUSH_SWEEP_INTERVAL_S: '1' } });
    logged = logLines(h);
    acct = await h.createAccount();
    cs = new SimChain(h);
  });
  after(() => closeSim(h));

  /** The stranger's transfer of `amount` (none: 0) into the deposit account, creating it first (idempotently) when `create`. */
  const strangerTx = (stranger: SimWallet, depositAccount: Address, depositOwner: Address, amount: bigint, create: boolean) => {
    const payer = signerAt(stranger.address);
    return cs.tx(stranger, [
      ...(create ? [getCreateAssociatedTokenIdempotentInstruction({ payer, ata: depositAccount, owner: depositOwner, mint: USDC.mint, tokenProgram: TOKEN_PROGRAM })] : []),
      ...(amount > 0n ? [getTransferCheckedInstruction({ source: ata(stranger.address, USDC.mint), mint: USDC.mint, destination: depositAccount, authority: payer, amount, decimals: USDC.decimals })] : []),
    ]);
  };

  /** Several transactions in one JSON-RPC batch: the chain runs them one after the other, in one slot. */
  const sendBatch = async (wires: string[]) => {
    for (const r of await cs.sendBatch(wires, { skipPreflight: true })) assert.ok(r.result, `sent: ${JSON.stringify(r)}`);
  };

  /** The sweep items recorded for a deposit account (late ones are funds that were not the deposit). */
  const sweepItems = async (depositAccount: string) => {
    const { rows } = await h.drive(h.db.query<{ status: string; item: { amount: string; late?: boolean } }>(
      `SELECT c.status, i AS item FROM chain_txs c, jsonb_array_elements(c.meta -> 'items') i WHERE c.kind = 'sweep' AND i ->> 'depositAccount' = $1`,
      [depositAccount],
    ));
    return rows;
  };
  const swept = (depositAccount: string, what: string) => h.until(what, async () => (await sweepItems(depositAccount)).some((r) => r.status === 'confirmed'), 600_000, 1_000);

  test('a front-run deposit account: the order is not failed on it, expires, and the stranger’s unit is late funds', async () => {
    const sender = await cs.wallet({ sol: SOL, tokens: { usdc: AMOUNT * 2n } });
    const stranger = await cs.wallet({ sol: SOL, tokens: { usdc: 10n } });
    const recipient = h.address();
    const placed = await placeOrder(acct.client, { amount: AMOUNT.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: recipient });

    // The stranger reads the deposit account from the unsigned transaction and takes it first; the sender's
    // own transaction comes right behind it, in the same batch (one slot, in order), so it is sent well within
    // the order's short blockhash life however loaded the machine: its non-idempotent create then finds the
    // account there and fails on chain.
    const tokensBefore = (await cs.balance(sender.address, USDC))!;
    const front = await strangerTx(stranger, placed.depositAccount, placed.depositOwner, 1n, true);
    const own = sender.signWire(placed.order.transaction);
    await sendBatch([front.wire, own.wire]);
    assert.equal((await cs.landed(front.signature)).err, null, 'the stranger created and funded the deposit account');
    assert.notEqual((await cs.landed(own.signature)).err, null, 'the sender’s deposit failed on chain');
    assert.equal(await cs.balance(sender.address, USDC), tokensBefore, 'none of the sender’s tokens moved');

    // A hint naming the stranger's transaction is not the deposit.
    const hint = await acct.client.deposit({ trackingId: placed.trackingId, signature: front.signature });
    assert.equal(expectError(hint, 409, 'DEPOSIT_MISMATCH').details?.reason, 'not_from_sender');

    // Old behaviour: `failed / deposit_below_refund_cost` (waitForOrder fails at once on another final status).
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['expired']);
    assert.equal(rec.failureReason, 'deposit_account_taken');
    assert.equal(rec.deposit, null, 'no deposit recorded');
    assert.deepEqual(rec.payouts, []);
    assert.equal(rec.refund, null, 'nothing refunded on the stranger’s unit (it is below a refund’s network fee)');
    for (const s of ['deposit_confirmed', 'refunding', 'failed']) assert.ok(!rec.history.some((h: { status: string }) => h.status === s), `never ${s}`);
    assert.ok(logged.some((l) => l.startsWith('ALERT: the deposit account of') && l.includes(placed.trackingId)), 'the front-run is alerted');
    assert.deepEqual(await h.drive(chainTxRows(h.db, placed.trackingId, 'payout')), []);
    assert.deepEqual(await cs.signatures(ata(recipient, USDC.mint)), [], 'the recipient got nothing');

    // The stranger's unit: swept into a pool as late funds (too small to refund: held in custody).
    await swept(placed.depositAccount, 'the late sweep of the stranger’s unit');
    const items = await sweepItems(placed.depositAccount);
    assert.deepEqual(items.filter((r) => r.status === 'confirmed').map((r) => r.item), [{ orderId: String((await h.drive(h.db.query<{ id: string }>('SELECT id FROM orders WHERE tracking_id = $1', [placed.trackingId]))).rows[0]!.id), depositAccount: placed.depositAccount, amount: '1', late: true }]);
    await cleanReconcile(h);
  });

  test('a deposit account created empty by a stranger: the order expires saying so', async () => {
    const sender = await cs.wallet({ sol: SOL, tokens: { usdc: AMOUNT } });
    const stranger = await cs.wallet({ sol: SOL });
    const placed = await placeOrder(acct.client, { amount: AMOUNT.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: h.address() });
    const front = await strangerTx(stranger, placed.depositAccount, placed.depositOwner, 0n, true);
    await sendBatch([front.wire]);
    await cs.succeeded([front.signature]);
    const own = sender.signWire(placed.order.transaction);
    await sendBatch([own.wire]);
    assert.notEqual((await cs.landed(own.signature)).err, null, 'the sender’s deposit failed on chain');
    // Old behaviour: expired with no reason, as if the sender had never sent anything.
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['expired']);
    assert.equal(rec.failureReason, 'deposit_account_taken');
    assert.equal(rec.deposit, null);
    assert.equal(await cs.balance(sender.address, USDC), AMOUNT, 'none of the sender’s tokens moved');
  });

  test('SOL left at the bare deposit address first: the sender’s deposit still lands, paid on exactly its own amount', async () => {
    const sender = await cs.wallet({ sol: 2n * SOL });
    const stranger = await cs.wallet({ sol: SOL });
    const recipient = h.address();
    const placed = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address as Address, recipientAddress: recipient });
    // More than the wrapped-SOL account's rent: once the account exists, the rest reads as part of its token amount.
    const rent = await cs.rent(TOKEN_ACCOUNT_SIZE);
    const pre = await cs.tx(stranger, [getTransferSolInstruction({ source: signerAt(stranger.address), destination: placed.depositAccount, amount: rent + 4_000n })]);
    // The sender's transaction still lands: creating the account over lamports already there is allowed. It
    // goes right behind the stranger's in one batch (run in order, in one slot): sent after the stranger's had
    // confirmed, it died unsent on a loaded machine (its blockhash is the order's, from before the stranger's).
    const own = sender.signWire(placed.order.transaction);
    await sendBatch([pre.wire, own.wire]);
    const [preTx, ownTx] = [await cs.landed(pre.signature), await cs.landed(own.signature)];
    assert.ok(preTx.err === null && ownTx.err === null, 'both landed');

    // Old behaviour: the deposit read as amountIn + 4,000 → refunded as `deposit_over`.
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
    assert.equal(rec.deposit.signature, own.signature, 'the deposit is the sender’s transaction, not the earliest one');
    assert.equal(rec.deposit.amount, placed.amountIn.toString());
    await h.drive(assertPaidOnce(h.db, placed.trackingId, 'payout', placed.amountOut));
    assert.equal(await cs.lamports(recipient), placed.amountOut);
    await swept(placed.depositAccount, 'the sweep');
    const items = (await sweepItems(placed.depositAccount)).filter((r) => r.status === 'confirmed').map((r) => ({ amount: r.item.amount, late: r.item.late ?? false }));
    assert.deepEqual(items, [{ amount: placed.amountIn.toString(), late: false }, { amount: '4000', late: true }]);
    await cleanReconcile(h);
  });

  test('a top-up in the deposit’s own slot: paid exactly amountOut once, the extra is late funds', async () => {
    const sender = await cs.wallet({ sol: SOL, tokens: { usdc: AMOUNT * 2n } });
    const stranger = await cs.wallet({ sol: SOL, tokens: { usdc: 10n } });
    const recipient = h.address();
    const placed = await placeOrder(acct.client, { amount: AMOUNT.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: recipient });

    const own = sender.signWire(placed.order.transaction);
    const topUp = await strangerTx(stranger, placed.depositAccount, placed.depositOwner, 3n, false);
    await sendBatch([own.wire, topUp.wire]);
    const [ownTx, topTx] = [await cs.landed(own.signature), await cs.landed(topUp.signature)];
    assert.equal(ownTx.err, null);
    assert.equal(topTx.err, null);
    assert.equal(ownTx.slot, topTx.slot, 'both landed in one slot: Hush never saw the deposit alone');

    // Old behaviour: the deposit read as amountIn + 3 → refunded as `deposit_over`.
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
    assert.equal(rec.deposit.amount, placed.amountIn.toString(), 'the deposit is what the sender’s transaction put there');
    assert.equal(rec.deposit.signature, own.signature);
    assert.equal(rec.refund, null);
    await h.drive(assertPaidOnce(h.db, placed.trackingId, 'payout', placed.amountOut));
    assert.equal(await cs.balance(recipient, USDC), placed.amountOut, 'the recipient holds exactly amountOut');

    // The sweep takes the deposit as the order's and the stranger's 3 units as late funds.
    await swept(placed.depositAccount, 'the sweep');
    const items = (await sweepItems(placed.depositAccount)).filter((r) => r.status === 'confirmed').map((r) => ({ amount: r.item.amount, late: r.item.late ?? false }));
    assert.deepEqual(items, [{ amount: placed.amountIn.toString(), late: false }, { amount: '3', late: true }]);
    await cleanReconcile(h);
  });
});
