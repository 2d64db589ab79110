import { createHook } from 'node:async_hooks';
const stacks = new Map<number, string>();
createHook({ init(id, type) { if (type === 'Timeout') stacks.set(id, new Error().stack!.split('\n').slice(2, 12).join('\n')); }, destroy(id) { stacks.delete(id); } }).enable();
const { openDb } = await import('../src/store/open-db.ts');
const { systemClock } = await import('../src/support/clock.ts');
const db = await openDb({ dataDir: null, clock: systemClock });
await db.query('SELECT 1');
await db.close();
setTimeout(() => { for (const s of stacks.values()) console.log('---\n' + s); process.exit(0); }, 2000).unref();
