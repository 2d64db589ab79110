/**
 * bench:landing — do payouts land on a busy chain, once, at a fair price, and does the network fee partners are
 * charged cover what Hush pays? (issue 73 item 4.) The sender is the bench's own (bench/support/landing-loop.ts:
 * a payout's send, rebroadcast and re-sign after expiry, as Hush's outbox and settle loop do them), priced by
 * Hush's own fee port (src/settlement/fee-prices.ts, the `payout` purpose, as the worker's `shape` prices it),
 * and the quotes' flat network fee by Hush's own grid (src/domain/fee-grid-shared.ts) on the port's readings.
 *
 * For each profile (BENCH_PROFILES, default calm,busy,spike) a local chain in its own process congests
 * (LOCALNET_CONGESTION, seed BENCH_SEED, LOCALNET_DROP_RATE = BENCH_DROP_RATE, default 0.1: a tenth of all
 * sends lost), and two senders pay BENCH_PAYOUTS (200) payout-shaped transfers each, BENCH_PER_SLOT (2) a
 * slot, side by side: `static` at today's 1,000 micro-lamports per CU, and `market` at the fee port's price
 * (estimateComputeUnitPrice's `fast` level over getRecentPrioritizationFees, src/chain/fee-market.ts, its
 * percentile form, and its own landings). Both rebroadcast every 5 slots while the blockhash lives and re-sign
 * after it expired at finalized (static at the same price, market escalated). Printed per sender: payouts landed, slots from a
 * payout's first send to its landing (p50, p99), re-signs per payout, the median of the fee paid over its
 * slot's clearing price (localnet_getClearingPrices, for the sender's fee payer and pool), and lamports per
 * 1,000 landed payouts, and the network fee charged over the run against what Hush paid: each order charged a
 * SOL order's networkFee (a lone sweep and the payout: QuoteService's formula) at the grid's rung when its payout
 * was first signed (its quote's moment), against its landed payout and its sweep, which this bench does not send,
 * costed at the fee port's `sweep` price at that moment (the payouts' part alone is printed too); then PASS or MISS against
 * the targets: busy — 100 % landed, none twice, p99 ≤ 12 slots, median fee ≤ 1.3× the clearing price; calm —
 * market's cost within 10 % of static's, or below; every profile — the network fee charged covers what Hush
 * paid within 5 % (charged ≥ 0.95 × paid).
 * Slots are BENCH_SLOT_MS (200) long, figures are in slots. BENCH_TAIL_SLOTS (400): how long after the last
 * first send a run waits for the rest (past two blockhash lives: re-signs are seen).
 *
 * The grid's own time is the chain's: a slot counts BENCH_GRID_SLOT_MS (400, mainnet's slot, which the profiles'
 * cycles are drawn for) whatever BENCH_SLOT_MS, so its 5-minute up wait is 750 slots; the grid takes a reading
 * every 10 s of it, as the worker does. Before the payouts a warm-up of BENCH_GRID_WARMUP_SLOTS (default: the
 * profile's whole market cycles covering two up waits; the payouts then start at the market's phase they start at
 * without it) has the market sender pay as in the run, its payouts not counted, the grid starting at the static
 * price's rung as a fresh Hush's does when a class window is open: the rung charged is the rule's, not where the
 * first reading fell. 0: no warm-up, the grid starting at the first reading's rung. The rung's steps are printed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner, type KeyPairSigner } from '@solana/kit';
import { callUrl, FeeMarket } from '../src/chain/fee-market.ts';
import { loadConfig } from '../src/config/config.ts';
import { DEFAULT_FEE_CAPS } from '../src/config/fee-settings.ts';
import { transactionLamports } from '../src/domain/fee-estimate.ts';
import { DEFAULT_NETWORK_COST, settlementLamports } from '../src/domain/network-cost.ts';
import { firstGrid, GRID_ANNOUNCE_MS, stepSharedGrid, type SharedGrid } from '../src/domain/fee-grid-shared.ts';
import { GRID_RULE } from '../src/domain/fee-grid.ts';
import { PROFILES as MARKETS, type CongestionProfileName } from '../src/localnet/congestion-profile.ts';
import { OBSERVE_EVERY_MS } from '../src/settlement/fee-grid-observer.ts';
import { FeePrices } from '../src/settlement/fee-prices.ts';
import { systemClock } from '../src/support/clock.ts';
import { fund } from './support/chain-calls.ts';
import { BASE_FEE_LAMPORTS, COMPUTE_UNITS, landingLoop, type PayoutRecord, type Strategy } from './support/landing-loop.ts';
import { localnetUrls, start, stop } from './support/processes.ts';
import { pct } from './support/stats.ts';
import { createSolanaRpc } from '@solana/kit';

const PROFILES = (process.env.BENCH_PROFILES ?? 'calm,busy,spike').split(',').filter(Boolean);
const PAYOUTS = Number(process.env.BENCH_PAYOUTS ?? 200);
const PER_SLOT = Number(process.env.BENCH_PER_SLOT ?? 2);
const SLOT_MS = Number(process.env.BENCH_SLOT_MS ?? 200);
const TAIL_SLOTS = Number(process.env.BENCH_TAIL_SLOTS ?? 400);
const DROP_RATE = process.env.BENCH_DROP_RATE ?? '0.1';
const SEED = process.env.BENCH_SEED ?? '1';
const GRID_SLOT_MS = Number(process.env.BENCH_GRID_SLOT_MS ?? 400);
const STATIC_PRICE = 1_000n;
/** A payout may cost at most this (0.001 SOL): far above any fair fee here, so a capped payout says the market ran away. */
const CAP_LAMPORTS = BigInt(process.env.BENCH_CAP_LAMPORTS ?? 1_000_000);
const AMOUNT = 1_000_000n;

