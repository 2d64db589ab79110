/**
 * What this machine charges for waking up: the same fixed piece of JavaScript (JSON, a sort, a SHA-256, a
 * Map: a request's kind of work, ~0.1 ms) run back to back, and one piece every 2 ms with the thread asleep
 * between. At a steady rate a service's event loop does the latter, so its CPU per request includes the
 * wake-ups and whatever the sleep cost its caches; a closed loop does the former. bench:api prints both at its
 * start, so a paced order's CPU can be read against the machine it ran on. process.cpuUsage counts the whole
 * process (the collector's helper threads too), as the bench's per-order CPU does.
 *
 *   node --import tsx bench/support/wake-cost.ts     (prints one JSON line)
 */
import { execFile } from 'node:child_process';
import { createHash } from 'node:crypto';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';

const BODY = JSON.stringify({ note: 'x'.repeat(300), items: Array.from({ length: 40 }, (_, i) => ({ i, name: `v${i}`, n: i * 1.5 })) });
let sink = 0;

function piece(): void {
  for (let k = 0; k < 6; k++) {
    const o = JSON.parse(BODY) as { items: { name: string; n: number }[] };
    o.items.sort((a, b) => b.n - a.n);
    const text = JSON.stringify(o);
    sink += createHash('sha256').update(text).digest()[0]!;
    const byName = new Map<string, number>();
    for (const e of o.items) byName.set(e.name, e.n);
    sink += byName.size;
  }
}

const cpuUs = () => {
  const c = process.cpuUsage();
  return c.user + c.system;
};

/** CPU µs per piece: back to back (gapMs null) or one piece per `gapMs` timer. */
async function perPiece(n: number, gapMs: number | null): Promise<number> {
  const start = cpuUs();
  for (let i = 0; i < n; i++) {
    piece();
    if (gapMs !== null) await new Promise((r) => setTimeout(r, gapMs));
  }
  return (cpuUs() - start) / n;
}

export interface WakeCost {
  backToBackUs: number;
  pacedUs: number;
  gapMs: number;
}

export async function wakeCost(gapMs = 2): Promise<WakeCost> {
  for (let i = 0; i < 300; i++) piece();
  const back: number[] = [];
  const paced: number[] = [];
  // Interleaved, the lower of three each: the machine's own noise only ever adds.
  for (let r = 0; r < 3; r++) {
    back.push(await perPiece(1000, null));
    paced.push(await perPiece(500, gapMs));
  }
  if (sink === 0) throw new Error('unreachable');
  return { backToBackUs: Math.min(...back), pacedUs: Math.min(...paced), gapMs };
}

/** The line bench:api prints: measured in a process of its own, before any load (its heap and JIT are its own). */
export async function wakeCostLine(): Promise<string> {
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url)]);
  const c = JSON.parse(stdout) as WakeCost;
  return `this machine's wake-up cost: a fixed piece of work takes ${c.backToBackUs.toFixed(0)} µs of CPU back to back, ${c.pacedUs.toFixed(0)} µs with the thread asleep ${c.gapMs} ms between pieces (×${(c.pacedUs / c.backToBackUs).toFixed(2)}): what a steady rate can add to a request's CPU here`;
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(JSON.stringify(await wakeCost()));
