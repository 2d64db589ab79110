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

/** What publishing the wallets did, or why it refused (a seed the store knows that this worker does not hold). */
export type PublishOutcome =
  | { changed: boolean; rotated: boolean }
  | { refused: string };

/**
 * Publishes the wallets of the seed a worker holds, compare-and-set: nothing is written when the store
 * already holds exactly this set. Another seed's set (its fee payer differs) is a rotation, allowed only when
 * this worker holds that seed as retired (`retiredFeePayers`): its wallets move to retired_wallets, where the
 * worker drains them (docs/operations.md "Rotate the treasury seed"), and the unclaimed deposit identities it
 * derived go, since new orders take the new seed's. Refused: a set of a seed this worker does not hold (its
 * funds would be stranded and reconcile blind to them), a seed retired earlier, or undrained wallets of a
 * retired seed this worker does not hold.
 */
export async function publishTreasuryWallets(db: Db, wallets: readonly PublishedWallet[], retiredFeePayers: ReadonlySet<string> = new Set()): Promise<PublishOutcome> {
  const key = (w: PublishedWallet) => `${w.role}/${w.assetId}/${w.index}/${w.address}/${w.holding}`;
  const want = wallets.map(key).sort().join('\n');
  const feePayer = (ws: readonly PublishedWallet[]) => ws.find((w) => w.role === 'feepayer')?.address;
  const mine = feePayer(wallets)!;
  return db.transaction(async (tx) => {
    // One publisher at a time (several workers start together); readers are not blocked.
    await tx.query('LOCK TABLE treasury_wallets IN SHARE ROW EXCLUSIVE MODE');
    const retired = await readRetiredWallets(tx);
    const was = retired.find((r) => r.feePayer === mine);
    if (was) return { refused: `this worker's treasury seed (fee payer ${mine}) was retired at ${was.retiredAt.toISOString()}; start it with the current seed, this one in TREASURY_RETIRED_SEEDS` };
    const orphans = [...new Set(retired.filter((r) => r.drainedAt === null && !retiredFeePayers.has(r.feePayer)).map((r) => r.feePayer))];
    if (orphans.length > 0) return { refused: `the retired seed${orphans.length > 1 ? 's' : ''} of fee payer ${orphans.join(', ')} still hold${orphans.length > 1 ? '' : 's'} funds to drain and this worker does not hold ${orphans.length > 1 ? 'them' : 'it'}: add ${orphans.length > 1 ? 'them' : 'it'} to TREASURY_RETIRED_SEEDS` };
    const had = await readTreasuryWallets(tx);
    if (had.map(key).sort().join('\n') === want) return { changed: false, rotated: false };
    const old = feePayer(had);
    const rotated = had.length > 0 && old !== mine;
    if (rotated && !retiredFeePayers.has(old!)) {
      return { refused: `the store's treasury belongs to another seed (fee payer ${old}): to rotate, start with the new seed in TREASURY_SEED and the old one in TREASURY_RETIRED_SEEDS (docs/operations.md "Rotate the treasury seed")` };
    }
    if (rotated) {
      await tx.query(
        `INSERT INTO retired_wallets (holding, role, asset_id, wallet_index, address, fee_payer, retired_at)
         SELECT holding, role, asset_id, wallet_index, address, $1, now() FROM treasury_wallets ON CONFLICT (holding) DO NOTHING`,
        [old],
      );
      await tx.query('DELETE FROM deposit_identities');
    }
    await tx.query('DELETE FROM treasury_wallets');
    for (const w of wallets) {
      await tx.query('INSERT INTO treasury_wallets (role, asset_id, wallet_index, address, holding, published_at) VALUES ($1, $2, $3, $4, $5, now())', [
        w.role, w.assetId, w.index, w.address, w.holding,
      ]);
    }
    return { changed: true, rotated };
  });
}

/** A wallet of a retired seed. */
export interface RetiredWallet extends PublishedWallet {
  feePayer: Address;
  retiredAt: Date;
  drainedAt: Date | null;
}

export async function readRetiredWallets(db: Queryable): Promise<RetiredWallet[]> {
  const { rows } = await db.query<{ role: 'feepayer' | 'pool'; asset_id: string; wallet_index: number; address: string; holding: string; fee_payer: string; retired_at: Date | string; drained_at: Date | string | null }>(
    'SELECT role, asset_id, wallet_index, address, holding, fee_payer, retired_at, drained_at FROM retired_wallets ORDER BY retired_at, role DESC, asset_id, wallet_index',
  );
  return rows.map((r) => ({
    role: r.role, assetId: r.asset_id, index: Number(r.wallet_index), address: r.address as Address, holding: r.holding as Address,
    feePayer: r.fee_payer as Address, retiredAt: new Date(r.retired_at), drainedAt: r.drained_at === null ? null : new Date(r.drained_at),
  }));
}

/** Compare-and-set: a retired wallet the chain shows empty, with nothing of it in flight. */
export async function markDrained(db: Queryable, holding: string): Promise<boolean> {
  const { rows } = await db.query('UPDATE retired_wallets SET drained_at = now() WHERE holding = $1 AND drained_at IS NULL RETURNING 1', [holding]);
  return rows.length > 0;
}

export async function readTreasuryWallets(db: Queryable): Promise<PublishedWallet[]> {
  const { rows } = await db.query<{ role: 'feepayer' | 'pool'; asset_id: string; wallet_index: number; address: string; holding: string }>(
    'SELECT role, asset_id, wallet_index, address, holding FROM treasury_wallets ORDER BY role, asset_id, wallet_index',
  );
  return rows.map((r) => ({ role: r.role, assetId: r.asset_id, index: Number(r.wallet_index), address: r.address as Address, holding: r.holding as Address }));
}

/** The public key deposits' records are sealed to (docs/decisions.md "The deposit carries its order's record"). */
export async function publishDepositRecordKey(db: Queryable, publicKey: Uint8Array): Promise<void> {
  const b64 = Buffer.from(publicKey).toString('base64');
  await db.query(
    `INSERT INTO deposit_record_key (id, public_key, published_at) VALUES (1, $1, now())
     ON CONFLICT (id) DO UPDATE SET public_key = EXCLUDED.public_key, published_at = now() WHERE deposit_record_key.public_key <> EXCLUDED.public_key`,
    [b64],
  );
}

export async function readDepositRecordKey(db: Queryable): Promise<Uint8Array | null> {
  const { rows } = await db.query<{ public_key: string }>('SELECT public_key FROM deposit_record_key WHERE id = 1');
  return rows[0] ? new Uint8Array(Buffer.from(rows[0].public_key, 'base64')) : null;
}
