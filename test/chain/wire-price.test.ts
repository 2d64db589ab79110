/**
 * The price a recorded transaction offered, read from its own bytes (src/chain/wire-price.ts): what a re-sign
 * after expiry escalates from and what the fee port learns from Hush's landings. Every Hush shape (payouts,
 * sweeps, the deposit the partner's user signs), random prices, against the bytes kit signs.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { test } from 'node:test';
import bs58 from 'bs58';
import { generateKeyPairSigner } from '@solana/kit';
import { loadConfig } from '../../src/config/config.ts';
import { buildPayout, buildSweep, type TxShape } from '../../src/chain/hush-transactions.ts';
import { buildDepositTransaction } from '../../src/chain/deposit-transaction.ts';
import { computeUnitPriceOfWire, signatureOfWire } from '../../src/chain/wire-price.ts';

const assets = loadConfig({ ...process.env }).assets.list;

async function shape(price: bigint): Promise<TxShape> {
  return {
    feePayer: await generateKeyPairSigner(),
    computeUnitLimit: randomInt(1_000, 1_400_000),
    computeUnitPriceMicroLamports: price,
    blockhash: { blockhash: bs58.encode(randomBytes(32)), lastValidBlockHeight: 1_000n },
    signing: 'event-loop',
  };
}

test('a payout, a sweep and a deposit say the price they were signed with; their first signature is their id', async () => {
  for (let round = 0; round < 12; round++) {
    const asset = assets[round % assets.length]!;
    const price = round === 0 ? 0n : BigInt(randomInt(0, 2 ** 40)) * BigInt(randomInt(1, 1000));
    const pool = await generateKeyPairSigner();
    const payout = await buildPayout(await shape(price), { asset, sources: [{ pool, poolHolding: pool.address, amount: 5n }], recipient: (await generateKeyPairSigner()).address });
    assert.equal(computeUnitPriceOfWire(payout.wire), price, `${asset.assetId} payout`);
    assert.equal(signatureOfWire(payout.wire), payout.signature);
    const owner = await generateKeyPairSigner();
    const sweep = await buildSweep(await shape(price), { asset, poolWallet: pool.address, poolHolding: pool.address, items: [{ owner, depositAccount: owner.address, amount: 7n }] });
    assert.equal(computeUnitPriceOfWire(sweep.wire), price, `${asset.assetId} sweep`);
    const deposit = await buildDepositTransaction({
      sender: (await generateKeyPairSigner()).address, depositOwner: owner.address, mint: asset.mint, tokenProgram: asset.tokenProgram, decimals: asset.decimals,
      native: asset.native, amount: 9n, blockhash: bs58.encode(randomBytes(32)), lastValidBlockHeight: 1n, computeUnitLimit: 30_000, computeUnitPriceMicroLamports: price,
    });
    assert.equal(computeUnitPriceOfWire(deposit.base64), price, `${asset.assetId} deposit`);
  }
});

test('bytes that are no transaction have no price', () => {
  assert.equal(computeUnitPriceOfWire(''), null);
  assert.equal(computeUnitPriceOfWire(Buffer.from([1, 2, 3]).toString('base64')), null);
});
