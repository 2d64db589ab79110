/**
 * Payouts on a chain that congests like a busy mainnet hour and loses a tenth of all sends (LOCALNET_CONGESTION
 * busy, drop rate 0.1; src/localnet/leader-queue.ts), on a simulated Hush: every order is paid exactly once (store
 * and chain), none is lost, each within its bound, and the ledger reconciles; a payout's price follows the market
 * (busy above calm); a payout whose every send is lost expires at `finalized` and is re-signed at 1.5× its price.
 * Senders are wallets: they rebroadcast their deposit until it lands, and refresh the order once its blockhash died.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getBase64Encoder, getCompiledTransactionMessageDecoder, getTransactionDecoder } from '@solana/kit';
import { computeUnitPriceOfWire } from '../../src/chain/wire-price.ts';
import { CONGESTION_DEFAULTS } from '../../src/localnet/congestion-profile.ts';
import { ESCALATION_BPS, LEVEL_RULES } from '../../src/domain/fee-estimate.ts';
import { ChainRefused } from '../../sim/chain-users.ts';
import { expectOk } from '../support/api-responses.ts';
import { assertPaidOnce } from '../support/settlement-landed.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, USDC, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { at, placeUsdc, usdcSender, type SimOrder } from '../support/sim-privacy.ts';
import { cleanReconcile } from '../support/sim-settlement.ts';
import { rpcStandIn } from '../support/sim-rpc-faults.ts';

/** 2 USDC: off the menu, so paid at the floor (no class to wait for). */
const OFF_MENU = String(2n * USDC);
/** From the deposit's confirmation to the order's completion: the floor, a landing at the market, a drop or two. */
const BOUND_MS = 60_000;

/** The sender's wallet: rebroadcasts its deposit every 2 s until it is confirmed; a new transaction (refresh) once its blockhash died. */
async function depositAsAWallet(h: SimHush, acct: SimAccount, o: SimOrder): Promise<void> {
  let transaction: string = o.order.transaction;
  for (let i = 0; i < 200; i++) {
    const { wire, signature } = o.sender.signWire(transaction);
    await h.drive(h.chain.send(wire)).catch((e: unknown) => {
      if (!(e instanceof ChainRefused)) throw e;
    });
    await h.advance(2_000);
    const { value } = await h.drive(h.chain.call<{ value: ({ confirmationStatus: string; err: unknown } | null)[] }>('getSignatureStatuses', [[signature]]));
    if (value[0] && value[0].confirmationStatus !== 'processed') return;
    const valid = await h.drive(h.chain.call<{ value: boolean }>('isBlockhashValid', [recentBlockhashOf(wire), { commitment: 'processed' }]));
    if (!valid.value) transaction = expectOk(await acct.client.refresh(o.trackingId)).order.transaction;
  }
  throw new Error(`${o.trackingId}: the deposit never landed`);
}

/** The recent blockhash a transaction carries. */
function recentBlockhashOf(wire: string): string {
  const tx = getTransactionDecoder().decode(getBase64Encoder().encode(wire));
  return getCompiledTransactionMessageDecoder().decode(tx.messageBytes).lifetimeToken;
}

/** Each payout attempt of an order, oldest first: its status and the price it was signed with. */
async function payoutAttempts(h: SimHush, trackingId: string): Promise<{ status: string; price: bigint }[]> {
  const { rows } = await h.db.query<{ status: string; wire: string }>(
    `SELECT c.status, c.wire FROM chain_txs c JOIN orders o ON o.id = c.order_id WHERE o.tracking_id = $1 AND c.kind = 'payout' ORDER BY c.id`,
    [trackingId],
  );
  return rows.map((r) => ({ status: r.status, price: computeUnitPriceOfWire(r.wire)! }));
}

const median = (xs: bigint[]) => [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))[Math.floor(xs.length / 2)]!;

/** Places `n` off-menu orders, deposits them as wallets do, and checks each paid once within its bound; the first prices paid. */
async function payAll(h: SimHush, acct: SimAccount, n: number): Promise<bigint[]> {
  const senders = [];
  for (let i = 0; i < n; i++) senders.push(await usdcSender(h));
  const orders: SimOrder[] = [];
  for (const sender of senders) orders.push(await placeUsdc(h, acct, OFF_MENU, { sender }));
  await h.drive(Promise.all(orders.map((o) => depositAsAWallet(h, acct, o))));
  const prices: bigint[] = [];
  for (const o of orders) {
    const rec = await h.waitForOrder(acct.client, o.trackingId, ['completed'], 600_000);
    await assertPaidOnce(h.db, o.trackingId, 'payout', o.amountOut);
    assert.equal(await h.drive(h.chain.holding(o.recipient, 'usdc')), o.amountOut, `${o.trackingId}: the recipient holds amountOut exactly once on chain`);
    const took = at(rec, 'completed') - at(rec, 'deposit_confirmed');
    assert.ok(took <= BOUND_MS, `${o.trackingId}: completed ${took} ms after its deposit's confirmation (bound ${BOUND_MS})`);
    prices.push((await payoutAttempts(h, o.trackingId))[0]!.price);
  }
  return prices;
}

let busyMedian = 0n;

describe('a busy chain that drops a tenth of all sends', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 73, congestion: { ...CONGESTION_DEFAULTS, profile: 'busy', seed: 73, dropRate: 0.1 } });
    acct = await h.createAccount();
  });
  after(() => closeSim(h));

  test('every payout lands exactly once, none lost, each within its bound, priced by the market; the ledger reconciles', async () => {
    const prices = await payAll(h, acct, 8);
    busyMedian = median(prices);
    assert.ok(busyMedian > 4n * LEVEL_RULES.fast.floor, `payouts priced by a busy market (median ${busyMedian} micro-lamports per CU), not at the floor`);
    await cleanReconcile(h, 300_000);
  });
});

describe('a calm chain', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 74, congestion: { ...CONGESTION_DEFAULTS, profile: 'calm', seed: 74 } });
    acct = await h.createAccount();
  });
  after(() => closeSim(h));

  test("a payout's price follows the market: cheaper than in the busy hour", async () => {
    const prices = await payAll(h, acct, 3);
    assert.ok(busyMedian > 0n, 'the busy chain ran first');
    assert.ok(median(prices) < busyMedian, `calm median ${median(prices)} below busy ${busyMedian}`);
  });

  test('a payout whose every send is lost expires at finalized and is re-signed at 1.5× its price, then paid once', async () => {
    const provider = rpcStandIn(h);
    const sender = await usdcSender(h);
    const o = await placeUsdc(h, acct, OFF_MENU, { sender });
    // Hush's sends never reach the chain (the users' own do): its payout can only expire.
    provider.setFaults([{ kind: '503', methods: ['sendTransaction'] }]);
    await depositAsAWallet(h, acct, o);
    await h.until('the first payout attempt expired', async () => ((await payoutAttempts(h, o.trackingId)).some((a) => a.status === 'expired') ? true : null), 300_000, 2_000);
    provider.setFaults([]);
    await h.waitForOrder(acct.client, o.trackingId, ['completed'], 300_000);
    await assertPaidOnce(h.db, o.trackingId, 'payout', o.amountOut);
    const attempts = await payoutAttempts(h, o.trackingId);
    const expired = attempts.find((a) => a.status === 'expired')!;
    const landed = attempts.find((a) => a.status === 'confirmed')!;
    assert.ok(landed.price * 10_000n >= expired.price * ESCALATION_BPS, `re-signed at ${landed.price}, at least 1.5× the expired ${expired.price}`);
  });
});
