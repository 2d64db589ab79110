/**
 * Settlement end to end on a simulated Hush (test/support/sim-hush.ts: the real composition — API by inject,
 * settlement worker, class release, PGlite, the local chain — on a clock that runs only as the test waits), no
 * mocks, with senders that sign their own deposit. SOL, USDC and BONK (5 decimals); exact_in and exact_out;
 * with and without the deposit hint; a recipient with and without a token account; original and refreshed
 * transaction both submitted. For every order: the recipient receives exactly amountOut, the sender is debited
 * exactly amountIn (+ its own fee and the deposit account rent), the history lists every transition, the payout
 * leaves from a pool (never the sender's or the deposit's accounts) no sooner than two slots after the deposit,
 * and the store holds exactly one confirmed payout per part. Then: every Hush transaction has the same shape and
 * the ledger reconciles with the chain.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import { assertPayoutUnlinked, ata, cleanReconcile, holding, startSettlementSim, type SimChain } from '../support/sim-settlement.ts';
import {
  ASSETS, ISO_MS, SOL, assertHistory, assertHushShape, assertPaidOnce, depositOf, jsonish, lamportDelta,
  lamportsIn, placeOrder, type AssetId, type HushBudget, type LandedTx, type PlacedOrder,
} from '../support/settlement.ts';

/** A release's spread on this server (standard amounts only; every amount below is off the menu). */
const MIN_DELAY_S = 1;
/**
 * Every amount here is off the menu: its payout is due two slots after the deposit's confirmation, the floor of
 * docs/spec.md §9 (never the deposit's slot or the next). The simulated chain's slots are mainnet's.
 */
const SLOT_MS = 400;
const FLOOR_MS = 2 * SLOT_MS;
let h: SimHush;
let acct: SimAccount;
let cs: SimChain;
let feePayer: string;
let budget: HushBudget;
let ataRent: bigint;
const settled: { placed: PlacedOrder; record: any }[] = [];

before(async () => {
  ({ h, acct, cs, feePayer, budget, ataRent } = await startSettlementSim(41, { HUSH_PAYOUT_DELAY_S: `${MIN_DELAY_S}-${MIN_DELAY_S}` }));
});
after(() => closeSim(h));

interface Scenario {
  asset: AssetId;
  mode: 'exact_in' | 'exact_out';
  amount: bigint;
  hint: boolean;
  /** The recipient already holds a token account of the asset (SPL only). */
  recipientHasAccount?: boolean;
}

