/**
 * bench:settlement's baseline: the same payouts as Hush makes (buildPayout, same shape: fee payer kind,
 * compute budget, idempotent ATA creation, fresh recipients), built, signed, sent and confirmed without Hush.
 */
import { randomBytes } from 'node:crypto';
import { generateKeyPairSigner, type Signature } from '@solana/kit';
import { buildPayout } from '../../src/chain/hush-transactions.ts';
import type { Asset } from '../../src/config/assets.ts';
import type { HushConfig } from '../../src/config/config.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { Treasury } from '../../src/treasury/treasury.ts';
import { fund, type Rpc } from './chain-calls.ts';
import { sleep } from './processes.ts';

/** Funding goes straight to the chain; the timed loop through `timed` (the baseline's counting proxy). */
export async function rawPayoutLoop(
  chainUrl: string,
  rpc: Rpc,
  timed: Rpc,
  run: { config: HushConfig; asset: Asset; orders: number; amount: bigint; pollMs: number },
): Promise<{ seconds: number; perSecond: number; cpuMs: number }> {
  const { config, asset, orders, amount, pollMs } = run;
  // A separate treasury (own seed, own pools) so the baseline never touches the pools Hush accounts for.
  const treasury = await Treasury.load(new TreasuryKeys(randomBytes(32)), config.assets);
  const pools = treasury.pools(asset.assetId);
  const perPool = (amount * BigInt(orders)) / BigInt(pools.length) + amount;
  await fund(chainUrl, rpc, asset, [
    { address: treasury.feePayer.address, lamports: 100n * 1_000_000_000n, tokens: 0n },
    ...pools.map((p) => ({ address: p.address, lamports: asset.native ? perPool + 1_000_000_000n : 0n, tokens: perPool })),
  ]);
  const recipients = await Promise.all(Array.from({ length: orders }, () => generateKeyPairSigner()));

  const t0 = performance.now();
  // This process's CPU over the loop: the chain and the proxy are other processes, so it is what building,
  // signing, sending and confirming the payouts costs in this runtime on this machine today (Hush's CPU per
  // order is read against it: the machine's speed moves between runs).
  const cpu0 = process.cpuUsage();
  const { value: latest } = await timed.getLatestBlockhash({ commitment: 'confirmed' }).send();
  const shape = {
    feePayer: treasury.feePayer,
    computeUnitLimit: config.computeUnitLimit,
    computeUnitPriceMicroLamports: config.computeUnitPriceMicroLamports,
    blockhash: latest,
  };
  const sends: Promise<unknown>[] = [];
  const signatures: string[] = [];
  for (let i = 0; i < orders; i++) {
    const pool = pools[i % pools.length]!;
    const signed = await buildPayout(shape, { asset, sources: [{ pool: pool.signer, poolHolding: pool.holding, amount }], recipient: recipients[i]!.address });
    signatures.push(signed.signature);
    // Sent as soon as it is signed, as Hush does: skip preflight, no RPC-side retries.
    sends.push(timed.sendTransaction(signed.wire as never, { encoding: 'base64', skipPreflight: true, maxRetries: 0n }).send());
  }
  await Promise.all(sends);
  let pending = signatures;
  while (pending.length > 0) {
    const { value } = await timed.getSignatureStatuses(pending as Signature[]).send();
    pending = pending.filter((sig, i) => {
      const st = value[i];
      if (st?.err) throw new Error(`baseline payout ${sig} failed: ${JSON.stringify(st.err)}`);
      return !st || st.confirmationStatus === 'processed';
    });
    if (pending.length > 0) await sleep(pollMs);
  }
  const seconds = (performance.now() - t0) / 1000;
  const cpu = process.cpuUsage(cpu0);
  return { seconds, perSecond: orders / seconds, cpuMs: (cpu.user + cpu.system) / 1000 };
}