const asset = loadConfig({ ...process.env }).assets.get('sol')!;

interface Figures {
  landedPct: number;
  twice: number;
  p50: number | null;
  p99: number | null;
  resigns: number;
  feeRatio: number | null;
  lamportsPer1000: number | null;
  capped: number;
  /** The payouts' part of the network fee charged over what Hush paid for the landed payouts. */
  payoutChargedOverPaid: number | null;
  /** The rungs the payouts were charged at (micro-lamports per CU), with how many payouts each. */
  rungs: Map<bigint, number>;
  /** The whole network fee charged (a SOL order's: a lone sweep and the payout, at the rung) over what Hush paid for the payout and would pay for its sweep. */
  chargedOverPaid: number | null;
}

/** A payout's moment as the quotes and the fee port saw it when it was first signed: the grid's rung, and the price a sweep would get. */
interface AtQuote {
  rung: bigint;
  sweepPrice: bigint;
}

/** A SOL order's networkFee at a rung (src/domain/network-cost.ts, as QuoteService charges it), in lamports. */
function orderCharged(rung: bigint): bigint {
  return settlementLamports({ ...DEFAULT_NETWORK_COST, computeUnitLimit: COMPUTE_UNITS, computeUnitPriceMicroLamports: rung }, { destinationNative: true, tokenAccountRentBps: 0, payoutCount: 1 });
}

