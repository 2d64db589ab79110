import { PGlite } from '@electric-sql/pglite';
const pg = new PGlite();
await pg.waitReady;
for (const s of process.argv.slice(2)) await pg.exec(s);
const t0 = Date.now();
process.on('exit', () => console.log('exit after', Date.now() - t0, 'ms'));
