/**
 * bench:privacy's fee grid phase (issue 73): private orders of two classes arrive at a steady rate while the
 * chain's market turns busy and calm again, so the quotes' networkFee steps on the grid among the orders; then
 * what an adversary computes from the chain and the public API: does the networkFee (and so the payout amount,
 * an exact_in payout being the deposit less the fees) partition any release? Against it, the counterfactual of
 * a networkFee that tracked the market at each quote's minute (the rung of the `fast` level then, no grid).
 *
 * On the simulator (test/support/sim-hush.ts: the real composition, time injected), because the grid waits
 * minutes before it steps (5 up, 30 down) and a real-time run would take an hour; here under three minutes
 * (157 s of wall time for 58 simulated minutes, 2026-11-28).
 */
import { GRID_RULE, gridRungFor } from '../../src/domain/fee-grid.ts';
import { CONGESTION_DEFAULTS, type CongestionProfileName } from '../../src/localnet/congestion-profile.ts';
import { readFeeGrid } from '../../src/store/fee-grid-store.ts';
import { seeded } from '../../src/support/seeded-random.ts';
import { ChainRefused } from '../../sim/chain-users.ts';
import { expectOk } from '../../test/support/api-responses.ts';
import { startSimHush, USDC, type SimAccount, type SimHush, type SimWallet } from '../../test/support/sim-hush.ts';

/** The market's spells (simulated minutes): calm, then a busy hour's start past the up delay, then calm past the down delay. */
const SPELLS: { profile: CongestionProfileName; minutes: number }[] = [
  { profile: 'calm', minutes: 6 },
  { profile: 'busy', minutes: 14 },
  { profile: 'calm', minutes: GRID_RULE.downAfterMs / 60_000 + 8 },
];
const CLASSES = [1n * USDC, 10n * USDC];
/** Orders a simulated second (both classes together). */
const RATE = 1 / 12;
const SENDERS = 24;
const TICK_MS = 2_000;

export interface GridPhaseResult {
  orders: number;
  completed: number;
  /** The grid's moves as decided (from → to, minutes into the run). */
  steps: { from: bigint; to: bigint; atMin: number }[];
  /** The networkFee the public quote showed per class, each change in turn (polled each simulated minute). */
  quotedFees: Map<string, bigint[]>;
  releases: number;
  /** Releases whose members' payout amounts differ (the adversary splits them by amount): target 0. */
  splitByAmount: number;
  /**
   * Releases with members quoted at two networkFees (before and after a step): the release paid them one amount
   * all the same, the lowest fee's (store/settlement/release-classes.ts), so they are not split.
   */
  spanningStep: number;
  /** Per member, its release's size: the set with no fee difference at all (no step), mean. */
  releaseSetMean: number;
  /** Per member, the members of its release it cannot be told from (same payout amount): mean and median. */
  setMean: number;
  setMedian: number;
  /** The same with a networkFee that tracked the market at each quote (the rung of the `fast` level then). */
  trackedSplit: number;
  trackedSetMean: number;
  trackedSetMedian: number;
  /** Each split release's members, one line each (its quote, order, deposit and release times, rung, amount): why it split. */
  splitDetail: string[];
  wallSeconds: number;
}

interface Placed {
  trackingId: string;
  classAmount: bigint;
  sender: SimWallet;
  wire: string;
  signature: string;
  expiresAtSlot: number;
  /** The rung a networkFee following the market would have had at its quote. */
  trackedRung: bigint;
}

