/**
 * The chain keeps the state of plain system accounts between lamport transfers instead of reading it
 * again; these tests prove the kept state never goes stale: every transaction's pre-balances continue the
 * previous one's post-balances, and an account given data by another instruction is read afresh.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Address, KeyPairSigner, Signature } from '@solana/kit';
import { getAllocateInstruction } from '@solana-program/system';
import { buildSignedTransaction, fundedWallet, latestBlockhash, send, SOL, startTestLocalnet, transferTx, waitForStatus, type TestLocalnet } from '../support/localnet.ts';

describe('localnet: kept state of plain system accounts', () => {
  let net: TestLocalnet;
  before(async () => {
    net = await startTestLocalnet({ slotMs: 1000 });
  });
  after(() => net.close());

  it('pre-balances of each transaction continue the post-balances of the one before, failures included', async () => {
    const wallets: KeyPairSigner[] = await Promise.all([fundedWallet(net.rpc, SOL), fundedWallet(net.rpc, SOL), fundedWallet(net.rpc, SOL)]);
    const poor = await fundedWallet(net.rpc, 1_000_000n);
    const sigs: Signature[] = [];
    for (let i = 0; i < 12; i++) {
      const from = wallets[i % 3]!;
      const to = wallets[(i + 1) % 3]!.address;
      sigs.push(await send(net.rpc, (await transferTx(net.rpc, from, to, 1_000n + BigInt(i))).wire));
      if (i === 5) {
        // Lands with InsufficientFunds and pays only its fee.
        sigs.push(await send(net.rpc, (await transferTx(net.rpc, poor, wallets[0]!.address, SOL)).wire, { skipPreflight: true }));
      }
    }
    await waitForStatus(net.rpc, sigs.at(-1)!, 'confirmed');
    const last = new Map<string, bigint>();
    for (const sig of sigs) {
      const tx = await net.rpc.getTransaction(sig, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
      assert.ok(tx?.meta);
      tx.transaction.message.accountKeys.forEach((k, i) => {
        const seen = last.get(k);
        if (seen !== undefined) assert.equal(tx.meta!.preBalances[i], seen, `pre-balance of ${k} in ${sig}`);
        last.set(k, tx.meta!.postBalances[i]!);
      });
    }
    for (const w of [...wallets, poor]) {
      const { value } = await net.rpc.getBalance(w.address, { commitment: 'processed' }).send();
      assert.equal(value, last.get(w.address), `final balance of ${w.address}`);
    }
  });

  it('an account given data by a non-transfer instruction is not served from the kept state', async () => {
    const a = await fundedWallet(net.rpc, SOL);
    const b = await fundedWallet(net.rpc, SOL);
    // a becomes a kept plain account through a transfer, then gets 8 bytes of data.
    await waitForStatus(net.rpc, await send(net.rpc, (await transferTx(net.rpc, a, b.address, 5_000n)).wire), 'processed');
    const alloc = await buildSignedTransaction(a, [getAllocateInstruction({ newAccount: a, space: 8n })], await latestBlockhash(net.rpc));
    await waitForStatus(net.rpc, await send(net.rpc, alloc.wire), 'confirmed');
    // The next write to a records a's pre-image; reads at 'confirmed' in this slot are served from it.
    await send(net.rpc, (await transferTx(net.rpc, b, a.address as Address, 7_000n)).wire);
    const confirmed = await net.rpc.getAccountInfo(a.address, { commitment: 'confirmed', encoding: 'base64' }).send();
    const processed = await net.rpc.getAccountInfo(a.address, { commitment: 'processed', encoding: 'base64' }).send();
    assert.equal(Buffer.from(confirmed.value!.data[0], 'base64').length, 8);
    assert.equal(Buffer.from(processed.value!.data[0], 'base64').length, 8);
    assert.equal(processed.value!.space, 8n);
  });
});
