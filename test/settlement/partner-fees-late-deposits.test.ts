/**
 * End to end on the local chain: a partner's fee reaches its registered fee recipient in one aggregated
 * transfer per period (never one per order), and funds sent to a deposit account after its deposit was
 * confirmed — after the sweep, or before it — go back to the sender less the order's network fee. Then
 * the ledger reconciles with the chain. Sweeps run when a test says so (the worker's own loop is set an
 * hour apart), so "before the sweep" is a certainty, not a race.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getCreateAssociatedTokenIdempotentInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { getTransferSolInstruction } from '@solana-program/system';
import type { Address, Instruction, KeyPairSigner } from '@solana/kit';
import { expectOk, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { buildSignedTransaction, latestBlockhash, pollUntil, waitForStatus } from '../support/localnet.ts';
import { buildSweep, txShape } from '../../src/chain/hush-transactions.ts';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { SettlementWorker } from '../../src/settlement/runner.ts';
import { ASSETS, SOL, accountExists, ataOf, balanceOf, chainAt, depositWithRefresh, lamportsOf, newWallet, placeOrder, waitForCleanReconcile, waitForOrder, type AssetId, type Chain } from '../support/settlement.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { processFaultPoints } from '../../src/support/fault-points.ts';

describe('partner fees and late deposits', () => {
  let hush: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  let sender: KeyPairSigner;

  before(async () => {
    hush = await startTestHush({
      admin: true,
      env: { HUSH_SWEEP_INTERVAL_S: '3600', HUSH_PARTNER_PAYOUT_INTERVAL_S: '2', LOCALNET_SLOT_MS: '50' },
    });
    acct = await hush.createAccount({ feeCapBps: 200 });
    chain = chainAt(hush.chainUrl);
    sender = await newWallet(chain, { sol: 5n * SOL, tokens: { usdc: 500_000_000n } });
  });
  after(async () => hush?.close());

  const worker = () => hush.hush.worker!;
  const swept = async (trackingId: string) => (await hush.db.query<{ swept: boolean }>('SELECT swept FROM orders WHERE tracking_id = $1', [trackingId])).rows[0]?.swept ?? false;
  /** Runs sweep ticks until the order's deposit is swept (a tick may defer itself while deposits arrive). */
  const sweep = (trackingId: string) =>
    pollUntil(async () => (await swept(trackingId)) || ((await worker().sweepTick()) >= 0 && null), { timeoutMs: 20_000, intervalMs: 200, what: 'the sweep of the deposit' });
  /** The sender's own transfer of `amount` into a deposit account that exists (SOL: lamports, no SyncNative). */
  const topUp = async (assetId: AssetId, depositAccount: Address, amount: bigint, create?: Address) => {
    const asset = ASSETS[assetId];
    const ixs: Instruction[] = asset.native
      ? [getTransferSolInstruction({ source: sender, destination: depositAccount, amount })]
      : [
          ...(create ? [getCreateAssociatedTokenIdempotentInstruction({ payer: sender, ata: depositAccount as never, owner: create as never, mint: asset.mint })] : []),
          getTransferCheckedInstruction({ source: await ataOf(sender.address, asset.mint), mint: asset.mint, destination: depositAccount as never, authority: sender, amount, decimals: asset.decimals }),
        ];
    const { wire } = await buildSignedTransaction(sender, ixs, await latestBlockhash(chain.rpc));
    const signature = await chain.rpc.sendTransaction(wire, { encoding: 'base64' }).send();
    await waitForStatus(chain.rpc, signature, 'confirmed');
  };

  /** Refunds recorded for an order, pending or landed: a second refund is recorded before it is sent. */
  const liveRefunds = async (trackingId: string) =>
    Number(
      (
        await hush.db.query<{ n: string | number }>(
          `SELECT count(*) AS n FROM chain_txs WHERE kind = 'refund' AND status IN ('pending', 'confirmed') AND order_id = (SELECT id FROM orders WHERE tracking_id = $1)`,
          [trackingId],
        )
      ).rows[0]!.n,
    );

  test('two orders with a partner fee: the fee recipient receives exactly their sum, each fee paid once and whole', async () => {
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
    }, { timeoutMs: 40_000, what: 'the partner payout' });
    assert.equal(received, expected, 'exactly the accrued partner fees, no more');
    // The chain can show the payout before the worker has settled its record: wait for the record. The
    // orders complete seconds apart and payouts go every period (2 s here), so one transfer of the sum or
    // one per fee are both right; a fee split, paid twice or partly is not. (Aggregation into one transfer
    // is shown by the SOL test below, whose first fee waits for the second.)
    const amounts = await pollUntil(async () => {
      const { rows } = await hush.db.query<{ amount: string }>(
        `SELECT amount::text FROM chain_txs WHERE kind = 'partner_payout' AND status = 'confirmed' AND destination = $1 ORDER BY id`,
        [feeRecipient],
      );
      const got = rows.map((r) => BigInt(r.amount));
      return got.reduce((a, b) => a + b, 0n) === expected ? got : null;
    }, { timeoutMs: 20_000, what: 'the settled partner payout records' });
    const asPaid = [...amounts].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const perFee = [...partnerFees].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    assert.ok(
      (asPaid.length === 1 && asPaid[0] === expected) || (asPaid.length === 2 && asPaid[0] === perFee[0] && asPaid[1] === perFee[1]),
      `partner payouts ${asPaid.join(', ')} are the sum ${expected} or the fees ${perFee.join(', ')}`,
    );
  });

  test('SOL partner fees below a wallet\'s rent wait for more (no transfer that fails every period), then go out in one', async () => {
    const partner = await hush.createAccount({ feeCapBps: 200 });
    const feeRecipient = partner.feeRecipients[0]!; // a fresh address: no account yet
    const sendWithFee = async (amount: bigint, feeBps: number) => {
      const req = { amount: amount.toString(), sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: (await newWallet(chain)).address, feeBps, feeRecipientAddress: feeRecipient };
      const quote = expectOk(await partner.client.quote(req)).quote;
      const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, ...terms } = req;
      const order = expectOk(await partner.client.order({ quote, ...terms })).order;
      await depositWithRefresh(partner.client, chain, { order, trackingId: order.trackingId } as never, sender);
      await waitForOrder(partner.client, order.trackingId, ['completed'], 30_000);
      return BigInt(quote.feeBreakdown.partnerFee);
    };
    const small = await sendWithFee(10_000_000n, 25);
    assert.ok(small > 0n && small < 890_880n, `a partner fee below the rent minimum (${small})`);
    const payouts = async () =>
      (await hush.db.query<{ status: string; amount: string }>(`SELECT status, amount::text FROM chain_txs WHERE kind = 'partner_payout' AND destination = $1 ORDER BY id`, [feeRecipient])).rows;
    // Partner-payout passes (also every 2 s on their own here): nothing is sent, so nothing fails.
    for (let i = 0; i < 3; i++) await worker().partnerTick();
    assert.deepEqual(await payouts(), [], 'no partner payout below the rent minimum to an empty address');
    const large = await sendWithFee(50_000_000n, 200);
    const received = await pollUntil(async () => {
      const b = await lamportsOf(chain, feeRecipient);
      return b > 0n ? b : null;
    }, { timeoutMs: 40_000, what: 'the partner payout' });
    // Whole lots of 0.0001 SOL (a hundredth of the smallest standard amount): the rest keeps accruing.
    const paid = small + large - ((small + large) % 100_000n);
    assert.ok(paid > 0n && paid < small + large, 'the sum is not a whole number of lots (else this proves nothing)');
    assert.equal(received, paid, 'both fees, in whole lots, in one transfer');
    const rows = await pollUntil(async () => {
      const r = await payouts();
      return r.length > 0 && r.every((x) => x.status !== 'pending') ? r : null;
    }, { timeoutMs: 20_000, what: 'the settled partner payout' });
    assert.deepEqual(rows, [{ status: 'confirmed', amount: paid.toString() }]);
    // The remainder is owed, not lost: more passes send nothing while it is under a lot.
    for (let i = 0; i < 2; i++) await worker().partnerTick();
    assert.equal((await payouts()).length, 1);
  });

  test('funds sent to a swept deposit account come back to the sender less the network fee', async () => {
    const recipient = (await newWallet(chain)).address;
    const req = { amount: '11000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient };
    const quote = expectOk(await acct.client.quote(req)).quote;
    const { amount: _a, sourceAssetId: _s, destinationAssetId: _d, ...terms } = req;
    const order = expectOk(await acct.client.order({ quote, ...terms })).order;
    await depositWithRefresh(acct.client, chain, { order, trackingId: order.trackingId } as never, sender);
    await waitForOrder(acct.client, order.trackingId, ['completed'], 30_000);
    const { rows } = await hush.db.query<{ deposit_owner: string; deposit_account: string }>('SELECT deposit_owner, deposit_account FROM orders WHERE tracking_id = $1', [order.trackingId]);
    const { deposit_owner: owner, deposit_account: depositAccount } = rows[0]!;
    await sweep(order.trackingId);

    const late = 3_000_000n;
    const before = (await balanceOf(chain, sender.address, ASSETS.usdc))!;
    await topUp('usdc', depositAccount as Address, late, owner as Address);
    const expectedBack = late - BigInt(quote.networkFee);
    const after = await pollUntil(async () => {
      await worker().lateDepositTick();
      const b = (await balanceOf(chain, sender.address, ASSETS.usdc))!;
      return b === before - late + expectedBack ? b : null;
    }, { timeoutMs: 30_000, intervalMs: 500, what: 'the late-deposit refund' });
    assert.equal(before - after, BigInt(quote.networkFee), 'the sender loses exactly the network fee');
    // The partner can tell the user where the funds went: the refund shows on the (still final) order.
    const status = await pollUntil(async () => {
      const o = expectOk(await acct.client.status(order.trackingId)).order;
      return o.refund ? o : null;
    }, { timeoutMs: 10_000, what: 'the late refund on the status record' });
    assert.equal(status.status, 'completed', 'the order stays final');
    assert.deepEqual(status.refund, { signature: status.refund.signature, amount: expectedBack.toString(), reason: 'late_deposit' });
    const { value } = await chain.rpc.getSignatureStatuses([status.refund.signature]).send();
    assert.ok(value[0] && value[0].err === null, 'the refund signature is a landed transaction');

    // Another late deposit: its refund adds to the amount shown; the first refund's signature stays.
    const late2 = 4_000_000n;
    const before2 = (await balanceOf(chain, sender.address, ASSETS.usdc))!;
    await topUp('usdc', depositAccount as Address, late2, owner as Address);
    const back2 = late2 - BigInt(quote.networkFee);
    const shown = await pollUntil(async () => {
      await worker().lateDepositTick();
      const o = expectOk(await acct.client.status(order.trackingId)).order;
      return o.refund.amount !== status.refund.amount ? o : null;
    }, { timeoutMs: 30_000, intervalMs: 500, what: 'the second late refund on the status record' });
    assert.equal((await balanceOf(chain, sender.address, ASSETS.usdc))! - before2, back2 - late2, 'the second one came back less the network fee');
    assert.deepEqual(shown.refund, { signature: status.refund.signature, amount: (expectedBack + back2).toString(), reason: 'late_deposit' });

    const report = await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
    assert.equal(report.ok, true);
  });

  /**
   * A completed SOL order whose sweep closed its deposit account, then `late` lamports sent to that address
   * with a plain transfer (e.g. from an exchange): no token account there any more.
   */
  const closedSolDepositWithLateSol = async (late: bigint) => {
    const placed = await placeOrder(acct.client, { amount: '200000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: (await newWallet(chain)).address });
    await depositWithRefresh(acct.client, chain, placed, sender);
    await waitForOrder(acct.client, placed.trackingId, ['completed'], 30_000);
    await sweep(placed.trackingId);
    await pollUntil(async () => !(await accountExists(chain, placed.depositAccount)), { timeoutMs: 20_000, what: 'the sweep to close the deposit account' });
    await topUp('sol', placed.depositAccount, late);
    return placed;
  };

  test('SOL sent to a wrapped-SOL deposit address after its sweep closed the account comes back less the network fee', async () => {
    const late = 50_000_000n;
    const placed = await closedSolDepositWithLateSol(late);
    const before = (await balanceOf(chain, sender.address, ASSETS.sol))!;
    const back = await pollUntil(async () => {
      await worker().lateDepositTick();
      const b = (await balanceOf(chain, sender.address, ASSETS.sol))!;
      return b > before ? b - before : null;
    }, { timeoutMs: 30_000, intervalMs: 500, what: 'the refund of SOL sent to the closed address' });
    assert.equal(back, late - placed.networkFee, 'all of it less the network fee, once');
    assert.equal(await lamportsOf(chain, placed.depositAccount), 0n, 'nothing left at the address');
    const o = await pollUntil(async () => {
      const rec = expectOk(await acct.client.status(placed.trackingId)).order;
      return rec.refund ? rec : null;
    }, { timeoutMs: 10_000, what: 'the refund on the status record' });
    assert.deepEqual({ amount: o.refund.amount, reason: o.refund.reason }, { amount: back.toString(), reason: 'late_deposit' });
    await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
    await worker().lateDepositTick();
    assert.equal(await liveRefunds(placed.trackingId), 1, 'one refund recorded, after another pass');
    assert.equal((await balanceOf(chain, sender.address, ASSETS.sol))! - before, back, 'refunded exactly once');
  });

  test('two workers finding the same SOL at a closed wrapped-SOL deposit address at once refund it once; a reopen whose funds are gone fails on chain', async () => {
    const late = 50_000_000n;
    const placed = await closedSolDepositWithLateSol(late);

    // Two worker processes: their own RPC clients and blockhash caches, fetched apart, so their sweeps differ.
    const h = hush.hush;
    const other = async () => {
      const c = new SolanaChain(hush.chainUrl, systemClock, h.config.localnetSlotMs);
      await c.latestBlockhash();
      await new Promise((r) => setTimeout(r, 300));
      return new SettlementWorker(h.config, h.db, c, h.signing!, { clock: systemClock, random: systemRandom, faults: processFaultPoints(), workerId: `late-${Math.random()}`, sweepIntervalMs: 3_600_000 });
    };
    const [w1, w2] = [await other(), await other()];
    const before = (await balanceOf(chain, sender.address, ASSETS.sol))!;
    await Promise.all([w1.lateDepositTick(), w2.lateDepositTick()]);
    const lateSweeps = () =>
      hush.db.query<{ status: string }>(`SELECT status FROM chain_txs WHERE kind = 'sweep' AND meta -> 'items' @> $1::jsonb`, [JSON.stringify([{ depositAccount: placed.depositAccount, late: true }])]);
    assert.equal((await lateSweeps()).rows.length, 1, 'one late sweep recorded');
    // The test's own worker runs its late pass hourly: run it here, as production does every 5 s (it
    // retries a refund a landed sweep could not record at once, e.g. no pool able to pay yet).
    const back = await pollUntil(async () => {
      const b = (await balanceOf(chain, sender.address, ASSETS.sol))!;
      if (b > before) return b - before;
      await worker().lateDepositTick();
      return null;
    }, { timeoutMs: 30_000, intervalMs: 500, what: 'the refund' }).catch(async (e: Error) => {
      const { rows } = await hush.db.query(`SELECT kind, status, amount::text, meta FROM chain_txs WHERE meta -> 'items' @> $1::jsonb OR (kind = 'refund' AND order_id = (SELECT id FROM orders WHERE tracking_id = $2))`, [
        JSON.stringify([{ depositAccount: placed.depositAccount }]),
        placed.trackingId,
      ]);
      throw new Error(`${e.message}: ${JSON.stringify(rows)}`);
    });
    assert.equal(back, late - placed.networkFee);
    // Passes after it landed (the first three at once again) find nothing.
    await Promise.all([w1.lateDepositTick(), w2.lateDepositTick(), worker().lateDepositTick()]);
    assert.deepEqual((await lateSweeps()).rows.map((r) => r.status), ['confirmed']);
    assert.equal(await liveRefunds(placed.trackingId), 1, 'one refund recorded');
    assert.equal((await balanceOf(chain, sender.address, ASSETS.sol))! - before, back, 'refunded exactly once');

    // The chain's own guard: a reopen of the now empty, closed address fails; the fee payer buys no rent.
    const pool = h.treasury.pools('sol')[0]!;
    const signed = await buildSweep(txShape(h.signing!.feePayer, h.config, await h.chain.latestBlockhash()), {
      asset: h.config.assets.get('sol')!,
      poolWallet: pool.address,
      poolHolding: pool.holding,
      items: [{ owner: await h.signing!.depositSigner(placed.trackingId), depositAccount: placed.depositAccount as Address, amount: late, reopen: true }],
    });
    const sim = await chain.rpc.simulateTransaction(signed.wire as never, { encoding: 'base64', commitment: 'confirmed' }).send();
    assert.ok(sim.value.err, 'a second reopen cannot land');
    await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
  });

  // Funds that reach the deposit account between the deposit's confirmation and its sweep: the sweep
  // takes the account's whole balance, so the part beyond the confirmed deposit must come back as well.
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
      const recipient = (await newWallet(chain)).address;
      const placed = await placeOrder(acct.client, { amount: amount.toString(), sourceAssetId: assetId, destinationAssetId: assetId, senderAddress: sender.address, recipientAddress: recipient });
      await depositWithRefresh(acct.client, chain, placed, sender);
      await waitForOrder(acct.client, placed.trackingId, ['completed'], 30_000);
      assert.equal(await swept(placed.trackingId), false, 'not swept yet: the worker sweeps only when told');

      if (!midSweep) await topUp(assetId, placed.depositAccount, extra);
      // The sender's balance once the extra is sent (mid-sweep: measured then, after its own fee).
      let before = (await balanceOf(chain, sender.address, ASSETS[assetId]))!;
      // The step a landed sweep's late items go to, and the outbox's send: replaced for the scenarios below.
      const ctx = worker().context;
      const w = ctx.outbox;
      // The hook the runner gave the context at construction (RunnerHooks.refundLate).
      const refundLate = ctx.hooks.refundLate;
      const sendAll = w.sendAll;
      if (lostRefund) ctx.hooks.refundLate = async () => {};
      let toppedUp: Promise<void> | null = null;
      // The sweep has read the balances and is recorded; the extra lands (confirmed) before it is sent,
      // also by the transaction loop's resends, which wait for the same top-up.
      if (midSweep) {
        w.sendAll = async (wires: string[]) => {
          const { rows } = await hush.db.query(`SELECT 1 FROM chain_txs WHERE kind = 'sweep' AND wire = ANY($1::text[])`, [wires]);
          if (rows.length > 0) {
            toppedUp ??= (async () => {
              await topUp(assetId, placed.depositAccount, extra);
              before = (await balanceOf(chain, sender.address, ASSETS[assetId]))!;
            })();
            await toppedUp;
          }
          return sendAll.call(w, wires);
        };
      }
      try {
        await sweep(placed.trackingId);
        if (lostRefund) {
          // The sweep lands and is settled; nothing is refunded until a late-deposit pass finds it owed.
          await pollUntil(async () => (await hush.db.query(`SELECT 1 FROM chain_txs WHERE kind = 'sweep' AND status = 'confirmed' AND meta -> 'items' @> $1::jsonb`, [JSON.stringify([{ depositAccount: placed.depositAccount, late: true }])])).rows.length > 0, {
            timeoutMs: 20_000,
            what: 'the settled sweep',
          });
          await new Promise((r) => setTimeout(r, 500));
          assert.equal((await balanceOf(chain, sender.address, ASSETS[assetId]))!, before, 'nothing refunded yet');
        }
      } finally {
        ctx.hooks.refundLate = refundLate;
        w.sendAll = sendAll;
      }
      if (midSweep) assert.ok(toppedUp, 'the extra was sent while the sweep was in flight');
      if (lostRefund) await worker().lateDepositTick();
      const back = await pollUntil(async () => {
        const b = (await balanceOf(chain, sender.address, ASSETS[assetId]))!;
        return b > before ? b - before : null;
      }, { timeoutMs: 30_000, what: 'the refund of the extra funds' });
      assert.equal(back, extra - placed.networkFee, 'the extra funds less the network fee, once');
      const status = await pollUntil(async () => {
        const o = expectOk(await acct.client.status(placed.trackingId)).order;
        return o.refund ? o : null;
      }, { timeoutMs: 10_000, what: 'the refund on the status record' });
      assert.equal(status.status, 'completed', 'the order itself is untouched');
      assert.equal(status.deposit.amount, placed.amountIn.toString(), 'its deposit is what was confirmed');
      assert.equal(status.refund.amount, back.toString());
      assert.equal(status.refund.reason, 'late_deposit');

      const report = await waitForCleanReconcile(hush.opsUrl, hush.adminToken!, 30_000);
      assert.equal(report.ok, true);
      // Nothing more goes back later: the late-deposit pass finds an empty, closed account and a marked sweep.
      await worker().lateDepositTick();
      await worker().lateDepositTick();
      assert.equal(await liveRefunds(placed.trackingId), 1, 'one refund recorded, after two more passes');
      assert.equal((await balanceOf(chain, sender.address, ASSETS[assetId]))! - before, back, 'refunded exactly once');
    });
  }
});
