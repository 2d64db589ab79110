import { openDb } from '../src/store/open-db.ts';
import { systemClock } from '../src/support/clock.ts';
const cpu = () => { const u = process.cpuUsage(); return (u.user + u.system) / 1000; };
for (let i = 0; i < 4; i++) {
  const a = cpu(); const t = performance.now();
  const db = await openDb({ dataDir: null, clock: systemClock });
  const b = cpu();
  await db.query('SELECT 1');
  await db.close();
  console.log(`open ${i}: ${Math.round(b - a)} ms CPU, ${Math.round(performance.now() - t)} ms wall, close ${Math.round(cpu() - b)}`);
}
const a = cpu();
const db = await openDb({ dataDir: null, clock: systemClock });
const r = await db.query(`SELECT string_agg(quote_ident(tablename), ', ') AS t FROM pg_tables WHERE schemaname = current_schema()`);
console.log(r.rows);
const b = cpu();
for (let i=0;i<4;i++){ const c=cpu(); await db.query(`TRUNCATE ${(r.rows[0] as any).t} RESTART IDENTITY CASCADE`); await db.query('DISCARD ALL'); console.log('truncate+discard', Math.round(cpu()-c)); }
await db.close();
