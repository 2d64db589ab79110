/**
 * Issue 35 finding 6 (docs/spec.md §5, "Whose deposit"), on the real chain: a deposit counts only what a
 * transaction of the order's sender put into the deposit account.
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
import { generateKeyPairSigner, type Address, type KeyPairSigner } from '@solana/kit';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { expectError, signDeposit, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { buildSignedTransaction, latestBlockhash, pollUntil, transferTx, waitForStatus } from '../support/localnet.ts';
import {
  ASSETS,
  SOL,
  TOKEN_ACCOUNT_SIZE,
  TOKEN_PROGRAM,
  assertPaidOnce,
  ataOf,
  balanceOf,
  chainAt,
  chainTxRows,
  fetchLanded,
  lamportsOf,
  newWallet,
  placeOrder,
  rentExempt,
  successfulSignatures,
  waitForCleanReconcile,
  waitForConfirmed,
  waitForOrder,
  type Chain,
} from '../support/settlement.ts';

const USDC = ASSETS.usdc;
const AMOUNT = 5_000_000n;
/**
 * Late funds are swept on the worker's late-funds pass, and a clean reconcile needs every flow of this file
 * swept: under the full suite's load that took over 30 s once, so the waits are generous (they end on the event).
 */
const SWEPT_WITHIN_MS = 120_000;

