/**
 * Every endpoint of docs/spec.md §4 against a real, listening Hush (PGlite store, embedded chain), over HTTP:
 * tokens, quote (fee arithmetic, firmness, network fee), order (the unsigned transaction decoded,
 * simulated, submitted), refresh, status (ETag), deposit hint, and the operational routes.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairSigner, type Address, type Base64EncodedWireTransaction, type KeyPairSigner } from '@solana/kit';
import { COMPUTE_BUDGET_PROGRAM_ADDRESS, ComputeBudgetInstruction, identifyComputeBudgetInstruction } from '@solana-program/compute-budget';
import { SYSTEM_PROGRAM_ADDRESS, SystemInstruction, identifySystemInstruction, parseTransferSolInstruction } from '@solana-program/system';
import {
  ASSOCIATED_TOKEN_PROGRAM_ADDRESS,
  AssociatedTokenInstruction,
  TOKEN_PROGRAM_ADDRESS,
  TokenInstruction,
  findAssociatedTokenPda,
  getInitializeAccount3Instruction,
  identifyAssociatedTokenInstruction,
  identifyTokenInstruction,
  parseCreateAssociatedTokenInstruction,
  parseSyncNativeInstruction,
  parseTransferCheckedInstruction,
} from '@solana-program/token';
import { buildSignedTransaction, latestBlockhash, requestTokenAirdrop, waitForStatus } from '../support/localnet.ts';
import { getCreateAccountInstruction, getTransferSolInstruction } from '@solana-program/system';
import { assertDocumented } from '../support/openapi-conformance.ts';
import {
  PREFIX,
  USDC_MINT,
  address,
  expectError,
  expectOk,
  fundedSender,
  inspectDepositTransaction,
  orderRequest,
  quoteRequest,
  randomSignature,
  signDeposit,
  sleep,
  startTestHush,
  type DepositTxView,
  type TestAccount,
  type TestHush,
} from '../support/hush-server.ts';

const WSOL_MINT = 'So11111111111111111111111111111111111111112' as Address;
const BONK_MINT = 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263' as Address;
const MEMO_PROGRAMS = ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo'];
const AMOUNT = /^(0|[1-9][0-9]*)$/;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
const QUOTE_FIELDS = ['amountIn', 'amountOut', 'destinationAssetId', 'duration', 'expiresAt', 'fee', 'feeBreakdown', 'issuedAt', 'max', 'min', 'mode', 'networkFee', 'privacy', 'protocolFee', 'quoteId', 'sourceAssetId'];
const ORDER_FIELDS = ['amountIn', 'amountOut', 'blockhashExpiresAtSlot', 'destinationSymbol', 'eta', 'expiration', 'sourceSymbol', 'trackingId', 'transaction', 'transactionEncoding'];
const STATUS_FIELDS = ['amountIn', 'amountOut', 'createdAt', 'deposit', 'destinationAssetId', 'expiration', 'failureReason', 'final', 'history', 'payouts', 'privacy', 'refund', 'sourceAssetId', 'status', 'trackingId', 'updatedAt'];
const ORDER_TTL_S = 1800;
/** Where an order can be once its deposit is confirmed (the settlement worker runs alongside the API). */
const AFTER_DEPOSIT = ['deposit_confirmed', 'sending', 'completed'];

let t: TestHush;
let acct: TestAccount;
let serviceFeeBps: number;

before(async () => {
  // 200 ms slots: a blockhash lives ~30 s, long enough to hold an original and a refreshed transaction.
  t = await startTestHush({ env: { LOCALNET_SLOT_MS: '200', HUSH_ORDER_TTL_S: String(ORDER_TTL_S) } });
  acct = await t.createAccount({ feeRecipients: 2 });
  serviceFeeBps = t.hush.config.serviceFeeBps;
});
after(async () => {
  await t?.close();
});

