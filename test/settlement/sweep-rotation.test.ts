/**
 * Deposits a sweep cannot take (here: orders whose deposit account holds nothing to sweep) do not hold back
 * the deposits after them. A sweep batch is the oldest few sweepable deposits of an asset; it used to be
 * the same few every tick, so four such orders stopped every later sweep of the asset, with no alert.
 * Sweeps run when the test says so (the worker's own loop is set an hour apart), on a simulated Hush
 * (test/support/sim-hush.ts).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import type { Address } from '@solana/kit';
import { insertOrder } from '../../src/store/orders-store.ts';
import { closeSim } from '../support/sim-close.ts';
import type { SimAccount, SimHush, SimWallet } from '../support/sim-hush.ts';
import { logLines, startSettlementSim, type SimChain } from '../support/sim-settlement.ts';
import { newOrder } from '../support/store-fixtures.ts';
import { placeOrder, type PlacedOrder } from '../support/settlement.ts';
import { moveOrder } from '../support/move-order.ts';

let h: SimHush;
let acct: SimAccount;
let cs: SimChain;
let logged: string[];

before(async () => {
  ({ h, acct, cs } = await startSettlementSim(74, { HUSH_SWEEP_INTERVAL_S: '3600' }));
  logged = logLines(h);
});
after(() => closeSim(h));

const usdcSender = () => cs.wallet({ sol: 1_000_000_000n, tokens: { usdc: 100_000_000n } });
const placeUsdc = (sender: SimWallet): Promise<PlacedOrder> =>
  placeOrder(acct.client, { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: h.address() });

test('deposits that cannot be swept are skipped with an ALERT each, and the deposits after them are swept', async () => {
  // Older than the real order, so they are the first batch: finished orders whose deposit account holds nothing.
  const stuck: string[] = [];
  for (let i = 0; i < 4; i++) {
    const createdAt = new Date(Math.floor(h.now() / 1000) * 1000);
    const order = newOrder(acct.id, { txLastValidBlockHeight: 0n, depositAccount: h.address(), createdAt, expiration: new Date(createdAt.getTime() + 1_800_000) });
    const { id } = (await h.drive(insertOrder(h.db, order, { key: `stuck-${i}`, responseStatus: 200, responseBody: {} }))) as { id: string };
    const deposit = { signature: 'none', amount: '1000000', confirmedAt: new Date(h.now()).toISOString() };
    for (const [from, to] of [['awaiting_deposit', 'deposit_detected'], ['deposit_detected', 'deposit_confirmed'], ['deposit_confirmed', 'sending'], ['sending', 'completed']] as const) {
      assert.ok(await h.drive(moveOrder(h.db, id, from, to, { deposit })));
    }
    stuck.push(order.trackingId);
  }
  const sender = await usdcSender();
  const placed = await placeUsdc(sender);
  await h.deposit(placed.order, sender);
  await h.waitForOrder(acct.client, placed.trackingId, ['completed'], 30_000);

  const worker = h.hush.worker!;
  // Once its handed-out transactions are dead the real deposit is sweepable; tick until it is swept.
  await h.until('a sweep past the deposits that cannot be swept', async () => (await worker.sweepTick()) > 0, 600_000, 1_000);
  await h.until('the real deposit account swept (closed)', async () => !(await cs.exists(placed.depositAccount)), 20_000, 400);
  for (const trackingId of stuck) {
    assert.equal(logged.filter((l) => l.includes('ALERT: a confirmed deposit has no token account to sweep') && l.includes(trackingId)).length, 1, `${trackingId}: alerted once`);
  }
});

test('a backlog of deposits of one asset is swept in one tick, batch after batch, not four a tick', async () => {
  const worker = h.hush.worker!;
  // The first test's leftovers swept first, so this tick's count is the new deposits alone.
  while ((await h.drive(worker.sweepTick())) > 0);
  const senders: SimWallet[] = [];
  for (let i = 0; i < 9; i++) senders.push(await usdcSender());
  const placed = await Promise.all(
    senders.map(async (sender) => {
      const p = await placeUsdc(sender);
      await h.deposit(p.order, sender);
      return p;
    }),
  );
  await Promise.all(placed.map((p) => h.waitForOrder(acct.client, p.trackingId, ['completed'], 60_000)));
  // Every one sweepable: its handed-out deposit transactions dead at `finalized`.
  const { rows } = await h.drive(h.db.query<{ h: string }>('SELECT max(tx_last_valid_block_height)::text AS h FROM orders WHERE tracking_id = ANY($1)', [placed.map((p) => p.trackingId)]));
  const lastValid = BigInt(rows[0]!.h);
  await h.until('the deposit transactions dead at finalized', async () => (await h.rpc.getBlockHeight({ commitment: 'finalized' }).send()) > lastValid, 600_000, 1_000);
  assert.equal(await h.drive(worker.sweepTick()), 9, 'one tick sweeps all nine (three batches)');
  await h.until('every deposit account swept (closed)', async () => (await Promise.all(placed.map((p) => cs.exists(p.depositAccount)))).every((x) => !x), 20_000, 400);
});
