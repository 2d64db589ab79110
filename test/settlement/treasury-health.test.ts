/**
 * docs/operations.md "fee_payer_low", "reconcile_failed": the treasury's health is read continuously and shown
 * on /metrics and /readyz. A fee payer drained by its own key (as an operator's mistake or a stolen key would)
 * raises an ALERT within a minute, /readyz says so, quotes are refused for what they are (the fee payer, not the
 * pools), and the transaction, which carries no record, pauses payouts.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getTransferSolInstruction } from '@solana-program/system';
import { signWithKit, txShape, withComputeBudget } from '../../src/chain/hush-transactions.ts';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { logLines } from '../support/sim-settlement.ts';
import { usdcSender } from '../support/sim-privacy.ts';

const metric = (text: string, name: string): number | null => {
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : null;
};

describe('the treasury health, continuously', () => {
  let h: SimHush;
  let acct: SimAccount;
  before(async () => {
    h = await startSimHush({ seed: 850 });
    acct = await h.createAccount({ feeCapBps: 0, feeRecipients: 0 });
  });
  after(() => closeSim(h));

  test('a running Hush: the fee payer, the chain check and a still reconcile on /metrics, all well', async () => {
    const text = await h.until('a reconcile on /metrics', async () => {
      const t = (await h.ops.get('/metrics')).text;
      return metric(t, 'hush_reconcile_ok') !== null && (metric(t, 'hush_fee_payer_lamports') ?? 0) > 0 ? t : null;
    }, 120_000, 1000);
    const lamports = await h.drive(h.chain.lamports(h.hush.treasury.feePayer.address));
    const read = metric(text, 'hush_fee_payer_lamports')!;
    assert.ok(read > 0 && Math.abs(read - Number(lamports)) <= Number(lamports) / 100, `the fee payer balance as read on chain: ${read} against ${lamports}`);
    assert.equal(metric(text, 'hush_store_behind_chain'), 0);
    assert.equal(metric(text, 'hush_reconcile_ok'), 1);
    assert.equal(metric(text, 'hush_reconcile_difference{asset="usdc"}') ?? metric(text, 'hush_reconcile_difference'), 0);
  });

  test('the fee payer drained by its key: ALERT within a minute, /readyz and quotes say the fee payer, payouts pause', async () => {
    const lines = logLines(h);
    const feePayer = h.hush.signing!.feePayer;
    const lamports = await h.drive(h.chain.lamports(feePayer.address));
    const blockhash = await h.drive(h.hush.chain.latestBlockhash());
    const shape = txShape(feePayer, { computeUnitLimit: 10_000, computeUnitPriceMicroLamports: 0n }, blockhash);
    const drain = await signWithKit(shape, withComputeBudget(shape, [getTransferSolInstruction({ source: feePayer, destination: h.address(), amount: lamports - 1_000_000n })]));
    const drainedAt = h.now();
    await h.drive(h.chain.confirmed(await h.drive(h.chain.send(drain.wire)), h.clock));
    await h.until('a fee_payer_low ALERT', async () => lines.some((l) => l.includes('"alert":"fee_payer_low"')) || null, 60_000, 500);
    assert.ok(h.now() - drainedAt <= 60_000, `alerted ${h.now() - drainedAt} ms after the drain`);
    const ready = await h.until('readyz says the fee payer is empty', async () => {
      const r = await h.ops.get('/readyz');
      return r.status === 503 && r.body.error.details.feePayer === 'empty' ? r : null;
    }, 70_000, 500);
    assert.ok(h.now() - drainedAt <= 70_000, `/readyz said so ${h.now() - drainedAt} ms after the drain`);
    assert.match(ready.body.error.message, /paused|fee payer/);
    const sender = await usdcSender(h);
    const q = await acct.client.quote({ amount: '1000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: h.address() });
    assert.equal(q.status, 503);
    assert.equal(q.body.error.code, 'SERVICE_UNAVAILABLE', 'not INSUFFICIENT_LIQUIDITY: the pools are full');
    // The drain carries no record: a transaction of the fee payer's key nobody can explain stops payouts.
    const shown = expectOk(await h.ops.get('/admin/v1/recover'));
    assert.equal(shown.paused, true);
    assert.ok(shown.unattributed.some((u: { signature: string; reason: string }) => u.signature === drain.signature && u.reason === 'no_record'));
    const text = (await h.ops.get('/metrics')).text;
    assert.equal(metric(text, 'hush_store_behind_chain'), 1);
    assert.ok(metric(text, 'hush_fee_payer_lamports')! < 5_000_000);
  });
});