function figures(records: PayoutRecord[], clearing: Map<bigint, bigint>, capped: number, atQuote: Map<string, AtQuote>): Figures {
  const landed = records.filter((r) => r.landed);
  const slots = landed.map((r) => Number(r.landed!.slot - r.firstSent!));
  const ratios = landed.flatMap((r) => {
    const c = clearing.get(r.landed!.slot);
    return c !== undefined && c > 0n ? [Number(r.landed!.price) / Number(c)] : [];
  });
  const lamports = landed.reduce((sum, r) => sum + transactionLamports(r.landed!.price, COMPUTE_UNITS, BASE_FEE_LAMPORTS), 0n);
  const payoutCharged = landed.reduce((sum, r) => sum + transactionLamports(atQuote.get(r.recipient)!.rung, COMPUTE_UNITS, BASE_FEE_LAMPORTS), 0n);
  const charged = landed.reduce((sum, r) => sum + orderCharged(atQuote.get(r.recipient)!.rung), 0n);
  // The bench sends no sweeps: each order's lone sweep (two signatures) is costed at the fee port's sweep price then.
  const sweeps = landed.reduce((sum, r) => sum + transactionLamports(atQuote.get(r.recipient)!.sweepPrice, COMPUTE_UNITS, BASE_FEE_LAMPORTS), 0n);
  return {
    landedPct: (100 * landed.length) / records.length,
    twice: records.filter((r) => r.landedAttempts > 1).length,
    p50: slots.length ? pct(slots, 0.5) : null,
    p99: slots.length ? pct(slots, 0.99) : null,
    resigns: records.reduce((n, r) => n + Math.max(0, r.attempts.length - 1), 0) / records.length,
    feeRatio: ratios.length ? pct(ratios, 0.5) : null,
    lamportsPer1000: landed.length ? Number((lamports * 1000n) / BigInt(landed.length)) : null,
    capped,
    rungs: landed.reduce((m, r) => m.set(atQuote.get(r.recipient)!.rung, (m.get(atQuote.get(r.recipient)!.rung) ?? 0) + 1), new Map<bigint, number>()),
    payoutChargedOverPaid: lamports > 0n ? Number(payoutCharged) / Number(lamports) : null,
    chargedOverPaid: lamports > 0n ? Number(charged) / Number(lamports + sweeps) : null,
  };
}

/**
 * The warm-up's default: whole cycles of the profile's market (its calm-to-busy period, its spikes) covering two up
 * waits, the announcement and a reading: the first wait's readings are taken while the sender's own landings
 * (which the `fast` level reads, src/domain/fee-estimate.ts) are still coming in, the second's are what a Hush
 * that has signed for a while reads.
 */
function defaultWarmupSlots(profile: string): number {
  const m = MARKETS[profile as CongestionProfileName];
  if (!m) return 0;
  const gcd = (a: number, b: number): number => (b === 0 ? a : gcd(b, a % b));
  const cycle = m.spike ? (m.period * m.spike.every) / gcd(m.period, m.spike.every) : m.period;
  const need = Math.ceil((2 * GRID_RULE.upAfterMs + GRID_ANNOUNCE_MS + 2 * OBSERVE_EVERY_MS) / GRID_SLOT_MS);
  return Math.ceil(need / cycle) * cycle;
}

/** A step of the grid: where it started, a move decided, a move in effect. */
interface GridEvent {
  slot: bigint;
  kind: 'start' | 'decided' | 'effective';
  to: bigint;
}

const show = (v: number | null, digits = 0, suffix = '') => (v === null ? 'n/a' : `${v.toLocaleString('en-US', { maximumFractionDigits: digits, minimumFractionDigits: digits })}${suffix}`);
const mark = (ok: boolean) => (ok ? 'PASS' : 'MISS');

