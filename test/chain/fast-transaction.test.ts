/**
 * The worker's compile-and-sign (src/chain/fast-transaction.ts) must produce exactly kit's bytes: same
 * account order, header, instructions, signatures, wire encoding, for every Hush transaction shape
 * (SOL and token payouts, sweeps of several deposits). Random keys, recipients and amounts each round.
 */
import assert from 'node:assert/strict';
import { randomBytes, randomInt } from 'node:crypto';
import { test } from 'node:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { loadConfig } from '../../src/config/config.ts';
import bs58 from 'bs58';
import { compileAndSign } from '../../src/chain/fast-transaction.ts';
import { payoutInstructions, signWithKit, sweepInstructions, withComputeBudget, type TxShape } from '../../src/chain/hush-transactions.ts';

const config = loadConfig({ ...process.env });
const assets = config.assets.list;

async function shape(): Promise<TxShape> {
  return {
    feePayer: await generateKeyPairSigner(),
    computeUnitLimit: randomInt(1, 1_400_000),
    computeUnitPriceMicroLamports: BigInt(randomInt(0, 2 ** 40)),
    blockhash: { blockhash: bs58.encode(randomBytes(32)), lastValidBlockHeight: BigInt(randomInt(1, 2 ** 40)) },
  };
}

async function same(s: TxShape, instructions: Awaited<ReturnType<typeof payoutInstructions>>) {
  const all = withComputeBudget(s, instructions);
  const fast = await compileAndSign(s.feePayer, all, s.blockhash.blockhash);
  const kit = await signWithKit(s, all);
  assert.ok(fast, 'native keys take the fast path');
  assert.equal(fast.wire, kit.wire);
  assert.equal(fast.signature, kit.signature);
}

test('payouts (from one pool or several): the same bytes as kit, every asset', async () => {
  for (let round = 0; round < 40; round++) {
    const asset = assets[round % assets.length]!;
    const s = await shape();
    const recipient = (await generateKeyPairSigner()).address;
    // One pool, or (a payout no single pool covers) several signing the one transaction.
    const sources = await Promise.all(
      Array.from({ length: 1 + (round % 4 === 3 ? 1 + (round % 3) : 0) }, async () => ({
        pool: await generateKeyPairSigner(),
        poolHolding: (await generateKeyPairSigner()).address,
        amount: BigInt(randomInt(1, 2 ** 48)) * (round % 2 ? 1n : 10_000n),
      })),
    );
    await same(s, await payoutInstructions(s, { asset, sources, recipient }));
  }
});

test('sweeps of several deposits: the same bytes as kit, every asset', async () => {
  for (let round = 0; round < 20; round++) {
    const asset = assets[round % assets.length]!;
    const s = await shape();
    const items = await Promise.all(
      Array.from({ length: 1 + (round % 4) }, async () => {
        const owner = await generateKeyPairSigner();
        return { owner, depositAccount: (await generateKeyPairSigner()).address as Address, amount: BigInt(randomInt(1, 2 ** 40)) };
      }),
    );
    const pool = await generateKeyPairSigner();
    await same(s, sweepInstructions(s, { asset, poolWallet: pool.address, poolHolding: (await generateKeyPairSigner()).address, items }));
  }
});
