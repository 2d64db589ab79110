/**
 * Deposits a sweep cannot take (here: orders whose deposit account holds nothing to sweep) do not hold back
 * the deposits after them. A sweep batch is the oldest few sweepable deposits of an asset; it used to be
 * the same few every tick, so four such orders stopped every later sweep of the asset, with no alert.
 * Sweeps run when the test says so (the worker's own loop is set an hour apart).
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { insertOrder } from '../../src/store/orders-store.ts';
import { startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { pollUntil } from '../support/localnet.ts';
import { newOrder } from '../support/store-fixtures.ts';
import { accountExists, chainAt, depositWithRefresh, newWallet, placeOrder, waitForOrder, type Chain } from '../support/settlement.ts';
import { moveOrder } from '../support/move-order.ts';

let hush: TestHush;
let acct: TestAccount;
let chain: Chain;
const logged: string[] = [];

before(async () => {
  hush = await startTestHush({ env: { HUSH_SWEEP_INTERVAL_S: '3600', LOCALNET_SLOT_MS: '100' }, log: (l) => logged.push(l) });
  acct = await hush.createAccount();
  chain = chainAt(hush.chainUrl);
});
after(async () => hush?.close());

test('deposits that cannot be swept are skipped with an ALERT each, and the deposits after them are swept', async () => {
  // Older than the real order, so they are the first batch: finished orders whose deposit account holds nothing.
  const stuck: string[] = [];
  for (let i = 0; i < 4; i++) {
    const order = newOrder(acct.id, { txLastValidBlockHeight: 0n, depositAccount: (await generateKeyPairSigner()).address });
    const { id } = (await insertOrder(hush.db, order, { key: `stuck-${i}`, responseStatus: 200, responseBody: {} })) as { id: string };
    const deposit = { signature: 'none', amount: '1000000', confirmedAt: new Date().toISOString() };
    for (const [from, to] of [['awaiting_deposit', 'deposit_detected'], ['deposit_detected', 'deposit_confirmed'], ['deposit_confirmed', 'sending'], ['sending', 'completed']] as const) {
      assert.ok(await moveOrder(hush.db, id, from, to, { deposit }));
    }
    stuck.push(order.trackingId);
  }
  const sender = await newWallet(chain, { sol: 1_000_000_000n, tokens: { usdc: 100_000_000n } });
  const placed = await placeOrder(acct.client, { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: (await generateKeyPairSigner()).address });
  await depositWithRefresh(acct.client, chain, placed, sender);
  await waitForOrder(acct.client, placed.trackingId, ['completed'], 30_000);

  const worker = hush.hush.worker!;
  // Once its handed-out transactions are dead the real deposit is sweepable; tick until it is swept.
  await pollUntil(async () => (await worker.sweepTick()) > 0 || null, { timeoutMs: 60_000, intervalMs: 200, what: 'a sweep past the deposits that cannot be swept' });
  await pollUntil(async () => !(await accountExists(chain, placed.depositAccount)) || null, { timeoutMs: 20_000, what: 'the real deposit account swept (closed)' });
  for (const trackingId of stuck) {
    assert.equal(logged.filter((l) => l.includes('ALERT: a confirmed deposit has no token account to sweep') && l.includes(trackingId)).length, 1, `${trackingId}: alerted once`);
  }
});

test('a backlog of deposits of one asset is swept in one tick, batch after batch, not four a tick', async () => {
  const worker = hush.hush.worker!;
  // The first test's leftovers swept first, so this tick's count is the new deposits alone.
  while ((await worker.sweepTick()) > 0);
  const senders = await Promise.all(Array.from({ length: 9 }, () => newWallet(chain, { sol: 1_000_000_000n, tokens: { usdc: 100_000_000n } })));
  const placed = await Promise.all(
    senders.map(async (sender) => {
      const p = await placeOrder(acct.client, { amount: '20000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: (await generateKeyPairSigner()).address });
      await depositWithRefresh(acct.client, chain, p, sender);
      return p;
    }),
  );
  await Promise.all(placed.map((p) => waitForOrder(acct.client, p.trackingId, ['completed'], 60_000)));
  // Every one sweepable: its handed-out deposit transactions dead at `finalized`.
  const { rows } = await hush.db.query<{ h: string }>('SELECT max(tx_last_valid_block_height)::text AS h FROM orders WHERE tracking_id = ANY($1)', [placed.map((p) => p.trackingId)]);
  const lastValid = BigInt(rows[0]!.h);
  await pollUntil(async () => (await hush.rpc.getBlockHeight({ commitment: 'finalized' }).send()) > lastValid || null, { timeoutMs: 60_000, intervalMs: 200, what: 'the deposit transactions dead at finalized' });
  assert.equal(await worker.sweepTick(), 9, 'one tick sweeps all nine (three batches)');
  await pollUntil(async () => (await Promise.all(placed.map((p) => accountExists(chain, p.depositAccount)))).every((x) => !x) || null, { timeoutMs: 20_000, what: 'every deposit account swept (closed)' });
});