describe('deposits count only what the order’s sender put there', { concurrency: true }, () => {
  let t: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  const logged: string[] = [];

  before(async () => {
    t = await startTestHush({
      admin: true,
      log: (l) => logged.push(l),
      // An order's transaction lives no longer than its deadline (and its blockhash: 150 slots): 20 s at 150 ms
      // slots leaves a loaded machine time to land the stranger's transaction and then the sender's before it
      // dies (1 s flaked in the full suite, 4 s at 50 ms slots, and 10 s at 100 ms slots on a machine whose suite
      // ran at three to eight runnable processes per core: the sender's transaction died unsent).
      // The default request budget: with none, the worker's reads of four flows at once kept the in-process chain
      // too busy to confirm anything while other test files ran beside this one (every flow timed out).
      env: { LOCALNET_SLOT_MS: '150', HUSH_ORDER_TTL_S: '20', HUSH_SWEEP_INTERVAL_S: '1' },
    });
    acct = await t.createAccount();
    chain = chainAt(t.chainUrl);
  });
  after(async () => t?.close());

  /** The stranger's transfer of `amount` (none: 0) into the deposit account, creating it first (idempotently) when `create`. */
  const strangerTx = async (stranger: KeyPairSigner, depositAccount: Address, depositOwner: Address, amount: bigint, create: boolean) =>
    buildSignedTransaction(
      stranger,
      [
        ...(create ? [getCreateAssociatedTokenIdempotentInstruction({ payer: stranger, ata: depositAccount, owner: depositOwner, mint: USDC.mint, tokenProgram: TOKEN_PROGRAM })] : []),
        ...(amount > 0n ? [getTransferCheckedInstruction({ source: await ataOf(stranger.address, USDC.mint), mint: USDC.mint, destination: depositAccount, authority: stranger, amount, decimals: USDC.decimals })] : []),
      ],
      await latestBlockhash(chain.rpc),
    );

  /** Several transactions in one JSON-RPC batch: the local chain runs them one after the other, in one slot. */
  const sendBatch = async (wires: string[]) => {
    const res = await fetch(t.chainUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(wires.map((w, id) => ({ jsonrpc: '2.0', id, method: 'sendTransaction', params: [w, { encoding: 'base64', skipPreflight: true }] }))),
    });
    const body = (await res.json()) as { result?: string; error?: unknown }[];
    for (const r of body) assert.ok(r.result, `sent: ${JSON.stringify(r)}`);
  };

  /** The sweep items recorded for a deposit account (late ones are funds that were not the deposit). */
  const sweepItems = async (depositAccount: string) => {
    const { rows } = await t.db.query<{ status: string; item: { amount: string; late?: boolean } }>(
      `SELECT c.status, i AS item FROM chain_txs c, jsonb_array_elements(c.meta -> 'items') i WHERE c.kind = 'sweep' AND i ->> 'depositAccount' = $1`,
      [depositAccount],
    );
    return rows;
  };

  test('a front-run deposit account: the order is not failed on it, expires, and the stranger’s unit is late funds', async () => {
    const sender = await newWallet(chain, { sol: SOL, tokens: { usdc: AMOUNT * 2n } });
    const stranger = await newWallet(chain, { sol: SOL, tokens: { usdc: 10n } });
    const recipient = (await generateKeyPairSigner()).address;
    const placed = await placeOrder(acct.client, { amount: AMOUNT.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient });

    // The stranger reads the deposit account from the unsigned transaction and takes it first; the sender's
    // own transaction comes right behind it, in the same batch (one slot, in order), so it is sent well within
    // the order's short blockhash life however loaded the machine: its non-idempotent create then finds the
    // account there and fails on chain.
    const tokensBefore = (await balanceOf(chain, sender.address, USDC))!;
    const front = await strangerTx(stranger, placed.depositAccount, placed.depositOwner, 1n, true);
    const own = await signDeposit(placed.order.transaction, sender);
    await sendBatch([front.wire, own.wire]);
    await waitForConfirmed(chain, [front.signature]);
    assert.equal((await fetchLanded(chain, front.signature)).err, null, 'the stranger created and funded the deposit account');
    await waitForStatus(chain.rpc, own.signature, 'confirmed');
    assert.notEqual((await fetchLanded(chain, own.signature)).err, null, 'the sender’s deposit failed on chain');
    assert.equal(await balanceOf(chain, sender.address, USDC), tokensBefore, 'none of the sender’s tokens moved');

    // A hint naming the stranger's transaction is not the deposit.
    const hint = await acct.client.deposit({ trackingId: placed.trackingId, signature: front.signature });
    assert.equal(expectError(hint, 409, 'DEPOSIT_MISMATCH').details?.reason, 'not_from_sender');

    // Old behaviour: `failed / deposit_below_refund_cost` (waitForOrder fails at once on another final status).
    const rec = await waitForOrder(acct.client, placed.trackingId, ['expired'], 60_000);
    assert.equal(rec.failureReason, 'deposit_account_taken');
    assert.equal(rec.deposit, null, 'no deposit recorded');
    assert.deepEqual(rec.payouts, []);
    assert.equal(rec.refund, null, 'nothing refunded on the stranger’s unit (it is below a refund’s network fee)');
    for (const s of ['deposit_confirmed', 'refunding', 'failed']) assert.ok(!rec.history.some((h: { status: string }) => h.status === s), `never ${s}`);
    assert.ok(logged.some((l) => l.startsWith('ALERT: the deposit account of') && l.includes(placed.trackingId)), 'the front-run is alerted');
    assert.deepEqual(await chainTxRows(t.db, placed.trackingId, 'payout'), []);
    assert.deepEqual(await successfulSignatures(chain, await ataOf(recipient, USDC.mint)), [], 'the recipient got nothing');

    // The stranger's unit: swept into a pool as late funds (too small to refund: held in custody).
    await pollUntil(async () => (await sweepItems(placed.depositAccount)).some((r) => r.status === 'confirmed'), { timeoutMs: SWEPT_WITHIN_MS, what: 'the late sweep of the stranger’s unit' }).catch(
      async (e: Error) => {
        // What the worker did about it: a timeout alone (it happened once in CI) says nothing.
        const said = logged.filter((l) => l.includes(placed.trackingId) || l.includes(placed.depositAccount) || /late|sweep|error/i.test(l)).slice(-20);
        throw new Error(`${e.message}; sweeps of the account: ${JSON.stringify(await sweepItems(placed.depositAccount))}; the account holds ${await balanceOf(chain, placed.depositOwner, USDC)}; the log:\n${said.join('\n')}`);
      },
    );
    const items = await sweepItems(placed.depositAccount);
    assert.deepEqual(items.filter((r) => r.status === 'confirmed').map((r) => r.item), [{ orderId: String((await t.db.query<{ id: string }>('SELECT id FROM orders WHERE tracking_id = $1', [placed.trackingId])).rows[0]!.id), depositAccount: placed.depositAccount, amount: '1', late: true }]);
    await waitForCleanReconcile(t.opsUrl, t.adminToken!, SWEPT_WITHIN_MS);
  });

  test('a deposit account created empty by a stranger: the order expires saying so', async () => {
    const sender = await newWallet(chain, { sol: SOL, tokens: { usdc: AMOUNT } });
    const stranger = await newWallet(chain, { sol: SOL });
    const placed = await placeOrder(acct.client, { amount: AMOUNT.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: (await generateKeyPairSigner()).address });
    const front = await strangerTx(stranger, placed.depositAccount, placed.depositOwner, 0n, true);
    await sendBatch([front.wire]);
    await waitForConfirmed(chain, [front.signature]);
    const own = await signDeposit(placed.order.transaction, sender);
    await sendBatch([own.wire]);
    await waitForStatus(chain.rpc, own.signature, 'confirmed');
    assert.notEqual((await fetchLanded(chain, own.signature)).err, null, 'the sender’s deposit failed on chain');
    // Old behaviour: expired with no reason, as if the sender had never sent anything.
    const rec = await waitForOrder(acct.client, placed.trackingId, ['expired'], 60_000);
    assert.equal(rec.failureReason, 'deposit_account_taken');
    assert.equal(rec.deposit, null);
    assert.equal(await balanceOf(chain, sender.address, USDC), AMOUNT, 'none of the sender’s tokens moved');
  });

  test('SOL left at the bare deposit address first: the sender’s deposit still lands, paid on exactly its own amount', async () => {
    const sender = await newWallet(chain, { sol: 2n * SOL });
    const stranger = await newWallet(chain, { sol: SOL });
    const recipient = (await generateKeyPairSigner()).address;
    const placed = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: recipient });
    // More than the wrapped-SOL account's rent: once the account exists, the rest reads as part of its token amount.
    const rent = await rentExempt(chain, TOKEN_ACCOUNT_SIZE);
    const pre = await transferTx(chain.rpc, stranger, placed.depositAccount, rent + 4_000n);
    // The sender's transaction still lands: creating the account over lamports already there is allowed. It
    // goes right behind the stranger's in one batch (run in order, in one slot): sent after the stranger's had
    // confirmed, it died unsent on a loaded machine (its blockhash is the order's, from before the stranger's).
    const own = await signDeposit(placed.order.transaction, sender);
    await sendBatch([pre.wire, own.wire]);
    await waitForConfirmed(chain, [pre.signature, own.signature]);
    const [preTx, ownTx] = [await fetchLanded(chain, pre.signature), await fetchLanded(chain, own.signature)];
    assert.ok(preTx.err === null && ownTx.err === null, 'both landed');

    // Old behaviour: the deposit read as amountIn + 4,000 → refunded as `deposit_over`.
    const rec = await waitForOrder(acct.client, placed.trackingId, ['completed'], 60_000);
    assert.equal(rec.deposit.signature, own.signature, 'the deposit is the sender’s transaction, not the earliest one');
    assert.equal(rec.deposit.amount, placed.amountIn.toString());
    await assertPaidOnce(t.db, placed.trackingId, 'payout', placed.amountOut);
    assert.equal(await lamportsOf(chain, recipient), placed.amountOut);
    await pollUntil(async () => (await sweepItems(placed.depositAccount)).some((r) => r.status === 'confirmed'), { timeoutMs: SWEPT_WITHIN_MS, what: 'the sweep' });
    const items = (await sweepItems(placed.depositAccount)).filter((r) => r.status === 'confirmed').map((r) => ({ amount: r.item.amount, late: r.item.late ?? false }));
    assert.deepEqual(items, [{ amount: placed.amountIn.toString(), late: false }, { amount: '4000', late: true }]);
    await waitForCleanReconcile(t.opsUrl, t.adminToken!, SWEPT_WITHIN_MS);
  });

  test('a top-up in the deposit’s own slot: paid exactly amountOut once, the extra is late funds', async () => {
    const sender = await newWallet(chain, { sol: SOL, tokens: { usdc: AMOUNT * 2n } });
    const stranger = await newWallet(chain, { sol: SOL, tokens: { usdc: 10n } });
    const recipient = (await generateKeyPairSigner()).address;
    const placed = await placeOrder(acct.client, { amount: AMOUNT.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient });

    const own = await signDeposit(placed.order.transaction, sender);
    const topUp = await strangerTx(stranger, placed.depositAccount, placed.depositOwner, 3n, false);
    await sendBatch([own.wire, topUp.wire]);
    await waitForConfirmed(chain, [own.signature, topUp.signature]);
    const [ownTx, topTx] = [await fetchLanded(chain, own.signature), await fetchLanded(chain, topUp.signature)];
    assert.equal(ownTx.err, null);
    assert.equal(topTx.err, null);
    assert.equal(ownTx.slot, topTx.slot, 'both landed in one slot: Hush never saw the deposit alone');

    // Old behaviour: the deposit read as amountIn + 3 → refunded as `deposit_over`.
    const rec = await waitForOrder(acct.client, placed.trackingId, ['completed'], 60_000);
    assert.equal(rec.deposit.amount, placed.amountIn.toString(), 'the deposit is what the sender’s transaction put there');
    assert.equal(rec.deposit.signature, own.signature);
    assert.equal(rec.refund, null);
    await assertPaidOnce(t.db, placed.trackingId, 'payout', placed.amountOut);
    assert.equal(await balanceOf(chain, recipient, USDC), placed.amountOut, 'the recipient holds exactly amountOut');

    // The sweep takes the deposit as the order's and the stranger's 3 units as late funds.
    await pollUntil(async () => (await sweepItems(placed.depositAccount)).some((r) => r.status === 'confirmed'), { timeoutMs: SWEPT_WITHIN_MS, what: 'the sweep' });
    const items = (await sweepItems(placed.depositAccount)).filter((r) => r.status === 'confirmed').map((r) => ({ amount: r.item.amount, late: r.item.late ?? false }));
    assert.deepEqual(items, [{ amount: placed.amountIn.toString(), late: false }, { amount: '3', late: true }]);
    await waitForCleanReconcile(t.opsUrl, t.adminToken!, SWEPT_WITHIN_MS);
  });
});
