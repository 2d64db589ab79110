/**
 * getRecentPrioritizationFees as agave answers it (each slot's lowest price; with accounts, the highest of
 * their lowest when above), and with Triton's `{ percentile }` (basis points): that percentile of each
 * slot's prices, and of each account's writers', the highest again.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { faucetWallet, pricedTransfer, sendWire, steppedChain } from '../support/stepped-chain.ts';

test("per slot the lowest price, or Triton's percentile of the slot's prices; per account the highest when above", async () => {
  const c = await steppedChain();
  try {
    const payer = await faucetWallet(c);
    const recipients = await Promise.all(Array.from({ length: 10 }, () => generateKeyPairSigner()));
    c.advance();
    const slot = c.chain.slot;
    // Ten prices in one slot: 1,000 … 10,000; the tenth recipient is written only by the dearest.
    for (let i = 0; i < 10; i++) {
      const tx = await pricedTransfer(c, payer, { to: recipients[i]!.address, microLamports: BigInt((i + 1) * 1000) });
      assert.ok((await sendWire(c, tx.wire)).result);
    }
    c.advance(2);
    const feeAt = async (accounts: string[], config?: object) => {
      const answer = await c.call('getRecentPrioritizationFees', config ? [accounts, config] : [accounts]);
      assert.equal(answer.error, undefined, JSON.stringify(answer.error));
      return (answer.result as { slot: bigint; prioritizationFee: bigint }[]).find((f) => f.slot === slot)!.prioritizationFee;
    };
    assert.equal(await feeAt([]), 1000n, 'agave: the slot’s lowest');
    assert.equal(await feeAt([recipients[9]!.address]), 10_000n, 'agave: the account’s lowest, above the slot’s');
    assert.equal(await feeAt([recipients[0]!.address, recipients[4]!.address]), 5000n);
    // Triton's index into ascending prices: floor(min(p, 9999) × n / 10000).
    assert.equal(await feeAt([], { percentile: 0 }), 1000n);
    assert.equal(await feeAt([], { percentile: 5000 }), 6000n);
    assert.equal(await feeAt([], { percentile: 9000 }), 10_000n);
    assert.equal(await feeAt([], { percentile: 10_000 }), 10_000n);
    assert.equal(await feeAt([recipients[1]!.address], { percentile: 2000 }), 3000n, 'the slot’s p20 (3,000) above the account’s (2,000)');
    assert.equal(await feeAt([recipients[7]!.address], { percentile: 2000 }), 8000n, 'the account’s p20 above the slot’s');
    const empty = ((await c.call('getRecentPrioritizationFees', [[], { percentile: 5000 }])).result as { slot: bigint; prioritizationFee: bigint }[]).find((f) => f.slot === slot + 1n);
    assert.equal(empty?.prioritizationFee, 0n, 'a slot where nothing landed answers 0');
    for (const bad of [{ percentile: 10_001 }, { percentile: -1 }, { percentile: 'p50' }, { level: 'high' }]) {
      assert.equal(Number((await c.call('getRecentPrioritizationFees', [[], bad])).error?.code), -32602, JSON.stringify(bad));
    }
  } finally {
    await c.close();
  }
});
