/**
 * For an in-process Hush of role api with a store of its own (no worker beside it): the test plays the
 * worker's key-holding part (docs/spec.md §10), publishing the treasury's public addresses and keeping the
 * deposit identity pool filled from the seed, which the API process itself never receives.
 */
import type { AssetRegistry } from '../../src/config/assets.ts';
import type { Db } from '../../src/store/db.ts';
import { publishDepositRecordKey, publishTreasuryWallets } from '../../src/store/treasury-wallets-store.ts';
import { DepositIdentityMint } from '../../src/treasury/deposit-identity-mint.ts';
import { Treasury } from '../../src/treasury/treasury.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { publishedWalletsOf } from '../../src/treasury/treasury-wallets.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

export function workerCustodyStandIn(seedHex: string, assets: AssetRegistry, target?: number) {
  let mint: DepositIdentityMint | null = null;
  return {
    /** startHush's onReady: runs on the API's own store once it is open, before the start completes. */
    async onReady({ db }: { db: Db }): Promise<void> {
      const keys = new TreasuryKeys(new Uint8Array(Buffer.from(seedHex, 'hex')));
      const treasury = await Treasury.load(keys, assets);
      await publishTreasuryWallets(db, publishedWalletsOf(treasury));
      await publishDepositRecordKey(db, treasury.depositRecordKey);
      // As many identities as the deployment keeps (HUSH_DEPOSIT_IDENTITY_TARGET), not the production default.
      mint = new DepositIdentityMint(db, keys.depositMasterKey, assets, systemClock, systemRandom, target === undefined ? {} : { target }).start();
      await mint.filled();
    },
    async stop(): Promise<void> {
      await mint?.stop();
    },
  };
}
