import type { HushConfig } from '../config/config.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { Inventory } from '../services/inventory.ts';
import type { Db } from '../store/db.ts';
import { fundFromLocalFaucet, isLocalFaucetChain, treasuryReport } from '../treasury/funding.ts';
import type { TreasuryWallets } from '../treasury/treasury-wallets.ts';
import { retryTransient } from './start-retry.ts';
import type { Log } from './start-log.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';
import type { FaultPoints } from '../support/fault-points.ts';

/**
 * A worker's chain work at start (roles worker and all): tops the treasury up on a chain with the local
 * faucet, else reports what is missing. Waits out a flaky chain (backoff, /readyz 503 meanwhile): never an
 * exit. Returns whether the chain has the faucet (asked once: it also decides the worker's rebalancer).
 */
export async function fundAtStart(config: HushConfig, db: Db, chain: SolanaChain, treasury: TreasuryWallets, inventory: Inventory, log: Log, clock: Clock, random: Random, faults: FaultPoints): Promise<boolean> {
  const retry = { log: (m: string) => log(`start: ${m}`), clock, random };
  const faucet = await retryTransient('asking the chain for its faucet', () => isLocalFaucetChain(chain), retry);
  // Only a worker moves money, so only a worker tops the treasury up (on a chain with the local faucet).
  // On the faucet chain a wallet above half its target is left alone on purpose: only a failed top-up is news.
  const missing = await retryTransient('funding the treasury', () => faucet
    ? fundFromLocalFaucet(db, chain, treasury, config.assets, clock, faults).then((r) => r.filter((x) => BigInt(x.missing) * 2n >= BigInt(x.target)))
    : treasuryReport(chain, treasury, config.assets).then((r) => r.filter((x) => x.missing !== '0')), retry);
  for (const m of missing) log(`treasury: ${m.role} ${m.wallet} (${m.assetId}) holds ${m.balance}, target ${m.target}: fund it (npm run admin -- treasury)`);
  // The pools as funded, before anything is quoted from them.
  await inventory.refresh().catch(() => {});
  return faucet;
}
