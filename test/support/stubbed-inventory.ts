/**
 * An Inventory for unit tests of its own logic: the chain read stubbed with fixed pool balances (four USDC
 * pools of USDC_PER_POOL, a fee payer with lamports to spare, or a failure while `chain.failing`), the store
 * with the test's own answer per statement.
 */
import { randomBytes } from 'node:crypto';
import { loadAssets } from '../../src/config/assets.ts';
import { liquiditySettings } from '../../src/config/liquidity-settings.ts';
import { Inventory } from '../../src/services/inventory.ts';
import type { Db } from '../../src/store/db.ts';
import { systemClock, type Clock } from '../../src/support/clock.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { Treasury } from '../../src/treasury/treasury.ts';

export const USDC_PER_POOL = 100_000_000n;
const assets = loadAssets();

export async function stubbedInventory(query: (sql: string) => Promise<{ rows: unknown[] }>, opts: { everyMs?: number; clock?: Clock } = {}) {
  const treasury = await Treasury.load(new TreasuryKeys(randomBytes(32)), assets);
  const db = { kind: 'pglite', query } as unknown as Db;
  const inv = new Inventory(db, {} as never, treasury, assets, opts.everyMs ?? 60_000, liquiditySettings({}), opts.clock ?? systemClock);
  const balances = new Map<string, { exists: boolean; lamports: bigint; tokenAmount: bigint | null }>();
  balances.set(treasury.feePayer.address, { exists: true, lamports: 1_000_000_000_000n, tokenAmount: null });
  for (const p of treasury.pools('usdc')) balances.set(p.holding, { exists: true, lamports: 2_039_280n, tokenAmount: USDC_PER_POOL });
  const chain = { failing: false };
  (inv as unknown as { view: { balances: () => Promise<typeof balances> } }).view = {
    balances: async () => {
      if (chain.failing) throw new Error('chain unreachable');
      return balances;
    },
  };
  return { inv, chain, total: 4n * USDC_PER_POOL };
}
