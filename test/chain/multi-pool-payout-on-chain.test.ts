/**
 * A payout no single pool covers is one transaction in which each pool signs its own transfer (docs/spec.md §9).
 * Against the runtime: from all four of an asset's pools at once, to a recipient with no token account
 * yet (the most instructions a payout can carry), it fits the wire limit, runs within Hush's default
 * compute limit and pays exactly the sum of the shares.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKeyPairSigner, type Address } from '@solana/kit';
import { buildPayout, txShape } from '../../src/chain/hush-transactions.ts';
import { associatedTokenAddress } from '../../src/domain/associated-token-address.ts';
import { loadConfig } from '../../src/config/config.ts';
import { fundedWallet, MINTS, requestTokenAirdrop, startTestLocalnet, TOKEN_PROGRAM, waitForStatus, type TestLocalnet } from '../support/localnet.ts';

const config = loadConfig({});
let ln: TestLocalnet;
before(async () => {
  ln = await startTestLocalnet({ slotMs: 100 });
});
after(() => ln?.close());

for (const assetId of ['usdc', 'sol']) {
  test(`${assetId}: four pools in one payout transaction fit the wire and the default compute limit`, async () => {
    const asset = config.assets.get(assetId)!;
    const feePayer = await fundedWallet(ln.rpc);
    const shares = [1_000_000n, 2_000_000n, 3_000_000n, 4_000_000n];
    const sources = await Promise.all(
      shares.map(async (amount) => {
        const pool = await fundedWallet(ln.rpc);
        if (asset.native) return { pool, poolHolding: pool.address, amount };
        await waitForStatus(ln.rpc, await requestTokenAirdrop(ln.url, pool.address, MINTS.USDC, amount), 'confirmed');
        return { pool, poolHolding: associatedTokenAddress(pool.address, asset.mint as Address, TOKEN_PROGRAM), amount };
      }),
    );
    const recipient = (await generateKeyPairSigner()).address;
    const { value: bh } = await ln.rpc.getLatestBlockhash().send();
    const shape = txShape(feePayer, { computeUnitLimit: config.computeUnitLimit, computeUnitPriceMicroLamports: config.computeUnitPriceMicroLamports }, bh);
    const signed = await buildPayout(shape, { asset, sources, recipient });
    const bytes = Buffer.from(signed.wire, 'base64').length;
    assert.ok(bytes <= 1232, `${bytes} bytes on the wire`);
    const sim = await ln.rpc.simulateTransaction(signed.wire as never, { encoding: 'base64', sigVerify: true }).send();
    assert.equal(sim.value.err, null, JSON.stringify(sim.value.logs?.slice(-3)));
    const units = Number(sim.value.unitsConsumed);
    assert.ok(units < config.computeUnitLimit, `${units} units within the limit of ${config.computeUnitLimit}`);
    console.log(`# ${assetId}: four pools, ${bytes} bytes, ${units} compute units`);
    const sig = await ln.rpc.sendTransaction(signed.wire as never, { encoding: 'base64' }).send();
    await waitForStatus(ln.rpc, sig, 'confirmed');
    const total = shares.reduce((a, b) => a + b, 0n);
    if (asset.native) assert.equal((await ln.rpc.getBalance(recipient, { commitment: 'confirmed' }).send()).value, total);
    else assert.equal((await ln.rpc.getTokenAccountBalance(associatedTokenAddress(recipient, asset.mint as Address, TOKEN_PROGRAM), { commitment: 'confirmed' }).send()).value.amount, total.toString());
  });
}
