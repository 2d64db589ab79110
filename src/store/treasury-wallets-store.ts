import type { Address } from '@solana/kit';
import type { Db, Queryable } from './db.ts';

/** The public face of one of Hush's wallets: no key, only where it is. */
export interface PublishedWallet {
  role: 'feepayer' | 'pool';
  /** 'sol' for the fee payer. */
  assetId: string;
  index: number;
  address: Address;
  /** Where its funds sit: the wallet for SOL, its associated token account otherwise. */
  holding: Address;
}

/**
 * Publishes the wallets of the seed a worker holds, compare-and-set: nothing is written when the store
 * already holds exactly this set. Another set replaces it in one transaction; when its fee payer differs
 * (another seed: `replaced`), the deposit identities derived from that seed go with it, since no worker of
 * this seed could sweep them.
 */
export async function publishTreasuryWallets(db: Db, wallets: readonly PublishedWallet[]): Promise<{ changed: boolean; replaced: boolean }> {
  const key = (w: PublishedWallet) => `${w.role}/${w.assetId}/${w.index}/${w.address}/${w.holding}`;
  const want = wallets.map(key).sort().join('\n');
  return db.transaction(async (tx) => {
    // One publisher at a time (several workers start together); readers are not blocked.
    await tx.query('LOCK TABLE treasury_wallets IN SHARE ROW EXCLUSIVE MODE');
    const had = await readTreasuryWallets(tx);
    if (had.map(key).sort().join('\n') === want) return { changed: false, replaced: false };
    const feePayer = (ws: readonly PublishedWallet[]) => ws.find((w) => w.role === 'feepayer')?.address;
    const replaced = had.length > 0 && feePayer(had) !== feePayer(wallets);
    await tx.query('DELETE FROM treasury_wallets');
    if (replaced) await tx.query('DELETE FROM deposit_identities');
    for (const w of wallets) {
      await tx.query('INSERT INTO treasury_wallets (role, asset_id, wallet_index, address, holding, published_at) VALUES ($1, $2, $3, $4, $5, now())', [
        w.role, w.assetId, w.index, w.address, w.holding,
      ]);
    }
    return { changed: true, replaced };
  });
}

export async function readTreasuryWallets(db: Queryable): Promise<PublishedWallet[]> {
  const { rows } = await db.query<{ role: 'feepayer' | 'pool'; asset_id: string; wallet_index: number; address: string; holding: string }>(
    'SELECT role, asset_id, wallet_index, address, holding FROM treasury_wallets ORDER BY role, asset_id, wallet_index',
  );
  return rows.map((r) => ({ role: r.role, assetId: r.asset_id, index: Number(r.wallet_index), address: r.address as Address, holding: r.holding as Address }));
}
