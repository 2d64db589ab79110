/**
 * Reads a `.cpuprofile` (BENCH_PROFILE_WINDOW) as a timeline and prints the event loop's long busy stretches:
 * the stalls a latency tail waits behind, which a profile's totals hide among the short ones. A stretch is a run
 * of samples with JavaScript, native work or the collector on the thread and no idle sample between them.
 *
 *   node --import tsx bench/support/profile-stalls.ts <file.cpuprofile> [threshold ms, 10]
 *
 * Written by hand: DevTools and speedscope draw the timeline but neither lists its long stretches with what
 * filled them, which is the question here.
 */
import { readFileSync } from 'node:fs';
import { basename } from 'node:path';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface CpuProfile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
  startTime: number;
}

const [file, thresholdArg] = process.argv.slice(2);
if (!file) {
  console.error('usage: profile-stalls.ts <file.cpuprofile> [threshold ms]');
  process.exit(2);
}
const thresholdMs = Number(thresholdArg ?? 10);
const profile = JSON.parse(readFileSync(file, 'utf8')) as CpuProfile;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parent = new Map<number, number>();
for (const n of profile.nodes) for (const c of n.children ?? []) parent.set(c, n.id);
const label = (n: ProfileNode) => {
  const { functionName, url, lineNumber } = n.callFrame;
  return url ? `${functionName || '(anonymous)'} ${basename(url)}:${lineNumber + 1}` : functionName;
};
/** The frame nearest the root that is Hush's own code (src/), else the sample's own frame: what the stall was doing. */
function owner(id: number): string {
  let ownFrame: ProfileNode | undefined;
  for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
    const n = byId.get(at)!;
    if (n.callFrame.url.includes('/src/')) ownFrame = n;
  }
  return ownFrame ? label(ownFrame) : label(byId.get(id)!);
}

interface Stretch {
  startMs: number;
  ms: number;
  self: Map<string, number>;
  owners: Map<string, number>;
}
const stretches: Stretch[] = [];
let current: Stretch | undefined;
let t = profile.startTime;
let busyMs = 0;
const wallMs = profile.timeDeltas.reduce((a, b) => a + b, 0) / 1000;
const add = (m: Map<string, number>, k: string, v: number) => m.set(k, (m.get(k) ?? 0) + v);
for (let i = 0; i < profile.samples.length; i++) {
  t += profile.timeDeltas[i]!;
  // A sample stands for the time until the next one.
  const ms = (profile.timeDeltas[i + 1] ?? 0) / 1000;
  const node = byId.get(profile.samples[i]!)!;
  if (node.callFrame.functionName === '(idle)') {
    if (current) stretches.push(current);
    current = undefined;
    continue;
  }
  current ??= { startMs: (t - profile.startTime) / 1000, ms: 0, self: new Map(), owners: new Map() };
  current.ms += ms;
  busyMs += ms;
  add(current.self, label(node), ms);
  add(current.owners, owner(node.id), ms);
}
if (current) stretches.push(current);

const long = stretches.filter((s) => s.ms >= thresholdMs);
const longMs = long.reduce((a, s) => a + s.ms, 0);
const top = (m: Map<string, number>, n: number, of: number) =>
  [...m].sort((a, b) => b[1] - a[1]).slice(0, n).map(([k, v]) => `${((100 * v) / of).toFixed(0).padStart(3)} %  ${k}`);
console.log(`${file}: ${wallMs.toFixed(0)} ms profiled, thread busy ${busyMs.toFixed(0)} ms (${((100 * busyMs) / wallMs).toFixed(1)} %) in ${stretches.length} stretches`);
console.log(`stretches of ${thresholdMs} ms or more: ${long.length}, ${longMs.toFixed(0)} ms in all, longest ${Math.max(0, ...long.map((s) => s.ms)).toFixed(1)} ms`);
const all = { self: new Map<string, number>(), owners: new Map<string, number>() };
for (const s of long) {
  for (const [k, v] of s.self) add(all.self, k, v);
  for (const [k, v] of s.owners) add(all.owners, k, v);
}
console.log('\nwhat the long stretches spent, by outermost frame of Hush (src/), else the sampled frame:');
for (const line of top(all.owners, 15, longMs)) console.log(`  ${line}`);
console.log('\nby sampled frame (self time):');
for (const line of top(all.self, 15, longMs)) console.log(`  ${line}`);
console.log('\nthe ten longest:');
for (const s of [...long].sort((a, b) => b.ms - a.ms).slice(0, 10)) {
  console.log(`  at ${s.startMs.toFixed(0)} ms, ${s.ms.toFixed(1)} ms: ${top(s.owners, 3, s.ms).map((l) => l.trim()).join(' · ')}`);
}