export async function gridPhase(opts: { seed: number; log: (m: string) => void }): Promise<GridPhaseResult> {
  const wall = Date.now();
  const random = seeded(opts.seed);
  const h = await startSimHush({ seed: opts.seed, congestion: { ...CONGESTION_DEFAULTS, profile: 'calm', seed: opts.seed } });
  try {
    const acct = await h.createAccount();
    const senders: SimWallet[] = [];
    for (let i = 0; i < SENDERS; i++) senders.push(await h.wallet({ sol: 20n * 1_000_000_000n, usdc: 10_000n * USDC }));
    const start = h.now();
    const minutes = () => (h.now() - start) / 60_000;
    const placed: Placed[] = [];
    const pending = new Map<string, Placed>();
    const steps: GridPhaseResult['steps'] = [];
    const quotedFees = new Map<string, bigint[]>();
    let lastPending: string | null = null;
    let nextArrival = start;
    let nextPoll = start;
    let spellEnds = start;
    for (const spell of SPELLS) {
      h.world.chain.leader!.setProfile(spell.profile);
      opts.log(`grid phase: ${spell.profile} for ${spell.minutes} min (at ${minutes().toFixed(1)} min, ${placed.length} orders so far)`);
      spellEnds += spell.minutes * 60_000;
      while (h.now() < spellEnds) {
        while (nextArrival <= h.now()) {
          const p = await place(h, acct, senders[placed.length % SENDERS]!, CLASSES[placed.length % CLASSES.length]!);
          placed.push(p);
          pending.set(p.signature, p);
          nextArrival += Math.ceil(-Math.log(1 - random()) / RATE) * 1_000;
        }
        if (h.now() >= nextPoll) {
          nextPoll += 60_000;
          for (const amount of CLASSES) {
            const fee = BigInt((await quoteOf(h, acct, senders[0]!, amount)).networkFee);
            const seen = quotedFees.get(String(amount)) ?? [];
            if (seen.at(-1) !== fee) quotedFees.set(String(amount), [...seen, fee]);
          }
          const g = (await h.drive(readFeeGrid(h.db)))?.grid;
          const key = g?.pending ? `${g.pending.from}>${g.pending.to}@${g.pending.decidedAt}` : null;
          if (g?.pending && key !== lastPending) steps.push({ from: g.pending.from, to: g.pending.to, atMin: Math.round(minutes()) });
          lastPending = key;
        }
        await rebroadcast(h, acct, pending);
        await h.advance(TICK_MS);
      }
    }
    opts.log(`grid phase: ${placed.length} orders placed; draining`);
    await h.until('every deposit landed', async () => {
      await rebroadcast(h, acct, pending);
      return pending.size === 0 ? true : null;
    }, 30 * 60_000, TICK_MS);
    await h.until('every order final', async () => {
      const { rows } = await h.db.query<{ n: string }>(`SELECT count(*)::text AS n FROM orders WHERE status NOT IN ('completed', 'refunded', 'expired', 'failed')`);
      return rows[0]!.n === '0' ? true : null;
    }, 60 * 60_000, 5_000);
    return { ...(await score(h, placed)), orders: placed.length, steps, quotedFees, wallSeconds: (Date.now() - wall) / 1000 };
  } finally {
    await h.drive(h.close(), 600_000).catch(() => {});
  }
}

async function quoteOf(h: SimHush, acct: SimAccount, sender: SimWallet, amount: bigint): Promise<any> {
  return expectOk(await acct.client.quote({ amount: String(amount), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: h.address() })).quote;
}

/** Quote, order, sign and send, as a partner's user does (default privacy: Hush's release policy). */
async function place(h: SimHush, acct: SimAccount, sender: SimWallet, amount: bigint): Promise<Placed> {
  const recipient = h.address();
  const terms = { senderAddress: sender.address, recipientAddress: recipient };
  const quote = expectOk(await acct.client.quote({ amount: String(amount), sourceAssetId: 'usdc', destinationAssetId: 'usdc', ...terms })).quote;
  const order = expectOk(await acct.client.order({ quote, ...terms })).order;
  // What the quote would have said had its networkFee followed the market: the rung of the fast level now.
  const trackedRung = gridRungFor(h.hush.worker!.context.fees.price('payout').microLamportsPerCu);
  const { wire, signature } = sender.signWire(order.transaction);
  const p: Placed = { trackingId: order.trackingId, classAmount: amount, sender, wire, signature, expiresAtSlot: order.blockhashExpiresAtSlot, trackedRung };
  await send(h, wire);
  return p;
}

async function send(h: SimHush, wire: string): Promise<void> {
  await h.drive(h.chain.send(wire)).catch((e: unknown) => {
    if (!(e instanceof ChainRefused)) throw e;
  });
}

/** A wallet's rebroadcast: every tick until confirmed; a refreshed transaction once the blockhash died. */
async function rebroadcast(h: SimHush, acct: SimAccount, pending: Map<string, Placed>): Promise<void> {
  if (pending.size === 0) return;
  const sigs = [...pending.keys()];
  const { value } = await h.drive(h.chain.call<{ value: ({ confirmationStatus: string } | null)[] }>('getSignatureStatuses', [sigs]));
  const slot = await h.drive(h.chain.call<number>('getSlot', [{ commitment: 'processed' }]));
  for (const [i, sig] of sigs.entries()) {
    const p = pending.get(sig)!;
    if (value[i] && value[i]!.confirmationStatus !== 'processed') {
      pending.delete(sig);
      continue;
    }
    if (slot > p.expiresAtSlot) {
      const order = expectOk(await acct.client.refresh(p.trackingId)).order;
      const signed = p.sender.signWire(order.transaction);
      pending.delete(sig);
      Object.assign(p, { wire: signed.wire, signature: signed.signature, expiresAtSlot: order.blockhashExpiresAtSlot });
      pending.set(p.signature, p);
    }
    await send(h, p.wire);
  }
}