async function runProfile(profile: string): Promise<{ statics: Figures; market: Figures; grid: { events: GridEvent[]; warmup: { from: bigint; to: bigint } | null } }> {
  const dir = mkdtempSync(join(tmpdir(), 'hush-bench-landing-'));
  const chain = start('src/cli/localnet.ts', {
    DATA_DIR: dir,
    LOCALNET_PORT: '0',
    LOCALNET_SLOT_MS: String(SLOT_MS),
    LOCALNET_CONGESTION: profile,
    LOCALNET_CONGESTION_SEED: SEED,
    LOCALNET_DROP_RATE: DROP_RATE,
  });
  try {
    const { url } = await localnetUrls(chain);
    const wallets: KeyPairSigner[] = await Promise.all(Array.from({ length: 4 }, () => generateKeyPairSigner()));
    await fund(url, createSolanaRpc(url), asset, wallets.map((w) => ({ address: w.address, lamports: 50n * 1_000_000_000n, tokens: 0n })));
    let capped = 0;
    /** While the warm-up sends: its signings at the cap are not the run's. */
    let warming = false;
    // The slot the loop last read, and when: the fee port's notion of "now" on the chain (Hush's slot clock).
    let known: { slot: bigint; at: number } | null = null;
    const fees = new FeePrices({
      market: new FeeMarket(callUrl(url, systemClock), systemClock, { slotMs: SLOT_MS }),
      accounts: () => [wallets[2]!.address, wallets[3]!.address],
      knownSlot: () => known,
      slotMs: SLOT_MS,
      clock: systemClock,
      settings: { feePricing: 'market', feeCapLamports: { ...DEFAULT_FEE_CAPS, payout: CAP_LAMPORTS }, computeUnitLimit: COMPUTE_UNITS, computeUnitPriceMicroLamports: STATIC_PRICE },
      log: () => {},
      // The loop reads the market every slot, as the estimator's rule was tuned (docs/decisions.md).
      minRefreshMs: SLOT_MS,
    });
    // The quotes' grid on the port's fast readings, on the chain's time, stepped at most every 10 s as the worker
    // steps it (FeeGridObserver); one worker, no class window open (the bench's quotes are its payouts).
    const warmupSlots = Number(process.env.BENCH_GRID_WARMUP_SLOTS ?? defaultWarmupSlots(profile));
    let grid: SharedGrid | null = null;
    let gridRead = Number.NEGATIVE_INFINITY;
    const events: GridEvent[] = [];
    fees.onFastReading = (fast) => {
      const slot = fees.slotNow() ?? 0n;
      const now = Number(slot) * GRID_SLOT_MS;
      if (now - gridRead < OBSERVE_EVERY_MS) return;
      gridRead = now;
      if (!grid) {
        grid = firstGrid(fast, STATIC_PRICE, now, warmupSlots > 0);
        events.push({ slot, kind: 'start', to: grid.step });
        return;
      }
      const { grid: next, moved } = stepSharedGrid(grid, fast, now, []);
      if (moved) events.push({ slot, kind: moved, to: moved === 'decided' ? next.pending!.to : next.step });
      grid = next;
    };
    const atQuote = { static: new Map<string, AtQuote>(), market: new Map<string, AtQuote>() };
    const statics: Strategy = { name: 'static', feePayer: wallets[0]!, pool: wallets[1]!, price: async () => STATIC_PRICE, signed: (r) => void atQuote.static.set(r, { rung: STATIC_PRICE, sweepPrice: STATIC_PRICE }) };
    const market: Strategy = {
      name: 'market',
      feePayer: wallets[2]!,
      pool: wallets[3]!,
      async price(slot, previous) {
        known = { slot, at: systemClock.now() };
        await fees.ready();
        const answer = fees.price('payout', previous);
        if (answer.capped && !warming) capped++;
        return answer.microLamportsPerCu;
      },
      signed: (r) => {
        const g = grid as SharedGrid | null;
        if (!atQuote.market.has(r)) atQuote.market.set(r, { rung: g?.pending?.from ?? g?.step ?? STATIC_PRICE, sweepPrice: fees.price('sweep').microLamportsPerCu });
      },
      landed: (l) => fees.ownLanding(l),
    };
    const settings = { url, asset, payouts: PAYOUTS, perSlot: PER_SLOT, slotMs: SLOT_MS, tailSlots: TAIL_SLOTS, amount: AMOUNT };
    // The warm-up: the market sender pays as it will in the run (what Hush pays moves its own readings: slow
    // landings raise the `fast` level), its payouts not counted; the run starts as its last is sent.
    let warmup: { from: bigint; to: bigint } | null = null;
    if (warmupSlots > 0) {
      console.log(`  grid warm-up: ${warmupSlots} slots (${((warmupSlots * GRID_SLOT_MS) / 60_000).toFixed(1)} min of grid time), payouts not counted`);
      warming = true;
      await landingLoop({ ...settings, payouts: warmupSlots * PER_SLOT, tailSlots: 0 }, [{ ...market, name: 'warm-up', signed: undefined }], (l) => console.log(l));
      warming = false;
      const g = grid as SharedGrid | null;
      warmup = { from: events[0]?.to ?? STATIC_PRICE, to: g?.pending?.from ?? g?.step ?? STATIC_PRICE };
    }
    const { records, clearing } = await landingLoop(settings, [statics, market], (l) => console.log(l));
    return {
      statics: figures(records.filter((r) => r.strategy === 'static'), clearing.get('static')!, 0, atQuote.static),
      market: figures(records.filter((r) => r.strategy === 'market'), clearing.get('market')!, capped, atQuote.market),
      grid: { events, warmup },
    };
  } finally {
    await stop(chain);
    rmSync(dir, { recursive: true, force: true });
  }
}

