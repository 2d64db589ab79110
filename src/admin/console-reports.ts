import type { AssetRegistry } from '../config/assets.ts';
import { ChainView } from '../chain/chain-view.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import { spendableBalance } from '../domain/reserves.ts';
import { classPrivacy, type ClassPrivacy } from '../store/console-reports.ts';
import type { Db } from '../store/db.ts';
import { poolCommitments } from '../store/settlement/pool-commitments.ts';
import type { TreasuryWallets } from '../treasury/treasury-wallets.ts';

/** One asset's liquidity as the operator console shows it, base units (decimal strings). */
export interface AssetLiquidity {
  assetId: string;
  /** What the asset's pools hold on chain (confirmed; a SOL pool less its rent reserve). */
  pools: string;
  /** What recorded outgoing transactions will still take from them. */
  pending: string;
  /** What funded open orders and late refunds owe beyond those transactions, held ones aside. */
  owed: string;
  /** What waits on an operator: held orders' amounts and late funds held by screening (docs/spec.md §12: not free). */
  held: string;
  /** pools − pending − owed − held, never below 0. */
  free: string;
}

/**
 * Liquidity per asset for the console (exact figures: the admin listener only, never the partner port). One
 * chain read (the pools' balances) and one store read; the same arithmetic as the quote path's inventory. No
 * amount is in two columns: free = pools − pending − owed − held.
 */
export async function liquidityReport(db: Db, chain: SolanaChain, treasury: TreasuryWallets, assets: AssetRegistry): Promise<AssetLiquidity[]> {
  const pools = treasury.allPools();
  const commitments = await poolCommitments(db);
  const balances = await new ChainView(chain).balances(pools.map((p) => p.holding), 'confirmed');
  const per = new Map(assets.list.map((a) => [a.assetId, { pools: 0n, pending: 0n }]));
  for (const p of pools) {
    const a = per.get(p.assetId);
    if (!a) continue;
    const h = spendableBalance(assets.get(p.assetId)!.native, balances.get(p.holding));
    a.pools += h > 0n ? h : 0n;
    a.pending += commitments.pending.get(p.holding) ?? 0n;
  }
  return [...per].map(([assetId, a]) => {
    const owed = commitments.owed.get(assetId) ?? 0n;
    const onHold = commitments.held.get(assetId) ?? 0n;
    const free = a.pools - a.pending - owed - onHold;
    return { assetId, pools: a.pools.toString(), pending: a.pending.toString(), owed: owed.toString(), held: onHold.toString(), free: (free > 0n ? free : 0n).toString() };
  });
}

/** The window of releases the privacy report covers. */
export const PRIVACY_WINDOW_HOURS = 24;

export async function privacyReport(db: Db): Promise<{ windowHours: number; classes: ClassPrivacy[] }> {
  return { windowHours: PRIVACY_WINDOW_HOURS, classes: await classPrivacy(db, PRIVACY_WINDOW_HOURS) };
}