/** Checks shared by every completed order; returns the payout transactions. */
async function assertCompleted(
  placed: PlacedOrder,
  rec: any,
  ctx: { sender: SimWallet; recipient: Address; recipientBefore: bigint; depositSignature: string; prefundSignatures: string[] },
): Promise<LandedTx[]> {
  const asset = ASSETS[placed.req.sourceAssetId];
  assert.equal(rec.status, 'completed');
  assert.equal(rec.final, true);
  assert.equal(rec.amountIn, placed.amountIn.toString());
  assert.equal(rec.amountOut, placed.amountOut.toString());
  assert.equal(rec.refund, null);
  assert.equal(rec.failureReason, null);
  assertHistory(rec, ['awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'sending', 'completed']);
  assert.equal(rec.deposit.signature, ctx.depositSignature, 'the deposit record names the transaction that landed');
  assert.equal(rec.deposit.amount, placed.amountIn.toString());
  assert.match(rec.deposit.confirmedAt, ISO_MS);
  assert.ok(rec.payouts.length >= 1);
  assert.equal(rec.payouts.reduce((s: bigint, p: any) => s + BigInt(p.amount), 0n), placed.amountOut, 'payouts add up to amountOut');

  // The recipient holds exactly amountOut more than before.
  const after = (await cs.balance(ctx.recipient, asset)) ?? 0n;
  assert.equal(after - ctx.recipientBefore, placed.amountOut, `${placed.trackingId}: recipient receives exactly amountOut`);

  // Exactly once, in the store and on chain: one confirmed payout per part, and the recipient's holding
  // was credited by exactly those transactions.
  const rows = await h.drive(assertPaidOnce(h.db, placed.trackingId, 'payout', placed.amountOut));
  assert.deepEqual(rows.map((r) => r.signature).sort(), rec.payouts.map((p: any) => p.signature).sort(), 'status payouts = confirmed payout rows');
  const held = holding(ctx.recipient, placed.req.destinationAssetId);
  const credited = (await cs.signatures(held)).filter((s) => !ctx.prefundSignatures.includes(s));
  assert.deepEqual(credited.sort(), rows.map((r) => r.signature).sort(), `${placed.trackingId}: only the payout transactions touched the recipient`);

  const txs: LandedTx[] = [];
  for (const p of rec.payouts) {
    assert.match(p.confirmedAt, ISO_MS);
    // docs/spec.md §9: a payout off the menu waits the floor of two slots after the deposit is confirmed.
    assert.equal(rec.privacy.standard, false, `${placed.trackingId}: an amount off the menu`);
    const waited = Date.parse(p.confirmedAt) - Date.parse(rec.deposit.confirmedAt);
    assert.ok(waited >= FLOOR_MS, `${placed.trackingId}: payout confirmed ${waited} ms after the deposit; the floor is two slots (${FLOOR_MS} ms)`);
    const tx = await cs.landed(p.signature);
    assert.equal(tx.err, null);
    assertHushShape(tx, feePayer, budget);
    assertPayoutUnlinked(tx, placed, ctx.sender.address);
    // The transfer credits the recipient with the part's amount.
    if (asset.native) assert.equal(lamportDelta(tx, ctx.recipient), BigInt(p.amount));
    else {
      const i = tx.accountKeys.indexOf(held);
      const bal = (l: LandedTx['postTokenBalances']) => BigInt(l.find((b) => b.accountIndex === i)?.uiTokenAmount.amount ?? '0');
      assert.equal(bal(tx.postTokenBalances) - bal(tx.preTokenBalances), BigInt(p.amount));
    }
    txs.push(tx);
  }
  return txs;
}

/** The sender paid exactly amountIn, its own transaction fees and the deposit account rent; nothing else moved. */
async function assertSenderDebit(placed: PlacedOrder, sender: SimWallet, before: { lamports: bigint; tokens: bigint | null }, landed: LandedTx[]) {
  const asset = ASSETS[placed.req.sourceAssetId];
  const fees = landed.reduce((s, x) => s + x.fee, 0n);
  const ok = landed.filter((x) => x.err === null);
  assert.equal(ok.length, 1, 'exactly one deposit transaction succeeded');
  // The deposit account's rent, from the transaction's own meta: what the deposit account holds beyond the deposit.
  const rent = lamportDelta(ok[0]!, placed.depositAccount) - (asset.native ? placed.amountIn : 0n);
  assert.equal(rent, ataRent, 'the deposit account is a rent-exempt token account paid by the sender');
  const lamports = await cs.lamports(sender.address);
  if (asset.native) {
    assert.equal(before.lamports - lamports, placed.amountIn + fees + rent, 'SOL sender debited amountIn + own fees + deposit rent');
  } else {
    assert.equal(before.lamports - lamports, fees + rent, 'SPL sender pays only its own fees and the deposit rent in SOL');
    assert.equal(before.tokens! - (await cs.balance(sender.address, asset))!, placed.amountIn, 'SPL sender debited exactly amountIn');
  }
}

async function runScenario(s: Scenario) {
  const asset = ASSETS[s.asset];
  const sender = await cs.fundSender(s.asset, s.amount + 10n ** BigInt(asset.decimals));
  const recipient = h.address();
  const prefundSignatures: string[] = [];
  if (s.recipientHasAccount) {
    const sig = await h.drive(h.chain.tokenAirdrop(recipient, asset.mint, 12_345n));
    await cs.succeeded([sig]);
    prefundSignatures.push(sig);
  }
  const recipientBefore = (await cs.balance(recipient, asset)) ?? 0n;
  const placed = await placeOrder(acct.client, {
    amount: s.amount.toString(),
    sourceAssetId: s.asset,
    destinationAssetId: s.asset,
    senderAddress: sender.address as Address,
    recipientAddress: recipient,
    mode: s.mode,
  });
  if (s.mode === 'exact_in') assert.equal(placed.amountIn, s.amount);
  else assert.equal(placed.amountOut, s.amount);
  const before = { lamports: await cs.lamports(sender.address), tokens: asset.native ? null : await cs.balance(sender.address, asset) };

  const depositSignature = await cs.send(sender.signWire(placed.order.transaction).wire);
  if (s.hint) {
    // The partner hints right away: 202 while the transaction is not yet visible at `confirmed`, then 200.
    const body = await h.until('the deposit hint to be accepted', async () => {
      const res = await acct.client.deposit({ trackingId: placed.trackingId, signature: depositSignature });
      return res.status === 202 ? null : expectOk(res, 200);
    }, 30_000, 100);
    assert.ok(['deposit_confirmed', 'sending', 'completed'].includes(body.order.status), `after the hint the deposit is confirmed, got ${body.order.status}`);
    assert.equal(body.order.deposit.signature, depositSignature);
    // Safe to retry.
    expectOk(await acct.client.deposit({ trackingId: placed.trackingId, signature: depositSignature }), 200);
  } else {
    await cs.succeeded([depositSignature]);
  }
  const rec = await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
  const payoutTxs = await assertCompleted(placed, rec, { sender, recipient, recipientBefore, depositSignature, prefundSignatures });
  await assertSenderDebit(placed, sender, before, [await cs.landed(depositSignature)]);
  settled.push({ placed, record: rec });
  return { placed, rec, payoutTxs, recipient };
}

// The scenarios run side by side on the one simulated clock, as they would beside each other on a live Hush.
describe('settlement end to end over the API and the local chain', { concurrency: true }, () => {
  test('SOL exact_in, no hint: the worker finds the deposit on chain', async () => {
    const { placed, payoutTxs } = await runScenario({ asset: 'sol', mode: 'exact_in', amount: 250_000_000n, hint: false });
    // The network fee covers what Hush pays for the payout.
    assert.ok(payoutTxs.reduce((s, x) => s + x.fee, 0n) <= placed.networkFee);
  });

  test('SOL exact_out with the deposit hint', async () => {
    await runScenario({ asset: 'sol', mode: 'exact_out', amount: 120_000_000n, hint: true });
  });

  test('USDC exact_in to a recipient without a token account: Hush creates it and pays its rent, which the flat quote priced in part', async () => {
    const { placed, payoutTxs, recipient } = await runScenario({ asset: 'usdc', mode: 'exact_in', amount: 25_000_000n, hint: false });
    // The recipient now owns a token account it never paid for (it holds no SOL at all).
    assert.equal(await cs.lamports(recipient), 0n, 'the recipient paid nothing');
    const account = ata(recipient, ASSETS.usdc.mint);
    const creator = payoutTxs.find((x) => lamportDelta(x, account) === ataRent);
    assert.ok(creator, 'a payout transaction created the recipient token account');
    assert.equal(lamportDelta(creator, feePayer), -(creator.fee + ataRent), 'the treasury fee payer paid the fee and the rent');
    // The same quote for a recipient that already has the account: the same flat networkFee (docs/spec.md §9), which
    // prices the expected share of the rent, so this order cost Hush more than it charged (the ledger shows it).
    const other = h.address();
    await cs.succeeded([await h.drive(h.chain.tokenAirdrop(other, ASSETS.usdc.mint, 1n))]);
    const q2 = expectOk(await acct.client.quote({ ...placed.req, recipientAddress: other })).quote;
    assert.equal(BigInt(q2.networkFee), placed.networkFee, 'one flat networkFee whatever the recipient holds');
    assert.ok(lamportsIn('usdc', creator.fee) < placed.networkFee && placed.networkFee < lamportsIn('usdc', creator.fee + ataRent), 'it covers the fees and part of the rent');
  });

  test('USDC exact_out to a recipient that has a token account, with the hint', async () => {
    const { payoutTxs, recipient } = await runScenario({ asset: 'usdc', mode: 'exact_out', amount: 7_500_000n, hint: true, recipientHasAccount: true });
    const account = ata(recipient, ASSETS.usdc.mint);
    for (const x of payoutTxs) assert.equal(lamportDelta(x, account), 0n, 'no rent: the account existed');
  });

  test('BONK (5 decimals) exact_in with the hint, recipient without a token account', async () => {
    await runScenario({ asset: 'bonk', mode: 'exact_in', amount: 20_000_000_000n, hint: true });
  });

  test('BONK exact_out, no hint, recipient with a token account', async () => {
    await runScenario({ asset: 'bonk', mode: 'exact_out', amount: 12_345_678_901n, hint: false, recipientHasAccount: true });
  });

  /** An order, and a refreshed transaction for it with a new blockhash while the original is still live. */
  async function orderWithRefresh(sender: SimWallet, recipient: Address): Promise<{ placed: PlacedOrder; original: string; refreshed: string }> {
    const placed = await placeOrder(acct.client, { amount: '80000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address as Address, recipientAddress: recipient });
    const original = placed.order.transaction as string;
    // Hush hands out a cached blockhash (refreshed every few seconds): ask until refresh carries a new one.
    const refreshed = await h.until('a refreshed transaction with a new blockhash', async () => {
      const r = expectOk(await acct.client.refresh(placed.trackingId)).order;
      assert.equal(r.trackingId, placed.trackingId);
      assert.equal(r.amountIn, placed.order.amountIn);
      assert.equal(r.expiration, placed.order.expiration);
      // Every transaction differs (its record is sealed afresh): a refresh is new once its blockhash is.
      return depositOf(r.transaction).blockhash !== depositOf(original).blockhash ? (r.transaction as string) : null;
    }, 20_000, 250);
    assert.ok(await live(original), 'the original is still live when the refreshed one is handed out');
    return { placed, original, refreshed };
  }
  const live = (tx: string) => cs.live(depositOf(tx).blockhash);

  test('original and refreshed transaction both submitted: one lands, exactly one payout', async () => {
    const sender = await cs.fundSender('sol', SOL);
    const recipient = h.address();
    const { placed, original, refreshed } = await orderWithRefresh(sender, recipient);
    const a = depositOf(original);
    const b = depositOf(refreshed);
    assert.equal(b.depositAccount, a.depositAccount, 'refresh keeps the deposit account');
    assert.notEqual(b.blockhash, a.blockhash);

    const before = await cs.lamports(sender.address);
    const signedA = sender.signWire(original);
    const signedB = sender.signWire(refreshed);
    // Both go out at once, without preflight, as a wallet racing itself would send them.
    await cs.sendBatch([signedA.wire, signedB.wire], { skipPreflight: true });
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
    const errs = await cs.confirmed([signedA.signature, signedB.signature]);
    const landed: LandedTx[] = [await cs.landed(signedA.signature), await cs.landed(signedB.signature)];
    const winners = landed.filter((x) => x.err === null);
    assert.equal(winners.length, 1, `exactly one of the two transactions succeeded: ${jsonish(errs)}`);
    assert.equal(rec.payouts.length, 1, 'exactly one payout');
    await assertCompleted(placed, rec, { sender, recipient, recipientBefore: 0n, depositSignature: winners[0]!.signature, prefundSignatures: [] });
    await assertSenderDebit(placed, sender, { lamports: before, tokens: null }, landed);
    settled.push({ placed, record: rec });
  });

  test('the other transaction sent after its order completed fails: the deposit account is not closed while it can land', async () => {
    const sender = await cs.fundSender('sol', SOL);
    const recipient = h.address();
    const { placed, original, refreshed } = await orderWithRefresh(sender, recipient);
    const before = await cs.lamports(sender.address);
    const signedA = sender.signWire(original);
    await cs.send(signedA.wire);
    const rec = await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
    // Every sweep the worker could run now (more ticks than it defers): none may take this deposit while
    // the other transaction can land, since closing its account would let that transaction create it
    // again and charge the sender twice.
    for (let i = 0; i < 5; i++) await h.drive(h.hush.worker!.sweepTick());
    const { rows } = await h.drive(h.db.query<{ sweep_tx_id: string | null }>('SELECT sweep_tx_id FROM orders WHERE tracking_id = $1', [placed.trackingId]));
    const landed = [await cs.landed(signedA.signature)];
    assert.ok(await live(refreshed), 'the other transaction is still live after the sweeps');
    assert.equal(rows[0]!.sweep_tx_id, null, 'no sweep while a transaction handed out for the order is live');
    const signedB = sender.signWire(refreshed);
    await cs.send(signedB.wire, { skipPreflight: true });
    const b = await cs.landed(signedB.signature);
    landed.push(b);
    assert.notEqual(b.err, null, 'the other transaction fails: the deposit account exists');
    assert.equal(landed[0]!.err, null);
    assert.equal(rec.payouts.length, 1, 'exactly one payout');
    await assertSenderDebit(placed, sender, { lamports: before, tokens: null }, landed);
    assert.equal(expectOk(await acct.client.status(placed.trackingId)).order.refund, null, 'no second deposit to refund');
    settled.push({ placed, record: rec });
  });
});

describe('after settlement', () => {
  test('deposits are swept into pools; every Hush transaction has the same shape; the ledger reconciles', async () => {
    assert.ok(settled.length >= 8, 'every scenario settled');
    // Sweeps run on a schedule: wait until every deposit account is closed.
    await h.until('every deposit swept', async () => {
      const { rows } = await h.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM orders WHERE deposit IS NOT NULL AND swept = false`);
      return rows[0]!.n === 0;
    }, 600_000, 1_000);
    for (const { placed } of settled) assert.equal(await cs.exists(placed.depositAccount), false, `${placed.trackingId}: deposit account closed by the sweep`);

    const { rows } = await h.drive(h.db.query<{ kind: string; signature: string; status: string }>(`SELECT kind, signature, status FROM chain_txs ORDER BY id`));
    const kinds = new Set(rows.map((r) => r.kind));
    assert.ok(kinds.has('payout') && kinds.has('sweep'), `payouts and sweeps were recorded: ${[...kinds].join(',')}`);
    let checked = 0;
    for (const r of rows.filter((x) => x.status === 'confirmed')) {
      assertHushShape(await cs.landed(r.signature), feePayer, budget);
      checked++;
    }
    assert.ok(checked >= settled.length + 1);

    // Each deposit was swept by exactly one landed sweep.
    const sweeps = await h.drive(h.db.query<{ signature: string; items: { depositAccount: string }[] }>(
      `SELECT signature, meta -> 'items' AS items FROM chain_txs WHERE kind = 'sweep' AND status = 'confirmed'`,
    ));
    const swept = sweeps.rows.flatMap((r) => r.items.map((i) => i.depositAccount));
    for (const { placed } of settled) assert.equal(swept.filter((d) => d === placed.depositAccount).length, 1, `${placed.trackingId}: swept exactly once`);

    // networkFee covers every transaction Hush paid for the order (docs/spec.md §4): its payouts (fees and any
    // token-account rent, from the fee payer's balance) and its sweep as if it had been swept alone. It is
    // one flat figure pricing 70 % of a token account's rent (docs/spec.md §9), so an order whose payout created
    // the recipient's account is allowed the other 30 % on top: the ledger carries that under-recovery.
    for (const { placed, record } of settled) {
      let lamports = 0n;
      let createdRent = 0n;
      for (const p of record.payouts as { signature: string }[]) {
        const tx = await cs.landed(p.signature);
        lamports -= lamportDelta(tx, feePayer);
        const destination = ASSETS[placed.req.destinationAssetId as AssetId];
        if (!destination.native && lamportDelta(tx, ata(placed.req.recipientAddress, destination.mint)) === ataRent) createdRent += ataRent;
      }
      const sweep = sweeps.rows.find((r) => r.items.some((i) => i.depositAccount === placed.depositAccount))!;
      // Its deposit owner's signature plus the whole shared part (fee payer and priority fee): the other
      // deposits' owner signatures are theirs.
      lamports += (await cs.landed(sweep.signature)).fee - 5000n * BigInt(sweep.items.length - 1);
      const cost = lamportsIn(placed.req.sourceAssetId as AssetId, lamports - (createdRent * 3000n) / 10_000n);
      assert.ok(cost <= placed.networkFee, `${placed.trackingId}: spent ${lamports} lamports (${cost} ${placed.req.sourceAssetId} units beyond the unpriced rent) > networkFee ${placed.networkFee}`);
    }

    const report = await cleanReconcile(h);
    assert.equal(report.ok, true);
    assert.ok(report.assets.length >= 3);
  });
});