/** docs/spec.md §4 fee arithmetic, checked on the wire. */
function assertQuoteArithmetic(q: any, req: { amount: string; mode?: string; feeBps?: number }) {
  assert.deepEqual(Object.keys(q).sort(), QUOTE_FIELDS);
  assert.deepEqual(Object.keys(q.feeBreakdown).sort(), ['networkFee', 'partnerFee', 'serviceFee']);
  for (const k of ['amountIn', 'amountOut', 'fee', 'protocolFee', 'networkFee', 'min', 'max']) assert.match(q[k], AMOUNT, k);
  for (const k of ['serviceFee', 'partnerFee', 'networkFee']) assert.match(q.feeBreakdown[k], AMOUNT, `feeBreakdown.${k}`);
  const n = (s: string) => BigInt(s);
  const [amountIn, amountOut, fee, protocolFee, networkFee] = [n(q.amountIn), n(q.amountOut), n(q.fee), n(q.protocolFee), n(q.networkFee)];
  const serviceFee = n(q.feeBreakdown.serviceFee);
  const partnerFee = n(q.feeBreakdown.partnerFee);
  const feeBps = BigInt(req.feeBps ?? 0);
  assert.equal(fee, protocolFee + networkFee, 'fee = protocolFee + networkFee');
  assert.equal(protocolFee, serviceFee + partnerFee, 'protocolFee = serviceFee + partnerFee');
  assert.equal(n(q.feeBreakdown.networkFee), networkFee, 'feeBreakdown repeats networkFee');
  assert.equal(partnerFee, (amountIn * feeBps) / 10_000n, 'partnerFee = floor(amountIn × feeBps / 10000)');
  assert.equal(serviceFee, (amountIn * BigInt(serviceFeeBps)) / 10_000n, 'serviceFee = floor(amountIn × serviceFeeBps / 10000)');
  assert.equal(amountIn, amountOut + fee, 'same asset: amountIn = amountOut + fee');
  assert.ok(networkFee > 0n, 'networkFee covers Hush transactions');
  assert.equal(q.mode, req.mode ?? 'exact_in');
  if ((req.mode ?? 'exact_in') === 'exact_in') {
    assert.equal(amountIn, n(req.amount));
  } else {
    assert.equal(amountOut, n(req.amount));
    // amountIn is the SMALLEST value that delivers `amount`: one base unit less delivers less.
    const x = amountIn - 1n;
    const out = x - (x * feeBps) / 10_000n - (x * BigInt(serviceFeeBps)) / 10_000n - networkFee;
    assert.ok(out < amountOut, `amountIn − 1 would still deliver ${out} ≥ ${amountOut}`);
  }
  assert.equal(Number.isInteger(q.duration), true);
  assert.ok(q.duration >= 0);
  assert.match(q.quoteId, /^\S+$/);
  assert.match(q.issuedAt, ISO_MS);
  assert.match(q.expiresAt, ISO_MS);
}

