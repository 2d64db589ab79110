import type { HushConfig } from '../config/config.ts';
import type { Db } from '../store/db.ts';
import { publishDepositRecordKey, publishTreasuryWallets } from '../store/treasury-wallets-store.ts';
import { DepositIdentityMint } from '../treasury/deposit-identity-mint.ts';
import { loadRetiredSeeds, loadTreasurySeed, TreasuryKeys } from '../treasury/treasury-keys.ts';
import { ConfigError } from '../config/config-error.ts';
import { Treasury } from '../treasury/treasury.ts';
import { PublishedTreasuryWallets, publishedWalletsOf, type TreasuryWallets } from '../treasury/treasury-wallets.ts';
import type { Closers } from './closers.ts';
import type { AlertFn } from './start-log.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

/** What a role holds: the signing parts (roles worker and all) or the public addresses only (role api). */
export interface RoleKeys {
  /** The treasury keys: roles worker and all only; null in role api, which never loads the seed. */
  keys: TreasuryKeys | null;
  /** The signing treasury: roles worker and all only. */
  signing: Treasury | null;
  /** The public addresses of Hush's wallets (role api: as a worker published them). */
  treasury: TreasuryWallets;
  /** Fills the pool of deposit identities (roles worker and all). */
  mint: DepositIdentityMint | null;
}

/**
 * Key custody (docs/spec.md §10): only the roles that settle load the seed. Role api reads the wallets'
 * public addresses and deposit identities a worker wrote to the store, and has a quote key of its own.
 */
export async function buildKeys(config: HushConfig, db: Db, alert: AlertFn, closers: Closers, clock: Clock, random: Random, threads = true): Promise<RoleKeys> {
  if (config.role === 'api') return { keys: null, signing: null, treasury: new PublishedTreasuryWallets(db), mint: null };
  const keys = new TreasuryKeys(loadTreasurySeed({ treasurySeed: config.treasurySeed, dataDir: config.dataDir }));
  const retiredKeys = loadRetiredSeeds(config).map((s) => new TreasuryKeys(s));
  const signing = await Treasury.withRetired(keys, retiredKeys, config.assets);
  // A seed both current and retired (a rotation interrupted between its two writes) is simply current.
  signing.retired = signing.retired.filter((t) => t.feePayer.address !== signing.feePayer.address);
  const published = await publishTreasuryWallets(db, publishedWalletsOf(signing), new Set(signing.retired.map((t) => t.feePayer.address)));
  if ('refused' in published) throw new ConfigError(`treasury seed refused: ${published.refused}`);
  await publishDepositRecordKey(db, signing.depositRecordKey);
  if (published.rotated) {
    alert('treasury_rotated', { feePayer: signing.feePayer.address }, 'the treasury seed was rotated: new orders take the new seed, the retired wallets drain into its own once nothing in flight needs them (docs/operations.md "Rotate the treasury seed"); APIs must restart to read the new addresses');
  }
  const mint = new DepositIdentityMint(db, keys.depositMasterKey, config.assets, clock, random, { target: config.depositIdentityTarget, threaded: threads }).start();
  closers.add(() => mint.stop());
  return { keys, signing, treasury: signing, mint };
}
