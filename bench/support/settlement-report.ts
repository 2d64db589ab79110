/**
 * bench:settlement's printout: one row per figure with its target or goal and PASS/MISS, so a run reads as
 * a checklist. What each figure means is in bench/settlement-throughput.ts.
 */
import type { RpcCounts } from './rpc-cost.ts';
import { overheadLine, perUnit, totalCalls, type proxyOverhead } from './rpc-cost.ts';
import type { ClassRun } from './settlement-class-run.ts';
import type { OffMenuRun } from './settlement-off-menu-run.ts';
import { pct } from './stats.ts';

const ms = (x: number) => `${x.toFixed(0)} ms`;
const verdict = (ok: boolean) => (ok ? 'PASS' : 'MISS');

/** Every check printed, for the closing tally. */
const checks: boolean[] = [];

export function row(label: string, value: string, target = '', ok?: boolean): void {
  if (ok !== undefined) checks.push(ok);
  console.log(`  ${label.padEnd(52)} ${value.padEnd(36)} ${target.padEnd(16)} ${ok === undefined ? '' : verdict(ok)}`);
}

const p50p99 = (xs: number[], f: (x: number) => string = ms) => `p50 ${f(pct(xs, 0.5))}, p99 ${f(pct(xs, 0.99))}`;

export function printHeader(h: { orders: number; classSize: number; symbol: string; slotMs: number; engine: string; menu: string; spreadS: { min: number; max: number }; load: number; cores: number; screened: number }): void {
  console.log(
    `bench:settlement  production configuration: privacy on, menu ${h.menu}, class release, spread ${h.spreadS.min}-${h.spreadS.max} s, ` +
      `screening ${h.screened > 0 ? `on (a list of ${h.screened} addresses)` : 'off (BENCH_SCREENING_LIST=0)'}; ` +
      `${h.orders} + ${h.classSize} ${h.symbol} orders, slot ${h.slotMs} ms, store ${h.engine}; chain, Hush and the partner in 3 processes`,
  );
  console.log(`  signing: Ed25519 through native WebCrypto (node:crypto, OpenSSL); load average at start ${h.load.toFixed(1)} on ${h.cores} cores`);
  row('', 'measured', 'target / goal');
}

export function printOffMenuRun(
  run: OffMenuRun,
  base: { perSecond: number; seconds: number; cpuMs: number },
  floored: { perSecond: number; seconds: number; sentToConfirmedMs: number[]; visibleToSentMs: number[] },
  o: { orders: number; amount: string; slotMs: number; pollMs: number; workers: number },
): void {
  console.log(
    `(a) ${o.orders} orders of ${o.amount}, an amount off the menu: not private, paid at the policy's floor (due two slots after the deposit confirms); ${run.standard} of ${o.orders} status records say standard`,
  );
  row('raw loop: buildPayout → send → confirmed, no deposit', `${base.perSecond.toFixed(1)} payouts/s (${base.seconds.toFixed(2)} s)`);
  row('raw loop at the floor: deposits → +2 slots → payouts', `${floored.perSecond.toFixed(1)} payouts/s (${floored.seconds.toFixed(2)} s)`);
  row('    its deposit seen confirmed → payout sent', p50p99(floored.visibleToSentMs));
  row('    its payout sent → seen confirmed', p50p99(floored.sentToConfirmedMs));
  row('Hush: deposits submitted → all completed', `${run.perSecond.toFixed(1)} orders/s (${run.seconds.toFixed(2)} s)`);
  const ratio = run.perSecond / floored.perSecond;
  // Two workers share one store and each reads every deposit's origin: the issue holds that run to 0.8.
  const target = o.workers > 1 ? 0.8 : 0.9;
  row('    ratio Hush / raw loop at the floor', ratio.toFixed(2), `≥ ${target.toFixed(2)}`, ratio >= target);
  // The raw loop without deposits cannot be matched: no order of Hush's completes sooner than 4 slots after its
  // deposit was sent (its landing, its confirmation, the floor's two slots, the payout's landing), a wait that loop
  // never has (docs/performance.md, "Settlement at the raw loop's pace").
  const floorS = (4 * o.slotMs) / 1000;
  row('    ratio Hush / raw loop without deposits', (run.perSecond / base.perSecond).toFixed(2), `≤ ${Math.min(1, base.seconds / floorS).toFixed(2)} possible`);
  const slotP50 = pct(run.slots, 0.5);
  const slotP99 = pct(run.slots, 0.99);
  // The issue asked p50 2 / p99 3 from the deposit's landing slot. The floor counts two slots from the deposit's
  // confirmation, one slot after it lands, and a payout sent lands in the slot after: 1 + 2 + 1 = 4 at the
  // earliest on this chain, and the zero-delay path it replaced measured 3 / 3 (docs/decisions.md, "One
  // settlement path"). The goal held here is that arithmetic: p50 4, p99 5.
  row('deposit landed → payout landed, slots p50', String(slotP50), 'the floor: 4', slotP50 <= 4);
  row('                                     slots p99', String(slotP99), 'the floor: p99 5', slotP99 <= 5);
  const slots = (x: number) => (x / o.slotMs).toFixed(1);
  row('deposit visible at confirmed → completed', p50p99(run.msFromVisible));
  row('    same, in slots', p50p99(run.msFromVisible, slots));
  row('history deposit_confirmed → completed', p50p99(run.msFromRecorded));
  row("Hush's overhead: payout due → recorded & sent, p50", `${ms(pct(run.dueToSentMs, 0.5))} (min ${ms(Math.min(...run.dueToSentMs))})`);
  const dueP99 = pct(run.dueToSentMs, 0.99);
  row('                                             p99', ms(dueP99), '≤ 100 ms', dueP99 <= 100);
  row('deposit visible → payout recorded & sent (floor incl.)', p50p99(run.overheadMs));
  row('orders paid more than once (landed payouts per part)', String(run.paidTwice), '0', run.paidTwice === 0);
  console.log(`  (visibility polled every ${o.pollMs} ms; ${run.splitOrders} of ${o.orders} payouts split across pools)`);
  const cpuPerOrder = run.cpuMs / o.orders;
  row('Hush CPU per order (every Hush process)', `${cpuPerOrder.toFixed(1)} ms (${((run.cpuMs / (run.seconds * 1000)) * 100).toFixed(0)} % of one core over ${run.seconds.toFixed(2)} s)`, '≤ 4 ms', cpuPerOrder <= 4);
  const rawPerPayout = base.cpuMs / o.orders;
  row("    the raw loop's CPU per payout, same run", `${rawPerPayout.toFixed(1)} ms (Hush ÷ raw ${(cpuPerOrder / rawPerPayout).toFixed(1)}×)`);
  console.log('  where the time goes (per order, ms):');
  for (const [label, xs] of run.phases) row(`    ${label}`, p50p99(xs));
}

