/**
 * Reads a `.cpuprofile` (BENCH_PROFILE_WINDOW) and prints the profiled thread's busy time per request by what
 * ran it: PGlite's WebAssembly, PGlite's JavaScript, the socket writes, file system calls, the collector,
 * Fastify, Node's own modules, Hush's layers (src/<layer>), other packages. Where a profile's totals by function
 * spread over hundreds of small frames, this says how much of a request is the store and how much is HTTP.
 *
 *   node --import tsx bench/support/profile-categories.ts <file.cpuprofile> [requests in the window, 1]
 *
 * A sample counts for its own frame (self time). Written by hand for the same reason as profile-stalls.ts:
 * DevTools and speedscope group by function or by file, not by the package or layer a frame belongs to.
 */
import { readFileSync } from 'node:fs';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string };
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const SYSCALLS = new Set(['fstat', 'lstat', 'stat', 'read', 'write', 'readSync', 'writeSync', 'fsync', 'open', 'close', 'copyFile', 'ftruncate']);
const SOCKET_WRITES = new Set(['writev', 'writeBuffer', 'writeUtf8String', 'writeLatin1String', 'writeAsciiString']);

/** What a sampled frame belongs to. */
export function categoryOf({ functionName: f, url }: ProfileNode['callFrame']): string {
  if (f === '(idle)') return 'idle';
  if (f === '(garbage collector)') return 'garbage collector';
  if (f.startsWith('wasm-function')) return 'PGlite WebAssembly';
  if (url.includes('@electric-sql/pglite')) return 'PGlite JavaScript';
  if (SOCKET_WRITES.has(f)) return 'socket writes';
  if (SYSCALLS.has(f)) return 'file system calls';
  if (url.includes('/src/')) return `Hush ${url.split('/src/')[1]!.split('/')[0]}`;
  if (url.includes('/node_modules/')) {
    const pkg = url.split('/node_modules/').pop()!.split('/');
    const name = pkg[0]!.startsWith('@') ? `${pkg[0]}/${pkg[1]}` : pkg[0]!;
    return /^(fastify|@fastify\/|find-my-way|avvio|fast-json-stringify|light-my-request|secure-json-parse)/.test(name) ? 'Fastify and its parts' : `package ${name}`;
  }
  if (url.startsWith('node:')) return `Node ${url.slice(5).split('/')[0]}`;
  return url === '' ? `native ${f}` : `other ${url.split('/').pop()}`;
}

function main(): void {
  const [file, requestsArg] = process.argv.slice(2);
  if (!file) {
    console.error('usage: profile-categories.ts <file.cpuprofile> [requests in the window]');
    process.exit(2);
  }
  const requests = Math.max(1, Number(requestsArg ?? 1));
  const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;
  const frames = new Map(profile.nodes.map((n) => [n.id, n.callFrame]));
  const totals = new Map<string, number>();
  let wallUs = 0;
  for (let i = 0; i < profile.samples.length; i++) {
    // A sample stands for the time until the next one.
    const us = profile.timeDeltas[i + 1] ?? 0;
    const category = categoryOf(frames.get(profile.samples[i]!)!);
    totals.set(category, (totals.get(category) ?? 0) + us);
    wallUs += us;
  }
  const busyUs = wallUs - (totals.get('idle') ?? 0);
  totals.delete('idle');
  console.log(`${file}: ${(wallUs / 1000).toFixed(0)} ms profiled, busy ${(busyUs / 1000).toFixed(0)} ms, ${(busyUs / requests).toFixed(0)} µs per request (${requests} requests)`);
  for (const [category, us] of [...totals].sort((a, b) => b[1] - a[1]).slice(0, 20)) {
    console.log(`  ${(us / requests).toFixed(0).padStart(6)} µs  ${((100 * us) / busyUs).toFixed(1).padStart(5)} %  ${category}`);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) main();
