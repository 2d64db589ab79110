import { openDb } from '../src/store/open-db.ts';
import { systemClock } from '../src/support/clock.ts';
const db = await openDb({ dataDir: null, clock: systemClock });
await db.query('SELECT 1');
if (process.argv[2] !== 'noclose') await db.close();
console.log('closed', (process as any).getActiveResourcesInfo());
setTimeout(() => console.log('later', (process as any).getActiveResourcesInfo()), 3000).unref();
