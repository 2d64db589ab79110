/**
 * npm run treasury:rotate — rotates the treasury seed of a deployment that keeps it in DATA_DIR/treasury-seed
 * (docs/operations.md "Rotate the treasury seed"). With Hush stopped: the current seed joins the retired ones
 * (DATA_DIR/treasury-seed-retired), a new one is generated; the next start drains the old wallets into the new.
 * A deployment with TREASURY_SEED rotates by its environment instead, which this names.
 */
import { join } from 'node:path';
import { storeSettings } from '../config/store-settings.ts';
import { lockDirectory } from '../store/directory-lock.ts';
import { rotateSeedFile } from '../treasury/seed-rotation.ts';

if (process.env.TREASURY_SEED) {
  console.error(
    'treasury:rotate: TREASURY_SEED is set, so the seed lives in your environment, not in DATA_DIR. Rotate there: generate a new seed ' +
      '(openssl rand -hex 32), stop every worker, start them with TREASURY_SEED=<new> and TREASURY_RETIRED_SEEDS=<old>[,<older>…], ' +
      'and keep the old one there until the log says every retired wallet is drained (docs/operations.md "Rotate the treasury seed").',
  );
  process.exit(1);
}
const { dataDir, databaseUrl } = storeSettings(process.env);
// The embedded store's lock: held while Hush runs on this DATA_DIR, so a rotation under a running Hush is refused.
const release = databaseUrl ? () => {} : lockDirectory(`${join(dataDir, 'pgdata')}.lock`, `Hush's store in ${dataDir} (stop Hush before rotating)`);
try {
  const { retired } = rotateSeedFile(dataDir);
  console.log(`treasury:rotate: a new seed in ${join(dataDir, 'treasury-seed')}; ${retired} retired seed${retired === 1 ? '' : 's'} in ${join(dataDir, 'treasury-seed-retired')}.`);
  console.log('Start Hush (every worker on this DATA_DIR): new orders take the new seed, the old wallets drain into it once nothing in flight needs them.');
  if (databaseUrl) console.log('DATABASE_URL is set: make sure no worker was running on this DATA_DIR while the seed changed.');
} catch (e) {
  console.error(`treasury:rotate: ${(e as Error).message}`);
  process.exitCode = 1;
} finally {
  release();
}