function assertDepositShape(view: DepositTxView, sender: Address, recipient: Address, opts: { native: boolean; amount: bigint; mint: Address; decimals: number }) {
  assert.equal(view.version, 0, 'a version-0 transaction');
  assert.deepEqual(view.signers, [sender], 'fee payer = sender, and the sender is the only signer');
  assert.deepEqual(view.signatureSlots, [sender], 'one signature slot, the sender’s');
  assert.ok(!view.staticAccounts.includes(recipient), 'the transaction does not name the recipient');
  for (const m of MEMO_PROGRAMS) assert.ok(!view.staticAccounts.includes(m as Address), 'no memo');
  const ixs = view.instructions;
  const programs = ixs.map((ix) => ix.programAddress);
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

async function quoteAndOrder(sender: Address, recipient: Address, extra: Record<string, unknown> = {}, client = acct.client) {
  const req = quoteRequest(sender, recipient, extra);
  const q = expectOk(await client.quote(req)).quote;
  const o = expectOk(await client.order(orderRequest(q, req as never))).order;
  return { req, q, o };
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

async function simulate(wire: string) {
  return (await t.rpc.simulateTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', commitment: 'processed', sigVerify: true }).send()).value;
}

async function submit(wire: string) {
  return t.rpc.sendTransaction(wire as Base64EncodedWireTransaction, { encoding: 'base64', preflightCommitment: 'processed' }).send();
}

describe('GET /tokens', () => {
  test('lists the assets with the docs/spec.md §4 fields; SOL is native with the wrapped-SOL mint', async () => {
    const res = await acct.client.tokens();
    const body = expectOk(res);
    assert.deepEqual(Object.keys(body).sort(), ['success', 'tokens']);
    assert.ok(Array.isArray(body.tokens) && body.tokens.length >= 4);
    const ids = body.tokens.map((x: any) => x.assetId);
    assert.equal(new Set(ids).size, ids.length, 'asset ids are unique');
    for (const id of ['sol', 'usdc', 'usdt']) assert.ok(ids.includes(id), id);
    for (const tok of body.tokens) {
      assert.deepEqual(Object.keys(tok).sort(), ['assetId', 'decimals', 'denominations', 'max', 'min', 'mint', 'name', 'native', 'swapGrid', 'swappable', 'symbol', 'tokenProgram']);
      // docs/spec.md §9: standard amounts, ascending within the configured bounds; the swap grid, a positive step.
      assert.ok(tok.denominations.length > 0, `${tok.assetId} has standard amounts`);
      tok.denominations.forEach((d: string, i: number) => {
        assert.match(d, AMOUNT);
        if (i > 0) assert.ok(BigInt(d) > BigInt(tok.denominations[i - 1]));
      });
      assert.match(tok.swapGrid, /^[1-9][0-9]*$/);
      assert.equal(typeof tok.symbol, 'string');
      assert.equal(typeof tok.name, 'string');
      assert.ok(Number.isInteger(tok.decimals));
      assert.equal(typeof tok.native, 'boolean');
      assert.equal(typeof tok.swappable, 'boolean');
      assert.match(tok.min, AMOUNT);
      assert.match(tok.max, AMOUNT);
      assert.ok(BigInt(tok.min) >= 1n && BigInt(tok.min) <= BigInt(tok.max));
    }
    const sol = body.tokens.find((x: any) => x.assetId === 'sol');
    assert.equal(sol.native, true);
    assert.equal(sol.mint, WSOL_MINT);
    assert.equal(sol.decimals, 9);
    assert.equal(body.tokens.filter((x: any) => x.native).length, 1, 'only SOL is native');
    const usdc = body.tokens.find((x: any) => x.assetId === 'usdc');
    assert.equal(usdc.mint, USDC_MINT);
    assert.equal(usdc.decimals, 6);
    for (const h of ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset']) assert.ok(res.headers.get(h) !== null, `${h} header`);
    // The IETF fields beside them, from the same bucket.
    const [limit, remaining, reset] = ['ratelimit-limit', 'ratelimit-remaining', 'ratelimit-reset'].map((h) => res.headers.get(h));
    assert.equal(res.headers.get('ratelimit-policy'), `"default";q=${limit};w=2`);
    assert.equal(res.headers.get('ratelimit'), `"default";r=${remaining};t=${reset}`);
  });
});

describe('POST /quote', () => {
  test('exact_in and exact_out, SOL and USDC, with and without a partner fee: docs/spec.md §4 arithmetic holds', async () => {
    const sender = await address();
    const recipient = await address();
    const tokens = expectOk(await acct.client.tokens()).tokens;
    const cases = [
      { sourceAssetId: 'sol', amount: '100000000' },
      { sourceAssetId: 'sol', amount: '100000000', mode: 'exact_out' },
      { sourceAssetId: 'sol', amount: '123456789', mode: 'exact_out', feeBps: 37, feeRecipientAddress: acct.feeRecipients[0] },
      { sourceAssetId: 'usdc', amount: '5000000' },
      { sourceAssetId: 'usdc', amount: '5000001', mode: 'exact_out' },
      { sourceAssetId: 'usdc', amount: '99999999', mode: 'exact_in', feeBps: 100, feeRecipientAddress: acct.feeRecipients[1] },
      { sourceAssetId: 'usdc', amount: '7777777', mode: 'exact_out', feeBps: 100, feeRecipientAddress: acct.feeRecipients[1] },
    ];
    for (const c of cases) {
      const req = { ...c, destinationAssetId: c.sourceAssetId, senderAddress: sender, recipientAddress: recipient };
      const q = expectOk(await acct.client.quote(req)).quote;
      assertQuoteArithmetic(q, req);
      assert.equal(q.sourceAssetId, c.sourceAssetId);
      assert.equal(q.destinationAssetId, c.sourceAssetId);
      const tok = tokens.find((x: any) => x.assetId === c.sourceAssetId);
      assert.equal(q.min, tok.min, 'quote min = live bound of GET /tokens');
      assert.equal(q.max, tok.max, 'quote max = live bound of GET /tokens');
    }
  });

  test('the quote lives exactly HUSH_QUOTE_TTL_S (default 60 s) and is issued now', async () => {
    const before = Date.now();
    const q = expectOk(await acct.client.quote(quoteRequest(await address(), await address()))).quote;
    const issued = Date.parse(q.issuedAt);
    assert.equal(Date.parse(q.expiresAt) - issued, t.hush.config.quoteTtlS * 1000);
    assert.equal(t.hush.config.quoteTtlS, 60);
    assert.ok(issued >= before - 5 && issued <= Date.now() + 5);
  });

  test('a sender may also be the recipient; the quote is firm (the order repeats its amounts exactly)', async () => {
    const me = await address();
    const { q, o } = await quoteAndOrder(me, me, { amount: '250000000', mode: 'exact_out' });
    assert.equal(o.amountIn, q.amountIn);
    assert.equal(o.amountOut, q.amountOut);
    assert.equal(o.amountOut, '250000000');
  });

  test('networkFee is one flat figure: the same for a recipient with a token account and one without (docs/spec.md §4, §9)', async () => {
    const sender = await address();
    const without = await address();
    const withAta = await address();
    // The faucet creates withAta's USDC associated token account.
    await waitForStatus(t.rpc, await requestTokenAirdrop(t.chainUrl, withAta, USDC_MINT, 1n), 'confirmed');
    const feeOf = async (recipient: Address, assetId = 'usdc', amount = '10000000') =>
      BigInt(expectOk(await acct.client.quote({ amount, sourceAssetId: assetId, destinationAssetId: assetId, senderAddress: sender, recipientAddress: recipient })).quote.networkFee);
    const missing = await feeOf(without);
    assert.equal(await feeOf(withAta), missing, 'a fee that depended on the recipient would tell recipients apart on the chain');
    // It prices the expected share (70 % by default) of a token account's rent (2,039,280 lamports ≈ 0.306 USDC):
    // well above a bare payout's fees, below a whole rent.
    assert.ok(missing > 150_000n && missing < 306_000n, `flat networkFee ${missing} in USDC base units`);
    assert.equal(await feeOf(without, 'usdc', '20000000'), missing, 'nor does it depend on the amount');
    // SOL payouts are system transfers: no token account, no rent, same fee for both recipients.
    assert.equal(await feeOf(without, 'sol', '100000000'), await feeOf(withAta, 'sol', '100000000'));
  });
});

describe('POST /order, the deposit transaction, refresh, status and the deposit hint', () => {
  let sender: KeyPairSigner;
  before(async () => {
    sender = await fundedSender(t, { sol: 5n * 1_000_000_000n, usdc: 50_000_000n });
  });

  test('SOL order: v0, sender pays and signs alone, create + transfer + SyncNative of exactly amountIn; simulates and lands once', async () => {
    const recipient = await address();
    const { q, o } = await quoteAndOrder(sender.address, recipient, { amount: '200000000' });
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

    // expiration = createdAt + HUSH_ORDER_TTL_S.
    const st = expectOk(await acct.client.status(o.trackingId)).order;
    assert.equal(Date.parse(o.expiration) - Date.parse(st.createdAt), ORDER_TTL_S * 1000);
    assert.equal(st.expiration, o.expiration);

    // An unsigned transaction does not verify; signed by the sender alone it simulates cleanly.
    const { wire, signature } = await signDeposit(o.transaction, sender);
    const sim = await simulate(wire);
    assert.equal(sim.err, null, `simulation failed: ${JSON.stringify(sim.err)} ${sim.logs?.join('\n')}`);

    // Submit: it lands and funds the deposit account with exactly amountIn; a second submission fails.
    const sig = await submit(wire);
    assert.equal(sig, signature);
    await waitForStatus(t.rpc, sig, 'confirmed');
    const bal = await t.rpc.getTokenAccountBalance(depositAccount, { commitment: 'confirmed' }).send();
    assert.equal(bal.value.amount, q.amountIn);
    await assert.rejects(submit(wire), 'the same transaction cannot land twice');

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
    const other = await quoteAndOrder(sender.address, recipient, { amount: '200000000' });
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
    const { q, o } = await quoteAndOrder(sender.address, recipient, { amount: '12345678', sourceAssetId: 'usdc', destinationAssetId: 'usdc', mode: 'exact_out' });
    assert.equal(o.sourceSymbol, 'USDC');
    assert.equal(o.amountOut, '12345678');
    const view = inspectDepositTransaction(o.transaction);
    const depositAccount = assertDepositShape(view, sender.address, recipient, { native: false, amount: BigInt(q.amountIn), mint: USDC_MINT, decimals: 6 });
    const [senderAta] = await findAssociatedTokenPda({ owner: sender.address, mint: USDC_MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    assert.equal(parseTransferCheckedInstruction(view.instructions[3] as never).accounts.source.address, senderAta);
    assert.notEqual(depositAccount, senderAta);
    const { wire } = await signDeposit(o.transaction, sender);
    const sim = await simulate(wire);
    assert.equal(sim.err, null, `simulation failed: ${JSON.stringify(sim.err)} ${sim.logs?.join('\n')}`);
    // Submitted, it is detected and delivered exactly: the recipient had no USDC account, Hush creates it
    // (its rent was part of networkFee) and the recipient holds exactly amountOut.
    await waitForStatus(t.rpc, await submit(wire), 'confirmed');
    const done = await untilFinal(o.trackingId);
    assert.equal(done.status, 'completed', JSON.stringify(done));
    const [recipientAta] = await findAssociatedTokenPda({ owner: recipient, mint: USDC_MINT, tokenProgram: TOKEN_PROGRAM_ADDRESS });
    assert.equal((await t.rpc.getTokenAccountBalance(recipientAta, { commitment: 'confirmed' }).send()).value.amount, '12345678');

    // The same order signed by a sender who holds no USDC cannot succeed.
    const poor = await fundedSender(t, { sol: 1_000_000_000n });
    const r2 = await quoteAndOrder(poor.address, recipient, { amount: '2000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc' });
    const sim2 = await simulate((await signDeposit(r2.o.transaction, poor)).wire);
    assert.notEqual(sim2.err, null, 'a sender without USDC cannot fund the deposit');
  });

  test('refresh: new transaction and blockhashExpiresAtSlot, same order; original and refreshed — only one can land', async () => {
    const recipient = await address();
    const a = await quoteAndOrder(sender.address, recipient, { amount: '50000000' });
    const b = await quoteAndOrder(sender.address, recipient, { amount: '3000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc' });
    // Hush hands out a cached blockhash refreshed every few seconds: poll until the refresh carries a newer one.
    const refreshed: Record<string, any> = {};
    const deadline = Date.now() + 15_000;
    for (const { o } of [a, b]) {
      const statusBefore = await acct.client.status(o.trackingId);
      for (;;) {
        const r = expectOk(await acct.client.refresh(o.trackingId)).order;
        assert.deepEqual(Object.keys(r).sort(), ORDER_FIELDS);
        for (const k of ['trackingId', 'amountIn', 'amountOut', 'sourceSymbol', 'destinationSymbol', 'eta', 'expiration', 'transactionEncoding']) {
          assert.deepEqual(r[k], o[k], `refresh keeps ${k}`);
        }
        if (r.transaction !== o.transaction) {
          refreshed[o.trackingId] = r;
          break;
        }
        assert.ok(Date.now() < deadline, 'refresh never produced a new transaction');
        await sleep(500);
      }
      const r = refreshed[o.trackingId];
      assert.ok(r.blockhashExpiresAtSlot > o.blockhashExpiresAtSlot, 'a later blockhash expiry');
      // Nothing in the status record changed, so a poller is not told it did (updatedAt, ETag).
      const statusAfter = await acct.client.status(o.trackingId, { headers: { 'if-none-match': statusBefore.headers.get('etag')! } });
      assert.equal(statusAfter.status, 304, 'a refresh is no change of the status record');
      const before = inspectDepositTransaction(o.transaction);
      const after = inspectDepositTransaction(r.transaction);
      assert.notEqual(after.blockhash, before.blockhash);
      // Same deposit account, same instructions apart from the lifetime.
      assert.deepEqual(after.staticAccounts.sort(), before.staticAccounts.sort());
      assert.deepEqual(after.instructions.map((ix) => Buffer.from(ix.data ?? []).toString('hex')), before.instructions.map((ix) => Buffer.from(ix.data ?? []).toString('hex')));
    }
    // Order a: the refreshed transaction lands first; the original then fails.
    const aNew = await signDeposit(refreshed[a.o.trackingId].transaction, sender);
    const aOld = await signDeposit(a.o.transaction, sender);
    assert.equal((await simulate(aOld.wire)).err, null, 'the original is still valid before either lands');
    await waitForStatus(t.rpc, await submit(aNew.wire), 'confirmed');
    await assert.rejects(submit(aOld.wire), 'after the refreshed transaction landed, the original must fail');
    // Order b: the original lands first; the refreshed one then fails.
    const bNew = await signDeposit(refreshed[b.o.trackingId].transaction, sender);
    const bOld = await signDeposit(b.o.transaction, sender);
    await waitForStatus(t.rpc, await submit(bOld.wire), 'confirmed');
    await assert.rejects(submit(bNew.wire), 'after the original landed, the refreshed transaction must fail');
    // Whichever landed is this order's deposit.
    expectOk(await acct.client.deposit({ trackingId: a.o.trackingId, signature: aNew.signature }), 200);
    expectOk(await acct.client.deposit({ trackingId: b.o.trackingId, signature: bOld.signature }), 200);
  });

  test('GET /status: the docs/spec.md §4 record, ETag + If-None-Match → 304, side-effect free, other accounts get 404', async () => {
    const { q, o } = await quoteAndOrder(sender.address, await address(), { amount: '30000000' });
    const r1 = await acct.client.status(o.trackingId);
    const s = expectOk(r1).order;
    assert.deepEqual(Object.keys(r1.body).sort(), ['order', 'success']);
    assert.deepEqual(Object.keys(s).sort(), STATUS_FIELDS);
    assert.equal(s.trackingId, o.trackingId);
    assert.equal(s.status, 'awaiting_deposit');
    assert.equal(s.final, false);
    assert.equal(s.sourceAssetId, 'sol');
    assert.equal(s.destinationAssetId, 'sol');
    assert.equal(s.amountIn, q.amountIn);
    assert.equal(s.amountOut, q.amountOut);
    assert.equal(s.deposit, null);
    assert.deepEqual(s.payouts, []);
    assert.equal(s.refund, null);
    assert.equal(s.failureReason, null);
    for (const k of ['createdAt', 'updatedAt', 'expiration']) assert.match(s[k], ISO_MS, k);
    assert.deepEqual(s.history, [{ status: 'awaiting_deposit', at: s.createdAt }]);
    assert.deepEqual(s.privacy, { standard: q.privacy.standard, releaseBy: null, releasedWith: null, heldSeconds: null }, 'nothing held before a deposit');

    const etag = r1.headers.get('etag');
    assert.ok(etag && /^"[^"]+"$/.test(etag), `strong ETag, got ${etag}`);
    const r304 = await acct.client.status(o.trackingId, { headers: { 'if-none-match': etag } });
    assert.equal(r304.status, 304);
    assert.equal(r304.text, '');
    assert.equal(r304.headers.get('etag'), etag);
    assert.equal((await acct.client.status(o.trackingId, { headers: { 'if-none-match': `"nope", W/${etag}` } })).status, 304, 'weak and listed tags match');
    assert.equal((await acct.client.status(o.trackingId, { headers: { 'if-none-match': '*' } })).status, 304, '* matches the current record (RFC 9110)');
    const r200 = await acct.client.status(o.trackingId, { headers: { 'if-none-match': '"something-else"' } });
    assert.equal(r200.status, 200);

    // Side-effect free: polling changes nothing, in the body or in the store.
    const row = async () => (await t.db.query<{ updated_at: Date; n: number }>('SELECT o.updated_at, (SELECT count(*)::int FROM order_history h WHERE h.order_id = o.id) AS n FROM orders o WHERE tracking_id = $1', [o.trackingId])).rows[0]!;
    const before = await row();
    for (let i = 0; i < 3; i++) assert.deepEqual(expectOk(await acct.client.status(o.trackingId)).order, s);
    assert.deepEqual(await row(), before);
    assert.equal((await acct.client.status(o.trackingId)).headers.get('etag'), etag, 'same state, same ETag');

    // A new state is a new ETag: the deposit hint moves the order.
    const { wire, signature } = await signDeposit(o.transaction, sender);
    await waitForStatus(t.rpc, await submit(wire), 'confirmed');
    expectOk(await acct.client.deposit({ trackingId: o.trackingId, signature }));
    const moved = await acct.client.status(o.trackingId, { headers: { 'if-none-match': etag } });
    assert.equal(moved.status, 200);
    assert.notEqual(moved.headers.get('etag'), etag);
    assert.ok(AFTER_DEPOSIT.includes(moved.body.order.status));

    // Another account sees nothing: 404 NOT_FOUND, exactly as for a trackingId that does not exist.
    const other = await t.createAccount();
    const e1 = expectError(await other.client.status(o.trackingId), 404, 'NOT_FOUND');
    const e2 = expectError(await other.client.status('trk_1111111111111111111111'), 404, 'NOT_FOUND');
    assert.equal(e1.message, e2.message);
    expectError(await other.client.refresh(o.trackingId), 404, 'NOT_FOUND');
    expectError(await other.client.deposit({ trackingId: o.trackingId, signature }), 404, 'NOT_FOUND');
    // A trackingId of any length that names no order of this account is the same 404.
    expectError(await other.client.deposit({ trackingId: `trk_${'1'.repeat(200)}`, signature }), 404, 'NOT_FOUND');
  });

  test('POST /deposit: 202 for an unseen signature, 409 for a transaction that did not fund the deposit, 400 for garbage', async () => {
    const { o } = await quoteAndOrder(sender.address, await address(), { amount: '40000000' });
    const unseen = randomSignature();
    const r202 = await acct.client.deposit({ trackingId: o.trackingId, signature: unseen });
    const body = expectOk(r202, 202);
    assert.deepEqual(Object.keys(body.order).sort(), STATUS_FIELDS, '202 carries the status record');
    assert.equal(body.order.status, 'awaiting_deposit');
    assert.equal(body.order.trackingId, o.trackingId);
    const hints = await t.db.query('SELECT signature FROM deposit_hints h JOIN orders o ON o.id = h.order_id WHERE o.tracking_id = $1', [o.trackingId]);
    assert.deepEqual(hints.rows.map((r: any) => r.signature), [unseen], 'the unseen signature is kept for watching');
    expectOk(await acct.client.deposit({ trackingId: o.trackingId, signature: unseen }), 202);

    // A real transaction that moved money elsewhere (a faucet airdrop): DEPOSIT_MISMATCH.
    const foreign = await requestTokenAirdrop(t.chainUrl, await address(), USDC_MINT, 5n);
    await waitForStatus(t.rpc, foreign, 'confirmed');
    const e = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: foreign }), 409, 'DEPOSIT_MISMATCH');
    assert.equal(e.details?.reason, 'not_this_deposit');
    assert.equal(expectOk(await acct.client.status(o.trackingId)).order.status, 'awaiting_deposit', 'a mismatching hint moves nothing');

    // Another token sent to the deposit owner (a token account of its own for another mint): no sweep
    // looks there, so the hint says so instead of a plain mismatch (and the operator is alerted).
    const create = inspectDepositTransaction(o.transaction).instructions.find((ix) => ix.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS)!;
    const depositOwner = create.accounts![2]!.address; // CreateAssociatedToken: payer, ata, owner, mint, …
    const otherMint = o.sourceSymbol === 'USDC' ? BONK_MINT : USDC_MINT;
    const wrong = await requestTokenAirdrop(t.chainUrl, depositOwner, otherMint, 7n);
    await waitForStatus(t.rpc, wrong, 'confirmed');
    const w = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: wrong }), 409, 'DEPOSIT_MISMATCH');
    assert.deepEqual(w.details, { reason: 'wrong_asset', mint: otherMint });
    // SOL to the owner's own address (not to its wrapped-SOL deposit account) is stray too.
    const lamportsSig = await t.rpc.requestAirdrop(depositOwner, 1_000_000n as never).send();
    await waitForStatus(t.rpc, lamportsSig, 'confirmed');
    const n = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: lamportsSig }), 409, 'DEPOSIT_MISMATCH');
    assert.deepEqual(n.details, { reason: 'wrong_asset', mint: 'native' });
    // The deposit's own mint in a second token account of the owner (not the deposit account): wrong_account.
    const second = await generateKeyPairSigner();
    const { wire: secondWire, signature: secondSig } = await buildSignedTransaction(
      sender,
      [
        getCreateAccountInstruction({ payer: sender, newAccount: second, lamports: 2_039_280n + 5_000_000n, space: 165, programAddress: TOKEN_PROGRAM_ADDRESS }),
        getInitializeAccount3Instruction({ account: second.address, mint: WSOL_MINT, owner: depositOwner }),
      ],
      await latestBlockhash(t.rpc),
    );
    await t.rpc.sendTransaction(secondWire, { encoding: 'base64' }).send();
    await waitForStatus(t.rpc, secondSig, 'confirmed');
    const a = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: secondSig }), 409, 'DEPOSIT_MISMATCH');
    assert.equal(o.sourceSymbol, 'SOL');
    assert.deepEqual(a.details, { reason: 'wrong_account', mint: WSOL_MINT });
    // SOL sent to the deposit address itself before its wrapped-SOL account exists: no deposit (it was
    // once recorded as a deposit of 0, the order failed and the SOL stayed there).
    const { wire: bareWire, signature: bareSig } = await buildSignedTransaction(
      sender,
      [getTransferSolInstruction({ source: sender, destination: create.accounts![1]!.address, amount: 3_000_000n })],
      await latestBlockhash(t.rpc),
    );
    await t.rpc.sendTransaction(bareWire, { encoding: 'base64' }).send();
    await waitForStatus(t.rpc, bareSig, 'confirmed');
    const bare = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: bareSig }), 409, 'DEPOSIT_MISMATCH');
    assert.deepEqual(bare.details, { reason: 'no_deposit_account' });
    assert.equal(expectOk(await acct.client.status(o.trackingId)).order.status, 'awaiting_deposit', 'nor does a wrong-asset one');

    for (const garbage of ['garbage', '', '1'.repeat(129), '0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl0OIl', unseen.slice(0, 40), `${unseen}zzz`]) {
      const g = expectError(await acct.client.deposit({ trackingId: o.trackingId, signature: garbage }), 400, 'INVALID_SIGNATURE');
      assert.equal(g.details?.field, 'signature');
    }
  });
});