function report(profile: string, f: Awaited<ReturnType<typeof runProfile>>): string[] {
  const { statics: s, market: m } = f;
  const first = f.grid.events[0]?.slot ?? 0n;
  const at = (slot: bigint) => `slot ${slot} (${((Number(slot - first) * GRID_SLOT_MS) / 60_000).toFixed(1)} min)`;
  const steps = f.grid.events.map((e) => (e.kind === 'start' ? `${e.to.toLocaleString('en-US')} at ${at(e.slot)}` : `${e.kind === 'decided' ? '→' : '  in effect'} ${e.to.toLocaleString('en-US')}${e.kind === 'decided' ? ' decided' : ''} at ${at(e.slot)}`));
  const rungs = [...m.rungs].sort(([a], [b]) => (a < b ? -1 : 1)).map(([r, n]) => `${r.toLocaleString('en-US')} (${n})`).join(', ');
  const row = (label: string, a: string, b: string, verdict = '') => `  ${label.padEnd(34)}${a.padStart(14)}${b.padStart(14)}   ${verdict}`;
  const lines = [
    `${profile} (seed ${SEED}, drop rate ${DROP_RATE}, ${SLOT_MS} ms slots, ${PAYOUTS} payouts each)`,
    row('', 'static 1,000', 'market'),
    row('landed', show(s.landedPct, 1, ' %'), show(m.landedPct, 1, ' %'), profile === 'busy' ? `${mark(m.landedPct === 100)} (100 %)` : ''),
    row('paid twice', String(s.twice), String(m.twice), profile === 'busy' ? `${mark(m.twice === 0 && s.twice === 0)} (0)` : ''),
    row('slots first send → landed, p50', show(s.p50), show(m.p50)),
    row('slots first send → landed, p99', show(s.p99), show(m.p99), profile === 'busy' ? `${mark(m.p99 !== null && m.p99 <= 12)} (≤ 12)` : ''),
    row('re-signs per payout', show(s.resigns, 2), show(m.resigns, 2)),
    row('fee / slot clearing price, median', show(s.feeRatio, 2, '×'), show(m.feeRatio, 2, '×'), profile === 'busy' ? `${mark(m.feeRatio !== null && m.feeRatio <= 1.3)} (≤ 1.3×)` : ''),
    row('lamports per 1,000 landed payouts', show(s.lamportsPer1000), show(m.lamportsPer1000), profile === 'calm' ? `${mark(m.lamportsPer1000 !== null && s.lamportsPer1000 !== null && m.lamportsPer1000 <= s.lamportsPer1000 * 1.1)} (≤ 1.1× static)` : ''),
    row('signings at the cap', '', String(m.capped)),
    row('payout part of network fee / paid', show(s.payoutChargedOverPaid, 2, '×'), show(m.payoutChargedOverPaid, 2, '×')),
    row('network fee charged / Hush paid', show(s.chargedOverPaid, 2, '×'), show(m.chargedOverPaid, 2, '×'), `${mark(m.chargedOverPaid !== null && m.chargedOverPaid >= 0.95)} (≥ 0.95×: covers within 5 %)`),
    `  grid rung charged (payouts): ${rungs || 'n/a'}${f.grid.warmup ? `; after the warm-up ${f.grid.warmup.to.toLocaleString('en-US')} (started at ${f.grid.warmup.from.toLocaleString('en-US')})` : '; no warm-up'}`,
    `  grid steps (grid time from its first reading, ${GRID_SLOT_MS} ms a slot): ${steps.join(', ') || 'none'}`,
  ];
  return lines;
}

const out: string[] = [];
for (const profile of PROFILES) {
  console.log(`bench:landing: ${profile}`);
  out.push(...report(profile, await runProfile(profile)), '');
}
console.log(`\n${out.join('\n')}`);