/**
 * The adversary's partition: per release (a class's members released together), the members it can tell apart by
 * their payout amounts (amountOut, what each payout transfers on the chain: the same deposit less a networkFee).
 */
async function score(h: SimHush, placed: Placed[]) {
  const tracked = new Map(placed.map((p) => [p.trackingId, p]));
  const { rows } = await h.drive(
    h.db.query<{ tracking_id: string; amount_out: string; price: string | null; rel: string; detail: string }>(
      `SELECT tracking_id, amount_out::text, quote ->> 'networkFee' AS price,
              source_asset_id || ':' || amount_in::text || ':' || class_released_at::text AS rel,
              concat_ws(' ', 'quoted', quote ->> 'issuedAt', 'ordered', created_at, 'confirmed', deposit ->> 'confirmedAt',
                        'rung', network_fee_price, 'due', payout_due_at, 'released', class_released_at, 'size', class_release_size) AS detail
         FROM orders WHERE class_released_at IS NOT NULL AND status = 'completed' ORDER BY id`,
    ),
  );
  const splitDetail: string[] = [];
  const releases = new Map<string, typeof rows>();
  for (const r of rows) releases.set(r.rel, [...(releases.get(r.rel) ?? []), r]);
  const sets: number[] = [];
  const whole: number[] = [];
  const trackedSets: number[] = [];
  let splitByAmount = 0;
  let spanningStep = 0;
  let trackedSplit = 0;
  const partition = (members: typeof rows, keyOf: (r: (typeof rows)[number]) => string, out: number[]) => {
    const counts = new Map<string, number>();
    for (const m of members) counts.set(keyOf(m), (counts.get(keyOf(m)) ?? 0) + 1);
    for (const m of members) out.push(counts.get(keyOf(m))!);
    return counts.size;
  };
  for (const members of releases.values()) {
    partition(members, () => '', whole);
    if (partition(members, (m) => m.amount_out, sets) > 1) {
      splitByAmount++;
      for (const m of members) splitDetail.push(`${m.tracking_id} quoted networkFee ${m.price} out ${m.amount_out} ${m.detail}`);
    }
    if (partition(members, (m) => String(tracked.get(m.tracking_id)?.trackedRung ?? 0n), trackedSets) > 1) trackedSplit++;
    if (new Set(members.map((m) => m.price)).size > 1) spanningStep++;
  }
  const mean = (xs: number[]) => (xs.length ? xs.reduce((s, x) => s + x, 0) / xs.length : NaN);
  const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
  return {
    completed: rows.length,
    releases: releases.size,
    splitByAmount,
    spanningStep,
    releaseSetMean: mean(whole),
    setMean: mean(sets),
    setMedian: median(sets),
    trackedSplit,
    trackedSetMean: mean(trackedSets),
    trackedSetMedian: median(trackedSets),
    splitDetail,
  };
}

export function printGridPhase(r: GridPhaseResult): string[] {
  const fees = [...r.quotedFees].map(([amount, fs]) => `${Number(BigInt(amount) / USDC)} USDC: ${fs.join(' → ')}`).join('; ');
  return [
    `fee grid phase (simulated, ${r.wallSeconds.toFixed(0)} s): ${r.orders} private orders of 1 and 10 USDC while the market went calm → busy → calm; ${r.completed} completed in ${r.releases} releases`,
    `  grid steps: ${r.steps.map((s) => `${s.from} → ${s.to} µL/CU at ${s.atMin} min`).join(', ') || 'none'}; the public quote's networkFee (base units) ${fees}`,
    `  releases split by payout amount (what the chain shows): ${r.splitByAmount} of ${r.releases} (target 0 ${r.splitByAmount === 0 ? 'PASS' : 'MISS'}); releases quoted at two networkFees (paid one amount): ${r.spanningStep}`,
    `  anonymity set per member after splitting by amount: mean ${r.setMean.toFixed(2)}, median ${r.setMedian} (without any step, its release: mean ${r.releaseSetMean.toFixed(2)})`,
    `  counterfactual, a networkFee that tracked the market's minute: ${r.trackedSplit} of ${r.releases} releases split, set mean ${r.trackedSetMean.toFixed(2)}, median ${r.trackedSetMedian}`,
    ...r.splitDetail.map((l) => `  split: ${l}`),
  ];
}
