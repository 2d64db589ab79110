/**
 * Every endpoint of docs/spec.md §4 against a real, listening Hush (PGlite store, embedded chain), over HTTP:
 * tokens, quote (fee arithmetic, firmness, network fee), order (the unsigned transaction decoded,
 * simulated, submitted), refresh, status (ETag), deposit hint, and the operational routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { type Address, type KeyPairSigner } from '@solana/kit';
import {
  COMPUTE_BUDGET_PROGRAM_ADDRESS, ComputeBudgetInstruction, identifyComputeBudgetInstruction,
} from '@solana-program/compute-budget';
import {
  SYSTEM_PROGRAM_ADDRESS, SystemInstruction, identifySystemInstruction, parseTransferSolInstruction,
} from '@solana-program/system';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS, AssociatedTokenInstruction, TOKEN_PROGRAM_ADDRESS, TokenInstruction,
  findAssociatedTokenPda, identifyAssociatedTokenInstruction, identifyTokenInstruction,
  parseCreateAssociatedTokenInstruction, parseSyncNativeInstruction, parseTransferCheckedInstruction,
} from '@solana-program/token';
import { waitForStatus } from '../support/localnet.ts';
import { SEALED_DEPOSIT_RECORD_LENGTH } from '../../src/treasury/deposit-record-box.ts';
import {
  USDC_MINT, address, expectError, expectOk, fundedSender, inspectDepositTransaction, signDeposit, sleep,
  type DepositTxView, type TestAccount, type TestHush, quoteAndOrder, simulateWire, submitWire,
} from '../support/hush-server.ts';
import {
  WSOL_MINT, MEMO_PROGRAMS, ISO_MS, ORDER_FIELDS, ORDER_TTL_S, AFTER_DEPOSIT, startEndpointSuite,
} from '../support/endpoint-suite.ts';


let t: TestHush, acct: TestAccount;
before(async () => void ({ t, acct } = await startEndpointSuite()));
after(async () => t?.close());

function assertDepositShape(view: DepositTxView, sender: Address, recipient: Address, opts: { native: boolean; amount: bigint; mint: Address; decimals: number }) {
  assert.equal(view.version, 0, 'a version-0 transaction');
  assert.deepEqual(view.signers, [sender], 'fee payer = sender, and the sender is the only signer');
  assert.deepEqual(view.signatureSlots, [sender], 'one signature slot, the sender’s');
  assert.ok(!view.staticAccounts.includes(recipient), 'the transaction does not name the recipient');
  // Last, one memo: the order's sealed record (docs/decisions.md "The deposit carries its order's record"), of its one
  // length, naming no account and nothing readable: no memo program else (the legacy v1 one never).
  const ixs = view.instructions;
  const record = ixs[ixs.length - 1]!;
  assert.equal(record.programAddress, MEMO_PROGRAMS[0], 'the sealed record, last, in SPL Memo v2');
  for (const m of MEMO_PROGRAMS.slice(1)) assert.ok(!view.staticAccounts.includes(m as Address), 'no other memo program');
  assert.equal((record.accounts ?? []).length, 0);
  const memo = Buffer.from(record.data!).toString('utf8');
  assert.equal(memo.length, SEALED_DEPOSIT_RECORD_LENGTH);
  assert.match(memo, /^[A-Za-z0-9+/]+={0,2}$/);
  assert.ok(!memo.includes('trk_'), 'nothing of the order in the clear');
  const programs = ixs.slice(0, -1).map((ix) => ix.programAddress);
  const expected = opts.native
    ? [COMPUTE_BUDGET_PROGRAM_ADDRESS, COMPUTE_BUDGET_PROGRAM_ADDRESS, ASSOCIATED_TOKEN_PROGRAM_ADDRESS, SYSTEM_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS]
    : [COMPUTE_BUDGET_PROGRAM_ADDRESS, COMPUTE_BUDGET_PROGRAM_ADDRESS, ASSOCIATED_TOKEN_PROGRAM_ADDRESS, TOKEN_PROGRAM_ADDRESS];
  assert.deepEqual(programs, expected);
  const cb = ixs.slice(0, 2).map((ix) => identifyComputeBudgetInstruction(ix as never));
  assert.deepEqual(cb.sort(), [ComputeBudgetInstruction.SetComputeUnitLimit, ComputeBudgetInstruction.SetComputeUnitPrice].sort());
  // The deposit account is created with the NON-idempotent instruction (only one transaction can land).
  assert.equal(identifyAssociatedTokenInstruction(ixs[2] as never), AssociatedTokenInstruction.CreateAssociatedToken);
  const create = parseCreateAssociatedTokenInstruction(ixs[2] as never);
  assert.equal(create.accounts.payer.address, sender);
  assert.equal(create.accounts.mint.address, opts.mint);
  const depositAccount = create.accounts.ata.address;
  if (opts.native) {
    assert.equal(identifySystemInstruction(ixs[3] as never), SystemInstruction.TransferSol);
    const transfer = parseTransferSolInstruction(ixs[3] as never);
    assert.equal(transfer.accounts.source.address, sender);
    assert.equal(transfer.accounts.destination.address, depositAccount);
    assert.equal(transfer.data.amount, opts.amount, 'transfers exactly amountIn');
    assert.equal(identifyTokenInstruction(ixs[4] as never), TokenInstruction.SyncNative);
    assert.equal(parseSyncNativeInstruction(ixs[4] as never).accounts.account.address, depositAccount);
  } else {
    assert.equal(identifyTokenInstruction(ixs[3] as never), TokenInstruction.TransferChecked);
    const transfer = parseTransferCheckedInstruction(ixs[3] as never);
    assert.equal(transfer.accounts.authority.address, sender);
    assert.equal(transfer.accounts.destination.address, depositAccount);
    assert.equal(transfer.accounts.mint.address, opts.mint);
    assert.equal(transfer.data.amount, opts.amount, 'transfers exactly amountIn');
    assert.equal(transfer.data.decimals, opts.decimals);
  }
  return depositAccount;
}

/** Polls GET /status until the order is final (the worker settles it; payout delay is 0 in these tests). */
async function untilFinal(trackingId: string, timeoutMs = 30_000) {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const s = expectOk(await acct.client.status(trackingId)).order;
    if (s.final) return s;
    assert.ok(Date.now() < deadline, `order ${trackingId} still ${s.status} after ${timeoutMs} ms`);
    await sleep(250);
  }
}

