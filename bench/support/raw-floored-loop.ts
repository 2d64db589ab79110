/**
 * bench:settlement's baseline under the production policy: what "paid by hand" takes when the payouts keep the
 * policy's floor (docs/spec.md §9: a payout is due two slots after its deposit's confirmation). N funded senders
 * each send a deposit (a token or SOL transfer to a wallet of the bench's) at once, the loop polls them to
 * `confirmed` every pollMs, and each payout (buildPayout, the same shape as Hush's, from a treasury's pools of
 * its own) is built, signed and sent two slots after its deposit was seen confirmed; the run ends when every
 * payout is `confirmed`. No store, no screening, no ledger: the pace of the chain and the policy alone, which
 * is what Hush's settlement is held to (docs/performance.md, "Settlement at the raw loop's pace").
 */
import { randomBytes } from 'node:crypto';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { buildPayout } from '../../src/chain/hush-transactions.ts';
import type { Asset } from '../../src/config/assets.ts';
import type { HushConfig } from '../../src/config/config.ts';
import { associatedTokenAddress } from '../../src/domain/associated-token-address.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { Treasury } from '../../src/treasury/treasury.ts';
import { fund, rawSignatureStatuses, rpcBatch, type Rpc } from './chain-calls.ts';
import { sleep } from './processes.ts';

/** The RPC's body limit (50 KiB) holds about 60 signed transfers per batch. */
const SEND_BATCH = 50;

export async function rawFlooredLoop(
  chainUrl: string,
  rpc: Rpc,
  run: { config: HushConfig; asset: Asset; orders: number; amount: bigint; pollMs: number; slotMs: number },
): Promise<{ seconds: number; perSecond: number }> {
  const { config, asset, orders, amount, pollMs, slotMs } = run;
  const treasury = await Treasury.load(new TreasuryKeys(randomBytes(32)), config.assets);
  const pools = treasury.pools(asset.assetId);
  const perPool = (amount * BigInt(orders)) / BigInt(pools.length) + amount;
  const senders = await Promise.all(Array.from({ length: orders }, () => generateKeyPairSigner()));
  const recipients = await Promise.all(Array.from({ length: orders }, () => generateKeyPairSigner()));
  const collector = await generateKeyPairSigner();
  await fund(chainUrl, rpc, asset, [
    { address: treasury.feePayer.address, lamports: 100n * 1_000_000_000n, tokens: 0n },
    ...pools.map((p) => ({ address: p.address, lamports: asset.native ? perPool + 1_000_000_000n : 0n, tokens: perPool })),
    ...senders.map((s) => ({ address: s.address, lamports: 1_000_000_000n + (asset.native ? 2n * amount : 0n), tokens: 2n * amount })),
  ]);
  // The senders' wallets sign their deposits before the clock starts, as in Hush's run.
  const { value: latest } = await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const holdingOf = (owner: KeyPairSigner) => (asset.native ? owner.address : associatedTokenAddress(owner.address, asset.mint, asset.tokenProgram));
  const deposits = await Promise.all(
    senders.map((s) =>
      buildPayout(
        { feePayer: s, computeUnitLimit: config.computeUnitLimit, computeUnitPriceMicroLamports: config.computeUnitPriceMicroLamports, blockhash: latest },
        { asset, sources: [{ pool: s, poolHolding: holdingOf(s), amount }], recipient: collector.address },
      ),
    ),
  );

  const t0 = performance.now();
  await Promise.all(
    Array.from({ length: Math.ceil(orders / SEND_BATCH) }, (_, b) =>
      rpcBatch<string>(chainUrl, deposits.slice(b * SEND_BATCH, (b + 1) * SEND_BATCH).map((d) => ({ method: 'sendTransaction', params: [d.wire, { encoding: 'base64', skipPreflight: true }] }))),
    ),
  );
  const shape = { feePayer: treasury.feePayer, computeUnitLimit: config.computeUnitLimit, computeUnitPriceMicroLamports: config.computeUnitPriceMicroLamports };
  let blockhash = (await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
  const payouts: Promise<string>[] = [];
  let waiting = deposits.map((d, i) => ({ signature: d.signature, i }));
  while (waiting.length > 0) {
    const statuses = await rawSignatureStatuses(chainUrl, waiting.map((w) => w.signature));
    const seen: number[] = [];
    waiting = waiting.filter((w, k) => {
      const st = statuses[k];
      if (st?.err) throw new Error(`baseline deposit ${w.signature} failed: ${JSON.stringify(st.err)}`);
      if (!st || st.confirmationStatus === 'processed') return true;
      seen.push(w.i);
      return false;
    });
    if (seen.length > 0) {
      // Two slots on, each payout of this look is built, signed and sent (one RPC batch).
      payouts.push(
        sleep(2 * slotMs).then(async () => {
          const signed = await Promise.all(
            seen.map((i) => {
              const pool = pools[i % pools.length]!;
              return buildPayout({ ...shape, blockhash }, { asset, sources: [{ pool: pool.signer, poolHolding: pool.holding, amount }], recipient: recipients[i]!.address });
            }),
          );
          for (let b = 0; b < signed.length; b += SEND_BATCH) {
            await rpcBatch<string>(chainUrl, signed.slice(b, b + SEND_BATCH).map((p) => ({ method: 'sendTransaction', params: [p.wire, { encoding: 'base64', skipPreflight: true, maxRetries: 0 }] })));
          }
          return signed.map((p) => p.signature).join(' ');
        }),
      );
      blockhash = (await rpc.getLatestBlockhash({ commitment: 'confirmed' }).send()).value;
    }
    if (waiting.length > 0) await sleep(pollMs);
  }
  let pending = (await Promise.all(payouts)).flatMap((s) => s.split(' '));
  while (pending.length > 0) {
    const statuses = await rawSignatureStatuses(chainUrl, pending);
    pending = pending.filter((sig, k) => {
      const st = statuses[k];
      if (st?.err) throw new Error(`baseline payout ${sig} failed: ${JSON.stringify(st.err)}`);
      return !st || st.confirmationStatus === 'processed';
    });
    if (pending.length > 0) await sleep(pollMs);
  }
  const seconds = (performance.now() - t0) / 1000;
  return { seconds, perSecond: orders / seconds };
}
