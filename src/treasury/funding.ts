import type { AssetRegistry } from '../config/assets.ts';
import { JsonRpcError, type SolanaChain } from '../chain/solana-chain.ts';
import type { Db } from '../store/db.ts';
import { forgetAirdropIntent, recordAirdropIntent, settleFundingAirdrops, signAirdropIntent } from './funding-airdrops.ts';
import { ChainView } from '../chain/chain-view.ts';
import { settledFate } from '../domain/settlement/tx-fate.ts';
import type { FaultPoints } from '../support/fault-points.ts';
import type { TreasuryWallets } from './treasury-wallets.ts';
import type { Clock } from '../support/clock.ts';

/** What each wallet should hold; the local faucet tops up to these, a real deployment reports the gap. */
export interface FundingTargets {
  feePayerLamports: bigint;
  /** Per pool wallet, in whole tokens of the asset. */
  poolTokens: Record<string, bigint>;
}

export const DEFAULT_FUNDING: FundingTargets = {
  feePayerLamports: 1_000n * 1_000_000_000n,
  poolTokens: { sol: 500n, usdc: 250_000n, usdt: 250_000n, bonk: 5_000_000_000n },
};

export interface WalletReport {
  role: 'feepayer' | 'pool';
  wallet: string;
  holding: string;
  assetId: string;
  balance: string;
  target: string;
  missing: string;
}

/** Balances of the fee payer and every pool against their targets (`npm run admin -- treasury`). */
export async function treasuryReport(chain: SolanaChain, treasury: TreasuryWallets, assets: AssetRegistry, targets = DEFAULT_FUNDING): Promise<WalletReport[]> {
  const view = new ChainView(chain);
  const pools = treasury.allPools();
  const balances = await view.balances([treasury.feePayer.address, ...pools.map((p) => p.holding)], 'confirmed');
  const rows: WalletReport[] = [];
  const fp = balances.get(treasury.feePayer.address)?.lamports ?? 0n;
  rows.push(row('feepayer', treasury.feePayer.address, treasury.feePayer.address, 'sol', fp, targets.feePayerLamports));
  for (const p of pools) {
    const asset = assets.get(p.assetId)!;
    const b = balances.get(p.holding);
    const held = asset.native ? (b?.lamports ?? 0n) : (b?.tokenAmount ?? 0n);
    rows.push(row('pool', p.address, p.holding, p.assetId, held, (targets.poolTokens[p.assetId] ?? 0n) * 10n ** BigInt(asset.decimals)));
  }
  return rows;
}

function row(role: WalletReport['role'], wallet: string, holding: string, assetId: string, balance: bigint, target: bigint): WalletReport {
  return { role, wallet, holding, assetId, balance: balance.toString(), target: target.toString(), missing: (target > balance ? target - balance : 0n).toString() };
}

/**
 * On a chain with the local faucet, tops every wallet up to its target and records the funding in the
 * ledger once confirmed. Returns what is still missing (empty when fully funded). Each airdrop is kept in
 * `funding_airdrops` from before it is asked for until its ledger entry is written; the settling at the
 * end covers every row, so it also settles what a crashed earlier start, or a lost answer, left there.
 */
export async function fundFromLocalFaucet(db: Db, chain: SolanaChain, treasury: TreasuryWallets, assets: AssetRegistry, clock: Clock, faults: FaultPoints, targets = DEFAULT_FUNDING): Promise<WalletReport[]> {
  const report = await treasuryReport(chain, treasury, assets, targets);
  const sent: string[] = [];
  for (const r of report) {
    const missing = BigInt(r.missing);
    // Top up only what fell below half the target: restarts do not churn the faucet.
    if (missing === 0n || missing * 2n < BigInt(r.target)) continue;
    const asset = assets.get(r.assetId)!;
    const account = r.role === 'feepayer' ? `feepayer:${r.wallet}` : `pool:${r.holding}`;
    // Intent first: an airdrop whose answer is lost after it executed is still found and booked.
    const intent = await recordAirdropIntent(db, account, r.assetId, missing);
    let signature: string;
    try {
      signature = asset.native
        ? await chain.call<string>('requestAirdrop', [r.wallet, Number(missing) <= Number.MAX_SAFE_INTEGER ? Number(missing) : missing.toString()])
        : await chain.call<string>('localnet_requestTokenAirdrop', [r.wallet, asset.mint, missing.toString()]);
    } catch (e) {
      // Refused by the faucet: nothing happened. Unreachable: it may have happened; the intent stays to be settled.
      if (e instanceof JsonRpcError) await forgetAirdropIntent(db, intent);
      throw e;
    }
    await signAirdropIntent(db, intent, signature);
    sent.push(signature);
  }
  const view = new ChainView(chain);
  for (let i = 0; i < 200 && sent.length > 0; i++) {
    const st = await view.statuses(sent);
    if (st.every((s) => settledFate(s) !== null)) break;
    await clock.sleep(100);
  }
  faults.reach('funding-confirmed');
  await settleFundingAirdrops(db, chain, treasury, assets);
  return (await treasuryReport(chain, treasury, assets, targets)).filter((r) => r.missing !== '0');
}

/**
 * Whether the chain has the local faucet: decided only by an answer of the chain ("Method not found" or
 * not); a chain that cannot be asked throws (ChainUnavailableError), so a start retries rather than guesses.
 */
export function isLocalFaucetChain(chain: SolanaChain): Promise<boolean> {
  return chain
    .call('localnet_requestTokenAirdrop', ['11111111111111111111111111111111', '11111111111111111111111111111111', '0'])
    .then(() => true)
    .catch((e: unknown) => {
      if (e instanceof JsonRpcError) return !/Method not found/.test(e.message);
      throw e;
    });
}