export function printClassRun(run: ClassRun, o: { amount: string; slotMs: number; spreadS: { min: number; max: number } }): void {
  console.log(`(b) a class release of ${run.size}: ${run.size} orders of ${o.amount} (on the menu), quotes with privacy { minAnonymitySet: ${run.size} }, deposits sent together`);
  const sizes = new Map<string, number>();
  for (const r of run.releasedWith) sizes.set(String(r), (sizes.get(String(r)) ?? 0) + 1);
  const sizeText = [...sizes].map(([size, n]) => `${n} × ${size}`).join(', ');
  row('release size each order reports (privacy.releasedWith)', sizeText, `all ${run.size}`, run.releasedWith.every((r) => r === run.size));
  row('release decisions the orders went by', String(run.decisions), '1', run.decisions === 1);
  row('last deposit visible → release decided', ms(run.lastDepositToDecisionMs));
  row('release decided → payouts due (drawn in the spread)', `${ms(Math.min(...run.dueMs))} … ${ms(Math.max(...run.dueMs))}`);
  row('release decided → last payout seen on chain', ms(run.lastLandedMs));
  const goalMs = o.spreadS.max * 1000 + 2 * o.slotMs;
  row('release decided → last payout seen confirmed', ms(run.lastConfirmedMs), `≤ ${ms(goalMs)}`, run.lastConfirmedMs <= goalMs);
  console.log(`  (goal: the spread's max ${o.spreadS.max} s + 2 slots; payout statuses polled at most ${ms(run.resolutionMs)} apart, signatures read from the store every 25 ms)`);
  row('deposit landed → payout landed, slots', p50p99(run.slots, String));
  console.log(
    `  Hush process CPU during the phase: ${ms(run.cpuMs)} (${(run.cpuMs / run.size).toFixed(1)} ms per order over ${run.seconds.toFixed(1)} s, deposits sent → last completed: the class's wait and the idle work during it included)`,
  );
}

interface Idle {
  counts: RpcCounts;
  seconds: number;
}

export function printRpc(r: {
  workers: number;
  overhead: Awaited<ReturnType<typeof proxyOverhead>>;
  idleBefore: Idle;
  idleBetween: Idle;
  idleAfter: Idle;
  offMenu: { rpc: RpcCounts; rpcSeconds: number; orders: number };
  klass: { rpc: RpcCounts; rpcSeconds: number; orders: number };
  base: { rpc: RpcCounts; orders: number };
}): void {
  console.log(`(c) RPC calls through a counting proxy (each call of a batch counts); ${overheadLine(r.overhead)}`);
  const rpcRow = (label: string, [head, detail]: [string, string], target?: string, ok?: boolean) => {
    row(label, head, target, ok);
    console.log(`      ${detail}`);
  };
  const rate = (i: Idle) => totalCalls(i.counts) / i.seconds;
  // Each worker keeps its own slot clock and blockhash: the idle budget is per worker process.
  rpcRow(`idle before (a)${r.workers > 1 ? `, ${r.workers} workers` : ''}`, perUnit(r.idleBefore.counts, r.idleBefore.seconds, 's'), `≤ ${r.workers} /s`, rate(r.idleBefore) <= r.workers);
  const phase = (name: string, p: { rpc: RpcCounts; rpcSeconds: number; orders: number }, idleRate: number, target: number) => {
    const perOrder = totalCalls(p.rpc) / p.orders;
    rpcRow(`${name} per order, first quote → last completed (${p.rpcSeconds.toFixed(0)} s)`, perUnit(p.rpc, p.orders, 'order', 8), `≤ ${target}`, perOrder <= target);
    row('    of which above the idle rate before it', `${((totalCalls(p.rpc) - idleRate * p.rpcSeconds) / p.orders).toFixed(1)} calls per order`);
  };
  phase('(a)', r.offMenu, rate(r.idleBefore), 4);
  rpcRow('idle between (a) and (b) (the sweeps of (a) under way)', perUnit(r.idleBetween.counts, r.idleBetween.seconds, 's'));
  // A class's orders wait through its hold, the idle calls of that wait included.
  phase('(b)', r.klass, rate(r.idleBetween), 10);
  rpcRow('idle after (b)', perUnit(r.idleAfter.counts, r.idleAfter.seconds, 's'));
  rpcRow('baseline: raw loop, per payout', perUnit(r.base.rpc, r.base.orders, 'payout'));
}

/** The closing tally of every check printed. */
export function printTally(): void {
  console.log(`  targets and goals: ${checks.filter(Boolean).length}/${checks.length} met`);
}