describe('POST /order, the deposit transaction, refresh, status and the deposit hint', () => {
  let sender: KeyPairSigner;
  before(async () => {
    sender = await fundedSender(t, { sol: 5n * 1_000_000_000n, usdc: 50_000_000n });
  });

  test('SOL order: v0, sender pays and signs alone, create + transfer + SyncNative of exactly amountIn; simulates and lands once', async () => {
    const recipient = await address();
    const { q, o } = await quoteAndOrder(acct.client, sender.address, recipient, { amount: '200000000' });
    assert.deepEqual(Object.keys(o).sort(), ORDER_FIELDS);
    assert.match(o.trackingId, /^trk_[1-9A-HJ-NP-Za-km-z]{22}$/);
    assert.equal(o.transactionEncoding, 'base64');
    assert.equal(o.amountIn, q.amountIn);
    assert.equal(o.amountOut, q.amountOut);
    assert.equal(o.sourceSymbol, 'SOL');
    assert.equal(o.destinationSymbol, 'SOL');
    assert.equal(o.eta, q.duration, 'eta = the quote duration');
    assert.ok(Number.isInteger(o.eta));
    assert.match(o.expiration, ISO_MS);

    const view = inspectDepositTransaction(o.transaction);
    const depositAccount = assertDepositShape(view, sender.address, recipient, { native: true, amount: BigInt(q.amountIn), mint: WSOL_MINT, decimals: 9 });

    // blockhashExpiresAtSlot: in the future, within one blockhash life (150 slots) of now.
    const slot = await t.rpc.getSlot({ commitment: 'processed' }).send();
    assert.ok(Number.isInteger(o.blockhashExpiresAtSlot));
    assert.ok(BigInt(o.blockhashExpiresAtSlot) > slot, `blockhashExpiresAtSlot ${o.blockhashExpiresAtSlot} > slot ${slot}`);
    assert.ok(BigInt(o.blockhashExpiresAtSlot) <= slot + 152n, `blockhashExpiresAtSlot ${o.blockhashExpiresAtSlot} within 150 slots of ${slot}`);
    assert.equal((await t.rpc.isBlockhashValid(view.blockhash as never, { commitment: 'processed' }).send()).value, true);
    // lastValidBlockHeight: the same moment in block heights (what web3.js's confirmTransaction takes). On the local
    // chain every slot has a block, so heights and slots coincide, but for the slots that tick between Hush's two
    // concurrent reads (a blockhash and a height), fetched when its blockhash cache was last refreshed, maybe by an
    // earlier order: one on a quiet machine, two in a clean-clone run on a loaded one (200 ms slots). At most four:
    // five, a second of slots, would mean one read lagged the other by a second.
    const height = await t.rpc.getBlockHeight({ commitment: 'processed' }).send();
    assert.ok(Number.isInteger(o.lastValidBlockHeight));
    assert.ok(BigInt(o.lastValidBlockHeight) > height, `lastValidBlockHeight ${o.lastValidBlockHeight} > height ${height}`);
    assert.ok(Math.abs(o.lastValidBlockHeight - o.blockhashExpiresAtSlot) <= 4, `${o.lastValidBlockHeight} ≈ ${o.blockhashExpiresAtSlot}`);

    // expiration = createdAt + HUSH_ORDER_TTL_S.
    const st = expectOk(await acct.client.status(o.trackingId)).order;
    assert.equal(Date.parse(o.expiration) - Date.parse(st.createdAt), ORDER_TTL_S * 1000);
    assert.equal(st.expiration, o.expiration);

    // An unsigned transaction does not verify; signed by the sender alone it simulates cleanly.
    const { wire, signature } = await signDeposit(o.transaction, sender);
    const sim = await simulateWire(t, wire);
    assert.equal(sim.err, null, `simulation failed: ${JSON.stringify(sim.err)} ${sim.logs?.join('\n')}`);

    // Submit: it lands and funds the deposit account with exactly amountIn; a second submission fails.
    const sig = await submitWire(t, wire);
    assert.equal(sig, signature);
    await waitForStatus(t.rpc, sig, 'confirmed');
    const bal = await t.rpc.getTokenAccountBalance(depositAccount, { commitment: 'confirmed' }).send();
    assert.equal(bal.value.amount, q.amountIn);
    await assert.rejects(submitWire(t, wire), 'the same transaction cannot land twice');

    // Deposit hint: 200 with the deposit recorded (the worker may already be settling it); retries are safe.
    const hinted = expectOk(await acct.client.deposit({ trackingId: o.trackingId, signature: sig }), 200).order;
    assert.ok(AFTER_DEPOSIT.includes(hinted.status), `status after the deposit: ${hinted.status}`);
    assert.deepEqual(Object.keys(hinted.deposit).sort(), ['amount', 'confirmedAt', 'signature']);
    assert.equal(hinted.deposit.signature, sig);
    assert.equal(hinted.deposit.amount, q.amountIn);
    assert.match(hinted.deposit.confirmedAt, ISO_MS);
    assert.deepEqual(hinted.history.slice(0, 3).map((h: any) => h.status), ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed']);
    const again = expectOk(await acct.client.deposit({ trackingId: o.trackingId, signature: sig }), 200).order;
    assert.ok(AFTER_DEPOSIT.includes(again.status));
    assert.deepEqual(again.deposit, hinted.deposit, 'a retried hint changes nothing about the deposit');
    assert.equal(again.history.filter((h: any) => h.status === 'deposit_confirmed').length, 1, 'the deposit is confirmed once');

    // Once the deposit is recorded, the order can no longer be refreshed.
    const err = expectError(await acct.client.refresh(o.trackingId), 409, 'ORDER_NOT_REFRESHABLE');
    assert.ok(AFTER_DEPOSIT.includes(err.details?.status), `details.status ${err.details?.status}`);

    // The hint of this deposit does not fit another order: 409 DEPOSIT_MISMATCH.
    const other = await quoteAndOrder(acct.client, sender.address, recipient, { amount: '200000000' });
    const mismatch = expectError(await acct.client.deposit({ trackingId: other.o.trackingId, signature: sig }), 409, 'DEPOSIT_MISMATCH');
    assert.equal(mismatch.details?.reason, 'not_this_deposit');

    // The quote was firm: the recipient ends up with exactly amountOut.
    const done = await untilFinal(o.trackingId);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    assert.equal(done.payouts.reduce((s: bigint, p: any) => s + BigInt(p.amount), 0n), BigInt(q.amountOut));
    assert.equal((await t.rpc.getBalance(recipient, { commitment: 'confirmed' }).send()).value, BigInt(q.amountOut));
  });

  test('USDC order: TransferChecked of exactly amountIn with 6 decimals; simulates with a funded sender, fails without funds', async () => {
    const recipient = await address();
    const { q, o } = await quoteAndOrder(acct.client, sender.address, recipient, { amount: '12345678', sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_out' });
    assert.equal(o.sourceSymbol, 'USDC');
    assert.equal(o.amountOut, '12345678');
    const view = inspectDepositTransaction(o.transaction);
    const depositAccount = assertDepositShape(view, sender.address, recipient, { native: false, amount: BigInt(q.amountIn), mint: USDC_MINT, decimals: 6 });
    const [senderAta] = await findAssociatedTokenPda({ owner: sender.address, mint: USDC_MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    assert.equal(parseTransferCheckedInstruction(view.instructions[3] as never).accounts.source.address, senderAta);
    assert.notEqual(depositAccount, senderAta);
    const { wire } = await signDeposit(o.transaction, sender);
    const sim = await simulateWire(t, wire);
    assert.equal(sim.err, null, `simulation failed: ${JSON.stringify(sim.err)} ${sim.logs?.join('\n')}`);
    // Submitted, it is detected and delivered exactly: the recipient had no USDC account, Hush creates it
    // (its rent was part of networkFee) and the recipient holds exactly amountOut.
    await waitForStatus(t.rpc, await submitWire(t, wire), 'confirmed');
    const done = await untilFinal(o.trackingId);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const [recipientAta] = await findAssociatedTokenPda({ owner: recipient, mint: USDC_MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    assert.equal((await t.rpc.getTokenAccountBalance(recipientAta, { commitment: 'confirmed' }).send()).value.amount, '12345678');

    // The same order signed by a sender who holds no USDC cannot succeed.
    const poor = await fundedSender(t, { sol: 1_000_000_000n });
    const r2 = await quoteAndOrder(acct.client, poor.address, recipient, { amount: '2000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc' });
    const sim2 = await simulateWire(t, (await signDeposit(r2.o.transaction, poor)).wire);
    assert.notEqual(sim2.err, null, 'a sender without USDC cannot fund the deposit');
  });

});