describe('operational routes (no auth, on the ops listener)', () => {
  test('GET /healthz and /readyz', async () => {
    const h = await t.ops.get('/healthz');
    assert.equal(h.status, 200);
    assert.equal(h.body.status, 'ok');
    const r = await t.ops.get('/readyz');
    assert.equal(r.status, 200);
    assert.deepEqual({ store: r.body.store, chain: r.body.chain }, { store: 'ok', chain: 'ok' });
  });

  test('GET /metrics is Prometheus text with request durations and orders by status', async () => {
    await acct.client.tokens();
    assert.equal((await t.anon.get('/transfer/v1/tokens')).status, 401);
    const m = await t.ops.get('/metrics');
    assert.equal(m.status, 200);
    assert.match(m.headers.get('content-type') ?? '', /^text\/plain/);
    assert.match(m.text, /^# TYPE hush_http_request_duration_seconds histogram$/m);
    assert.match(m.text, /^hush_http_request_duration_seconds_count\{[^}]*route="\/transfer\/v1\/tokens"[^}]*\} [1-9]\d*$/m);
    // The status label is the response's final status, refusals included.
    assert.match(m.text, /^hush_http_request_duration_seconds_count\{(?=[^}]*route="\/transfer\/v1\/tokens")(?=[^}]*status="401")[^}]*\} [1-9]\d*$/m);
    assert.match(m.text, /^# TYPE hush_orders gauge$/m);
    // One gauge per docs/spec.md §5 status; together they count every order (none is being created meanwhile).
    const { rows } = await t.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders`);
    let total = 0;
    for (const st of ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'swapping', 'sending', 'completed', 'expired', 'refunding', 'refunded', 'failed']) {
      const line = new RegExp(`^hush_orders\\{status="${st}"\\} (\\d+)$`, 'm').exec(m.text);
      assert.ok(line, `hush_orders{status="${st}"}`);
      total += Number(line[1]);
    }
    assert.ok(rows[0]!.n > 0);
    assert.equal(total, rows[0]!.n);
  });

  test('GET /transfer/v1/openapi.json lists every partner path; GET /docs renders HTML', async () => {
    const o = await t.anon.get(`${PREFIX}/openapi.json`);
    assert.equal(o.status, 200);
    assert.match(String(o.body.openapi), /^3\./);
    const paths = Object.keys(o.body.paths);
    for (const p of [`${PREFIX}/tokens`, `${PREFIX}/quote`, `${PREFIX}/order`, `${PREFIX}/order/{trackingId}/refresh`, `${PREFIX}/status/{trackingId}`, `${PREFIX}/deposit`]) {
      assert.ok(paths.includes(p), `openapi lists ${p}; has ${paths.join(', ')}`);
    }
    assert.ok(!paths.some((p) => p.startsWith('/admin')), 'the admin API is not advertised');
    // Partners are served the rules themselves, never a reference into a document they cannot read.
    assert.doesNotMatch(JSON.stringify(o.body), /SPEC §|spec\.md/, 'the OpenAPI document cites no spec section');
    assert.ok(o.body.paths[`${PREFIX}/order`].post, 'POST /order documented');
    // Every status with its headers; errors name their codes (HushClient holds every test's answers to this).
    const ops = Object.values<Record<string, any>>(o.body.paths).flatMap((p) => Object.entries<any>(p));
    for (const [method, op] of ops) {
      for (const [status, r] of Object.entries<any>(op.responses)) {
        for (const h of ['X-Request-Id', 'RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']) assert.ok(r.headers?.[h], `${op.summary} ${status}: ${h}`);
        if (['429', '503'].includes(status)) assert.ok(r.headers['Retry-After'], `${op.summary} ${status}: Retry-After`);
        if (Number(status) >= 400) assert.ok(r.content['application/json'].schema.properties.error.properties.code.enum.length > 0, `${op.summary} ${status}: codes`);
      }
      if (method === 'post') for (const s of ['400', '413', '415']) assert.ok(op.responses[s], `${op.summary}: ${s}`);
    }
    const status = o.body.paths[`${PREFIX}/status/{trackingId}`].get.responses;
    assert.equal(status['304'].content, undefined, '304 has no body');
    assert.ok(status['304'].headers.ETag && status['200'].headers.ETag);
    assert.deepEqual(o.body.paths[`${PREFIX}/order`].post.responses['409'].content['application/json'].schema.properties.error.properties.code.enum, [
      'QUOTE_MISMATCH', 'QUOTE_ALREADY_USED', 'IDEMPOTENCY_CONFLICT', 'ORDER_IN_PROGRESS',
    ]);
    assert.ok(o.body.paths[`${PREFIX}/order`].post.responses['200'].headers['Idempotent-Replayed']);
    // The conformance check itself refuses what the document does not promise.
    await assert.rejects(assertDocumented(t.url, 'GET', `${PREFIX}/tokens`, 404, { error: { code: 'NOT_FOUND' } }), /status not in the OpenAPI document/);
    const notFound = (code: string) => ({ success: false, error: { code, message: 'x', requestId: 'r' } });
    await assertDocumented(t.url, 'GET', `${PREFIX}/status/trk_x`, 404, notFound('NOT_FOUND'));
    await assert.rejects(assertDocumented(t.url, 'GET', `${PREFIX}/status/trk_x`, 404, notFound('QUOTE_NOT_FOUND')), /error\/code must be equal to one of the allowed values/);
    const tokens = expectOk(await acct.client.tokens());
    await assert.rejects(assertDocumented(t.url, 'GET', `${PREFIX}/tokens`, 200, { ...tokens, tokens: [{ ...tokens.tokens[0], decimals: '6' }] }), /does not match the documented schema/);
    const d = await t.anon.get('/docs');
    assert.equal(d.status, 200);
    assert.match(d.headers.get('content-type') ?? '', /^text\/html/);
    assert.match(d.text, /<html/i);
  });
});
