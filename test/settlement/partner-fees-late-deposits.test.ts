/**
 * End to end on a simulated Hush (test/support/sim-hush.ts): a partner's fee reaches its registered fee
 * recipient in one aggregated transfer per period (never one per order), and funds sent to a deposit account
 * after its deposit was confirmed — after the sweep, or before it — go back to the sender less the order's
 * network fee. Then the ledger reconciles with the chain. Sweeps run when a test says so (the worker's own loop
 * is set an hour apart), so "before the sweep" is a certainty, not a race.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import { buildSweep, txShape } from '../../src/chain/hush-transactions.ts';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { SettlementWorker } from '../../src/settlement/runner.ts';
import { processFaultPoints } from '../../src/support/fault-points.ts';
import { seededRandom } from '../../src/support/random.ts';
import { SIM_SLOT_MS } from '../../sim/world.ts';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { SOL, USDC, startSimHush, type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';
import {
  accountExists, cleanReconcile, holdingOf, lamportsOf, lateTick, place, sendSigned, sendSignedRaw, solTransferIxs, statusOf, sweep, usdcAccount, usdcOf, usdcTopUpIxs,
} from '../support/sim-screening.ts';

describe('partner fees and late deposits', () => {
  let h: SimHush;
  let acct: SimAccount;
  let sender: SimWallet;

  before(async () => {
    // Screening off, as the real-process harness ran it: these are settlement's checks, not screening's.
    h = await startSimHush({ seed: 41, env: { HUSH_SWEEP_INTERVAL_S: '3600', HUSH_PARTNER_PAYOUT_INTERVAL_S: '2', HUSH_SCREENING_URL: '' } });
    acct = await h.createAccount({ feeCapBps: 200 });
    sender = await h.wallet({ sol: 5n * SOL, usdc: 500n * USDC });
  });
  after(() => closeSim(h));

  const worker = () => h.hush.worker!;
  const swept = async (trackingId: string) => (await h.db.query<{ swept: boolean }>('SELECT swept FROM orders WHERE tracking_id = $1', [trackingId])).rows[0]?.swept ?? false;
  /** The sender's own transfer of `amount` into a deposit account that exists (SOL: lamports, no SyncNative). */
  const topUp = (assetId: 'sol' | 'usdc', depositAccount: string, amount: bigint, owner?: string) =>
    sendSigned(h, sender, assetId === 'sol' ? solTransferIxs(sender, depositAccount, amount) : usdcTopUpIxs(sender, { owner: owner!, account: depositAccount }, amount));
  /** Refunds recorded for an order, pending or landed: a second refund is recorded before it is sent. */
  const liveRefunds = async (trackingId: string) =>
    Number(
      (
        await h.db.query<{ n: string | number }>(
          `SELECT count(*) AS n FROM chain_txs WHERE kind = 'refund' AND status IN ('pending', 'confirmed') AND order_id = (SELECT id FROM orders WHERE tracking_id = $1)`,
          [trackingId],
        )
      ).rows[0]!.n,
    );
  /** Quote and order with the partner's fee, deposited and completed; the partner fee the quote named. */
  const completedWithFee = async (partner: SimAccount, req: Record<string, unknown>) => {
    const quote = expectOk(await partner.client.quote(req)).quote;
    const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, ...terms } = req;
    const order = expectOk(await partner.client.order({ quote, ...terms })).order;
    await h.deposit(order, sender);
    await h.waitForOrder(partner.client, order.trackingId, ['completed']);
    return { quote, order };
  };

  test('two orders with a partner fee: the fee recipient receives exactly their sum, each fee paid once and whole', async () => {
    const feeRecipient = acct.feeRecipients[0]!;
    const partnerFees: bigint[] = [];
    for (const feeBps of [150, 40]) {
      const req = { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: h.address(), feeBps, feeRecipientAddress: feeRecipient };
      const { quote } = await completedWithFee(acct, req);
      assert.equal(BigInt(quote.feeBreakdown.partnerFee), (20_000_000n * BigInt(feeBps)) / 10_000n);
      partnerFees.push(BigInt(quote.feeBreakdown.partnerFee));
    }
    const expected = partnerFees.reduce((a, b) => a + b, 0n);
    const received = await h.until('the partner payout', async () => {
      const b = (await usdcOf(h, feeRecipient)) ?? 0n;
      return b >= expected ? b : null;
    }, 40_000);
    assert.equal(received, expected, 'exactly the accrued partner fees, no more');
    // The chain can show the payout before the worker has settled its record: wait for the record. The orders
    // complete apart and payouts go every period (2 s here), so one transfer of the sum or one per fee are both
    // right; a fee split, paid twice or partly is not. (Aggregation into one transfer is shown by the SOL test
    // below, whose first fee waits for the second.)
    const amounts = await h.until('the settled partner payout records', async () => {
      const { rows } = await h.db.query<{ amount: string }>(`SELECT amount::text FROM chain_txs WHERE kind = 'partner_payout' AND status = 'confirmed' AND destination = $1 ORDER BY id`, [feeRecipient]);
      const got = rows.map((r) => BigInt(r.amount));
      return got.reduce((a, b) => a + b, 0n) === expected ? got : null;
    }, 20_000);
    const asPaid = [...amounts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const perFee = [...partnerFees].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.ok(
      (asPaid.length === 1 && asPaid[0] === expected) || (asPaid.length === 2 && asPaid[0] === perFee[0] && asPaid[1] === perFee[1]),
      `partner payouts ${asPaid.join(', ')} are the sum ${expected} or the fees ${perFee.join(', ')}`,
    );
  });

  test('SOL partner fees below a wallet\'s rent wait for more (no transfer that fails every period), then go out in one', async () => {
    const partner = await h.createAccount({ feeCapBps: 200 });
    const feeRecipient = partner.feeRecipients[0]!; // a fresh address: no account yet
    const sendWithFee = async (amount: bigint, feeBps: number) => {
      const req = { amount: amount.toString(), sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: h.address(), feeBps, feeRecipientAddress: feeRecipient };
      return BigInt((await completedWithFee(partner, req)).quote.feeBreakdown.partnerFee);
    };
    const small = await sendWithFee(10_000_000n, 25);
    assert.ok(small > 0n && small < 890_880n, `a partner fee below the rent minimum (${small})`);
    const payouts = async () =>
      (await h.db.query<{ status: string; amount: string }>(`SELECT status, amount::text FROM chain_txs WHERE kind = 'partner_payout' AND destination = $1 ORDER BY id`, [feeRecipient])).rows;
    // Partner-payout passes (also every 2 s on their own here): nothing is sent, so nothing fails.
    for (let i = 0; i < 3; i++) await h.drive(worker().partnerTick());
    assert.deepEqual(await payouts(), [], 'no partner payout below the rent minimum to an empty address');
    const large = await sendWithFee(50_000_000n, 200);
    const received = await h.until('the partner payout', async () => {
      const b = await lamportsOf(h, feeRecipient);
      return b > 0n ? b : null;
    }, 40_000);
    // Whole lots of 0.0001 SOL (a hundredth of the smallest standard amount): the rest keeps accruing.
    const paid = small + large - ((small + large) % 100_000n);
    assert.ok(paid > 0n && paid < small + large, 'the sum is not a whole number of lots (else this proves nothing)');
    assert.equal(received, paid, 'both fees, in whole lots, in one transfer');
    const rows = await h.until('the settled partner payout', async () => {
      const r = await payouts();
      return r.length > 0 && r.every((x) => x.status !== 'pending') ? r : null;
    }, 20_000);
    assert.deepEqual(rows, [{ status: 'confirmed', amount: paid.toString() }]);
    // The remainder is owed, not lost: more passes send nothing while it is under a lot.
    for (let i = 0; i < 2; i++) await h.drive(worker().partnerTick());
    assert.equal((await payouts()).length, 1);
  });

  test('funds sent to a swept deposit account come back to the sender less the network fee', async () => {
    const placed = await place(h, acct.client, { amount: '11000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: h.address() });
    await h.deposit(placed.order, sender);
    await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
    await sweep(h, placed.trackingId);

    const late = 3_000_000n;
    const before = (await usdcOf(h, sender.address))!;
    await topUp('usdc', placed.depositAccount, late, placed.depositOwner);
    const expectedBack = late - placed.networkFee;
    const after = await h.until('the late-deposit refund', async () => {
      await worker().lateDepositTick();
      const b = (await h.chain.tokens(usdcAccount(sender.address)));
      return b === before - late + expectedBack ? b : null;
    }, 30_000, 500);
    assert.equal(before - after, placed.networkFee, 'the sender loses exactly the network fee');
    // The partner can tell the user where the funds went: the refund shows on the (still final) order.
    const status = await h.until('the late refund on the status record', async () => {
      const o = await statusOf(acct.client, placed.trackingId);
      return o.refund ? o : null;
    }, 10_000);
    assert.equal(status.status, 'completed', 'the order stays final');
    assert.deepEqual(status.refund, { signature: status.refund.signature, amount: expectedBack.toString(), reason: 'late_deposit' });
    const { value } = await h.drive(h.chain.call<{ value: ({ err: unknown } | null)[] }>('getSignatureStatuses', [[status.refund.signature]]));
    assert.ok(value[0] && value[0].err === null, 'the refund signature is a landed transaction');

    // Another late deposit: its refund adds to the amount shown; the first refund's signature stays.
    const late2 = 4_000_000n;
    const before2 = (await usdcOf(h, sender.address))!;
    await topUp('usdc', placed.depositAccount, late2, placed.depositOwner);
    const back2 = late2 - placed.networkFee;
    const shown = await h.until('the second late refund on the status record', async () => {
      await worker().lateDepositTick();
      const o = await statusOf(acct.client, placed.trackingId);
      return o.refund.amount !== status.refund.amount ? o : null;
    }, 30_000, 500);
    assert.equal((await usdcOf(h, sender.address))! - before2, back2 - late2, 'the second one came back less the network fee');
    assert.deepEqual(shown.refund, { signature: status.refund.signature, amount: (expectedBack + back2).toString(), reason: 'late_deposit' });

    const report = await cleanReconcile(h);
    assert.equal(report.ok, true);
  });

  /**
   * A completed SOL order whose sweep closed its deposit account, then `late` lamports sent to that address
   * with a plain transfer (e.g. from an exchange): no token account there any more.
   */
  const closedSolDepositWithLateSol = async (late: bigint) => {
    const placed = await place(h, acct.client, { amount: '200000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address as Address, recipientAddress: h.address() });
    await h.deposit(placed.order, sender);
    await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
    await sweep(h, placed.trackingId);
    await h.until('the sweep to close the deposit account', async () => !(await accountExists(h, placed.depositAccount)), 20_000);
    await topUp('sol', placed.depositAccount, late);
    return placed;
  };

  test('SOL sent to a wrapped-SOL deposit address after its sweep closed the account comes back less the network fee', async () => {
    const late = 50_000_000n;
    const placed = await closedSolDepositWithLateSol(late);
    const before = await lamportsOf(h, sender.address);
    const back = await h.until('the refund of SOL sent to the closed address', async () => {
      await worker().lateDepositTick();
      const b = await h.chain.lamports(sender.address);
      return b > before ? b - before : null;
    }, 30_000, 500);
    assert.equal(back, late - placed.networkFee, 'all of it less the network fee, once');
    assert.equal(await lamportsOf(h, placed.depositAccount), 0n, 'nothing left at the address');
    const o = await h.until('the refund on the status record', async () => {
      const rec = await statusOf(acct.client, placed.trackingId);
      return rec.refund ? rec : null;
    }, 10_000);
    assert.deepEqual({ amount: o.refund.amount, reason: o.refund.reason }, { amount: back.toString(), reason: 'late_deposit' });
    await cleanReconcile(h);
    await lateTick(h);
    assert.equal(await liveRefunds(placed.trackingId), 1, 'one refund recorded, after another pass');
    assert.equal((await lamportsOf(h, sender.address)) - before, back, 'refunded exactly once');
  });

  test('two workers finding the same SOL at a closed wrapped-SOL deposit address at once refund it once; a reopen whose funds are gone fails on chain', async () => {
    const late = 50_000_000n;
    const placed = await closedSolDepositWithLateSol(late);

    // Two worker processes: their own RPC clients (a network of their own) and blockhash caches, fetched two
    // slots apart, so their sweeps differ.
    const hush = h.hush;
    let n = 0;
    const other = async () => {
      const c = new SolanaChain('http://chain.sim', h.clock, SIM_SLOT_MS, hush.config.rpcTimeoutMs, 0, h.world.wire.life().fetch);
      await h.drive(c.latestBlockhash());
      await h.advance(2 * SIM_SLOT_MS);
      return new SettlementWorker(hush.config, hush.db, c, hush.signing!, { clock: h.clock, random: seededRandom(4100 + ++n), faults: processFaultPoints(), workerId: `late-${n}`, sweepIntervalMs: 3_600_000 });
    };
    const [w1, w2] = [await other(), await other()];
    const before = await lamportsOf(h, sender.address);
    await h.drive(Promise.all([w1.lateDepositTick(), w2.lateDepositTick()]));
    const lateSweeps = () => h.db.query<{ status: string }>(`SELECT status FROM chain_txs WHERE kind = 'sweep' AND meta -> 'items' @> $1::jsonb`, [JSON.stringify([{ depositAccount: placed.depositAccount, late: true }])]);
    assert.equal((await lateSweeps()).rows.length, 1, 'one late sweep recorded');
    // The test's own worker runs its late pass hourly: run it here, as production does every 5 s (it retries a
    // refund a landed sweep could not record at once, e.g. no pool able to pay yet).
    const back = await h.until('the refund', async () => {
      const b = await h.chain.lamports(sender.address);
      if (b > before) return b - before;
      await worker().lateDepositTick();
      return null;
    }, 30_000, 500).catch(async (e: Error) => {
      const { rows } = await h.db.query(`SELECT kind, status, amount::text, meta FROM chain_txs WHERE meta -> 'items' @> $1::jsonb OR (kind = 'refund' AND order_id = (SELECT id FROM orders WHERE tracking_id = $2))`, [
        JSON.stringify([{ depositAccount: placed.depositAccount }]),
        placed.trackingId,
      ]);
      throw new Error(`${e.message}: ${JSON.stringify(rows)}`);
    });
    assert.equal(back, late - placed.networkFee);
    // Passes after it landed (the first three at once again) find nothing.
    await h.drive(Promise.all([w1.lateDepositTick(), w2.lateDepositTick(), worker().lateDepositTick()]));
    assert.deepEqual((await lateSweeps()).rows.map((r) => r.status), ['confirmed']);
    assert.equal(await liveRefunds(placed.trackingId), 1, 'one refund recorded');
    assert.equal((await lamportsOf(h, sender.address)) - before, back, 'refunded exactly once');

    // The chain's own guard: a reopen of the now empty, closed address fails; the fee payer buys no rent.
    const pool = hush.treasury.pools('sol')[0]!;
    const signed = await h.drive(
      (async () =>
        buildSweep(txShape(hush.signing!.feePayer, hush.config, await hush.chain.latestBlockhash()), {
          asset: hush.config.assets.get('sol')!,
          poolWallet: pool.address,
          poolHolding: pool.holding,
          items: [{ owner: await hush.signing!.depositSigner(placed.trackingId), depositAccount: placed.depositAccount, amount: late, reopen: true }],
        }))(),
    );
    const sim = await h.drive(h.rpc.simulateTransaction(signed.wire as never, { encoding: 'base64', commitment: 'confirmed' }).send());
    assert.ok(sim.value.err, 'a second reopen cannot land');
    await cleanReconcile(h);
  });

  // Funds that reach the deposit account between the deposit's confirmation and its sweep: the sweep takes the
  // account's whole balance, so the part beyond the confirmed deposit must come back as well.
  for (const { assetId, amount, extra, lostRefund, midSweep } of [
    { assetId: 'usdc' as const, amount: 11_000_000n, extra: 2_000_000n, lostRefund: false },
    { assetId: 'sol' as const, amount: 300_000_000n, extra: 200_000_000n, lostRefund: false },
    // The worker stops (a crash, an RPC error) after the sweep is settled and before its refund is recorded.
    { assetId: 'usdc' as const, amount: 5_000_000n, extra: 1_500_000n, lostRefund: true },
    // SOL that lands after the sweep read the balances and before the sweep itself: the close moves it too.
    { assetId: 'sol' as const, amount: 300_000_000n, extra: 150_000_000n, lostRefund: false, midSweep: true },
  ] as { assetId: 'usdc' | 'sol'; amount: bigint; extra: bigint; lostRefund: boolean; midSweep?: boolean }[]) {
    const when = midSweep ? ', also when it lands between the sweep\'s balance read and the sweep' : lostRefund ? ', also when the refund was not recorded when the sweep landed' : '';
    test(`${assetId}: funds sent after the deposit was confirmed but before its sweep come back to the sender less the network fee${when}`, async () => {
      const placed = await place(h, acct.client, { amount: amount.toString(), sourceAssetId: assetId, destinationAssetId: assetId, senderAddress: sender.address as Address, recipientAddress: h.address() });
      await h.deposit(placed.order, sender);
      await h.waitForOrder(acct.client, placed.trackingId, ['completed']);
      assert.equal(await swept(placed.trackingId), false, 'not swept yet: the worker sweeps only when told');

      const extraIxs = () => (assetId === 'sol' ? solTransferIxs(sender, placed.depositAccount, extra) : usdcTopUpIxs(sender, { owner: placed.depositOwner, account: placed.depositAccount }, extra));
      const holding = () => (assetId === 'sol' ? h.chain.lamports(sender.address) : h.chain.tokens(usdcAccount(sender.address)));
      if (!midSweep) await sendSigned(h, sender, extraIxs());
      // The sender's balance once the extra is sent (mid-sweep: measured then, after its own fee).
      let before = await holdingOf(h, sender.address, assetId);
      // The step a landed sweep's late items go to, and the outbox's send: replaced for the scenarios below.
      const ctx = worker().context;
      const w = ctx.outbox;
      // The hook the runner gave the context at construction (RunnerHooks.refundLate).
      const refundLate = ctx.hooks.refundLate;
      const sendAll = w.sendAll;
      if (lostRefund) ctx.hooks.refundLate = async () => {};
      let toppedUp: Promise<void> | null = null;
      // The sweep has read the balances and is recorded; the extra lands (confirmed) before it is sent, also by
      // the transaction loop's resends, which wait for the same top-up. Inside the sweep pass, which the test
      // is already running the clock for: the transfer is sent and awaited as is.
      if (midSweep) {
        w.sendAll = async (wires: string[]) => {
          const { rows } = await h.db.query(`SELECT 1 FROM chain_txs WHERE kind = 'sweep' AND wire = ANY($1::text[])`, [wires]);
          if (rows.length > 0) {
            toppedUp ??= (async () => {
              await sendSignedRaw(h, sender, extraIxs());
              before = await holding();
            })();
            await toppedUp;
          }
          return sendAll.call(w, wires);
        };
      }
      try {
        await sweep(h, placed.trackingId);
        if (lostRefund) {
          // The sweep lands and is settled; nothing is refunded until a late-deposit pass finds it owed.
          await h.until('the settled sweep', async () => (await h.db.query(`SELECT 1 FROM chain_txs WHERE kind = 'sweep' AND status = 'confirmed' AND meta -> 'items' @> $1::jsonb`, [JSON.stringify([{ depositAccount: placed.depositAccount, late: true }])])).rows.length > 0, 20_000);
          await h.advance(500);
          assert.equal(await holdingOf(h, sender.address, assetId), before, 'nothing refunded yet');
        }
      } finally {
        ctx.hooks.refundLate = refundLate;
        w.sendAll = sendAll;
      }
      if (midSweep) assert.ok(toppedUp, 'the extra was sent while the sweep was in flight');
      if (lostRefund) await lateTick(h);
      const back = await h.until('the refund of the extra funds', async () => {
        const b = await holding();
        return b > before ? b - before : null;
      }, 30_000);
      assert.equal(back, extra - placed.networkFee, 'the extra funds less the network fee, once');
      const status = await h.until('the refund on the status record', async () => {
        const o = await statusOf(acct.client, placed.trackingId);
        return o.refund ? o : null;
      }, 10_000);
      assert.equal(status.status, 'completed', 'the order itself is untouched');
      assert.equal(status.deposit.amount, placed.amountIn.toString(), 'its deposit is what was confirmed');
      assert.equal(status.refund.amount, back.toString());
      assert.equal(status.refund.reason, 'late_deposit');

      const report = await cleanReconcile(h);
      assert.equal(report.ok, true);
      // Nothing more goes back later: the late-deposit pass finds an empty, closed account and a marked sweep.
      await lateTick(h);
      await lateTick(h);
      assert.equal(await liveRefunds(placed.trackingId), 1, 'one refund recorded, after two more passes');
      assert.equal((await holdingOf(h, sender.address, assetId)) - before, back, 'refunded exactly once');
    });
  }
});
