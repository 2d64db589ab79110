/**
 * One live run: a fresh Hush at one arrival rate, every workload stream interleaved at that rate, the
 * adversary's own few transfers among them; then the adversary reads the chain and each row is scored.
 */
import { generateKeyPairSigner } from '@solana/kit';
import pLimit from 'p-limit';
import type { Asset } from '../../src/config/assets.ts';
import { runAdversary, type OwnTransfer } from './adversary/adversary.ts';
import { Driver, startServer, type TruthRecord } from './driver.ts';
import { HushApi } from './hush-api.ts';
import { chainBurstSizes, type RowScore } from './score.ts';
import { releaseLog } from './release-log.ts';
import { scoreRows } from './score-rows.ts';
import { schedule, type PlannedOrder, type Workload } from './workloads.ts';

/** The release policy under test, in real (uncompressed) seconds: from Hush's configuration or the flags. */
export interface BenchPolicy {
  /** HUSH_DENOMINATIONS */
  menu: string;
  /** HUSH_PRIVACY_TARGET_SET */
  targetSet: number;
  /** HUSH_PRIVACY_K (a fixed k instead of the target), when set */
  k?: number;
  /** HUSH_PRIVACY_MAX_DELAY_S: the delay budget, release spread included */
  budgetS: number;
  /** HUSH_PAYOUT_DELAY_S: a release's spread. */
  windowS: { min: number; max: number };
  /** HUSH_PRIVACY_TRAFFIC_WINDOW_S: the quote's estimate counts a class's deposits over this. */
  trafficWindowS: number;
  /** HUSH_PRIVACY_MAX_WAIT_S: the ceiling of a member that asked to wait. */
  ceilingS: number;
}

export interface RunSpec {
  /** Real arrivals per second of each stream. */
  rate: number;
  /** Time compression: slots, every delay of the policy and arrival gaps are all divided by it. */
  compression: number;
  /** At most this many orders per stream. */
  ordersPerRow: number;
  /**
   * Real seconds of arrivals that are not scored (the warm-up), then of arrivals that are, then of
   * arrivals that are not (the padding). The warm-up keeps a fresh Hush's first minutes out of a
   * steady-state row: until Hush has watched its traffic a while every class counts as unmeasured and its
   * payouts go at once, alone (the cold start, measured by a row of its own). The padding keeps traffic
   * going after the last scored order, so every scored order's class release holds what it would in a
   * steady stream, not a run's truncated tail. Unset: every order is scored and the count alone ends it.
   */
  horizonS?: Horizon;
  /** Called once the run no longer needs its chain and Hush (both stopped): only its scoring is left. */
  chainDone?: () => void;
  policy: BenchPolicy;
  workloads: Workload[];
  assets: Map<string, Asset>;
  random: () => number;
  /**
   * A user's mean time to sign and send the deposit once the order is placed, real seconds (each order draws
   * 0.5–1.5 times it); 0 or absent: at once. The deposit is confirmed that much after its order was created.
   */
  signDelayS?: number;
  /** Extra environment for Hush (e.g. HUSH_PRIVACY=off for the self-check). */
  env?: Record<string, string>;
  log: (msg: string) => void;
}

export interface Horizon {
  warmup: number;
  scored: number;
  padding: number;
}

export interface RunResult {
  rows: (RowScore & { results: unknown })[];
  failedOrders: number;
  unswept: number;
  wallSeconds: number;
  rpcRequests: number;
  ownDelaysS: number[];
}

const OWN_TRANSFERS = 6;
const seconds = (x: number) => String(Math.round(x * 1000) / 1000);

/**
 * Hush's environment for a run compressed c times: the slot, the payout window, the delay budget and the
 * quote's traffic window all divided by c (arrival gaps are too, by the driver), so arrivals per slot,
 * per window and per budget are the real rate's; the target set is a count and is not scaled. Hush
 * measures a class's rate over its own life while that is shorter than the window, so the quotes made
 * once it has watched for a hold see the class's steady traffic.
 */
export function compressedEnv(policy: BenchPolicy, c: number): Record<string, string> {
  return {
    LOCALNET_SLOT_MS: String(Math.round(400 / c)),
    HUSH_DENOMINATIONS: policy.menu,
    HUSH_PRIVACY_TARGET_SET: String(policy.targetSet),
    HUSH_PRIVACY_K: policy.k === undefined ? '' : String(policy.k),
    HUSH_PRIVACY_MAX_DELAY_S: seconds(Math.max(1, policy.budgetS / c)),
    HUSH_PRIVACY_TRAFFIC_WINDOW_S: seconds(Math.max(1, policy.trafficWindowS / c)),
    HUSH_PRIVACY_MAX_WAIT_S: seconds(Math.max(1, Math.max(policy.budgetS, policy.ceilingS) / c)),
    HUSH_PAYOUT_DELAY_S: `${seconds(policy.windowS.min / c)}-${seconds(policy.windowS.max / c)}`,
    HUSH_SWEEP_INTERVAL_S: '1',
    // No request budget (as bench:settlement): compressed time multiplies Hush's call rate by c, and at the
    // default 10 calls/s the run measured the budget (sweeps late, pools short, 645 s for 79 s of arrivals).
    HUSH_RPC_MAX_RPS: '0',
    // The bench's partner is one account carrying every stream, and compression multiplies its orders
    // awaiting a deposit by c: at the default cap of 50 the λ = 1 run was refused (429 TOO_MANY_OPEN_ORDERS)
    // and its orders placed minutes late, when the first open order would have expired (Retry-After).
    HUSH_MAX_OPEN_ORDERS: '100000',
  };
}

export async function runOnce(spec: RunSpec): Promise<RunResult> {
  const started = Date.now();
  const c = spec.compression;
  const server = await startServer({ ...compressedEnv(spec.policy, c), ...spec.env });
  let closed = false;
  // Where a run's wall time goes, printed as it goes: the run is long, and its cost is a target too.
  let phaseStart = Date.now();
  const phase = (name: string) => {
    spec.log(`  ${name}: ${((Date.now() - phaseStart) / 1000).toFixed(0)} s`);
    phaseStart = Date.now();
  };
  try {
    const partner = new HushApi(server.hushUrl, server.partnerKey);
    const partners = server.partners.map((p, k) => (k === 0 ? partner : new HushApi(server.hushUrl, p.apiKey)));
    const apiOf = (r: { plan: PlannedOrder }) => partners[r.plan.partner ?? 0] ?? partner;
    const adversaryApi = new HushApi(server.hushUrl, server.adversaryKey);
    // 24 partner senders and, kept apart, the adversary's own.
    const driver = await Driver.fund(server, spec.assets, 25);
    const ownSender = driver.senders.pop()!;
    const h = spec.horizonS;
    const untilMs = h ? ((h.warmup + h.scored + h.padding) * 1000) / c : Infinity;
    const scoredFromMs = h ? (h.warmup * 1000) / c : 0;
    const scoredUntilMs = h ? ((h.warmup + h.scored) * 1000) / c : Infinity;
    const inScoredSpan = (p: PlannedOrder) => p.scored ?? (p.atMs > scoredFromMs && p.atMs <= scoredUntilMs);
    const plans = spec.workloads.filter((w) => !w.rates || w.rates.includes(spec.rate)).flatMap((w) => schedule(w, spec.ordersPerRow, spec.rate * c, spec.random, untilMs, c));
    if (spec.signDelayS) for (const p of plans) p.signDelayMs = ((spec.signDelayS * 1000) / c) * (0.5 + spec.random());
    const span = Math.max(...plans.map((p) => p.atMs));
    const limit = pLimit(8);
    const recipients = await Promise.all(plans.map((p) => limit(() => driver.recipient(p.destinationAssetId, p.recipientHolds))));

    // The adversary: a funded sender, a recipient holding every token (for quotes), its own transfers.
    const holding = (await generateKeyPairSigner()).address;
    for (const a of spec.assets.values()) if (!a.native) await driver.rpc.call('localnet_requestTokenAirdrop', [holding, a.mint, 1]);
    const ownPlans: PlannedOrder[] = Array.from({ length: OWN_TRANSFERS }, (_, i) => ({
      stream: 'adversary',
      atMs: ((i + 0.5) / OWN_TRANSFERS) * span,
      sourceAssetId: 'usdc',
      destinationAssetId: 'usdc',
      mode: 'exact_in',
      amount: 3_000_000n + BigInt(Math.floor(spec.random() * 1_000_000)),
      feeBps: 0,
      recipientHolds: false,
    }));
    const ownRecipients = await Promise.all(ownPlans.map(() => driver.recipient('usdc', false)));

    phase('funded senders and recipients');
    const fromSlot = Number(await driver.rpc.call<bigint>('getSlot', [{ commitment: 'confirmed' }]));
    const t0 = Date.now();
    let failed = 0;
    /** Failed orders by what failed them (the first three are logged as they fail, the count by reason at the end). */
    const failures = new Map<string, number>();
    const placed: Promise<TruthRecord | null>[] = [];
    const own: Promise<TruthRecord | null>[] = [];
    const all = [...plans.map((p, i) => ({ p, r: recipients[i]!, own: false })), ...ownPlans.map((p, i) => ({ p, r: ownRecipients[i]!, own: true }))].sort((a, b) => a.p.atMs - b.p.atMs);
    spec.log(`  λ=${spec.rate}/s ×${c}: ${plans.length} orders over ${(span / 1000).toFixed(0)} s (slot ${Math.round(400 / c)} ms)`);
    for (const { p, r, own: mine } of all) {
      const wait = t0 + p.atMs - Date.now();
      if (wait > 0) await new Promise((res) => setTimeout(res, wait));
      const fail = (e: Error) => {
        failed++;
        if (failed <= 3) spec.log(`  order failed: ${e.message}`);
        const why = e.message.replace(/[1-9A-HJ-NP-Za-km-z]{32,}|trk_\w+/g, '…');
        failures.set(why, (failures.get(why) ?? 0) + 1);
        return null;
      };
      if (mine) own.push(driver.place(adversaryApi, p, r, ownSender).catch(fail));
      else placed.push(driver.place(apiOf({ plan: p }), p, r).catch(fail));
    }
    const records = (await Promise.all(placed)).filter((x): x is TruthRecord => x !== null);
    const ownRecords = (await Promise.all(own)).filter((x): x is TruthRecord => x !== null);
    for (const r of records) r.scored = inScoredSpan(r.plan);
    if (failed > 3) spec.log(`  ${failed} orders failed: ${[...failures].map(([why, n]) => `${n} × ${why}`).join('; ')}`);
    phase('arrivals placed');
    // A row whose orders ask to wait may be held to the ceiling.
    const patient = spec.workloads.some((w) => w.choice);
    const longestMs = ((patient ? Math.max(spec.policy.budgetS, spec.policy.ceilingS) : spec.policy.budgetS) / c) * 1000;
    await driver.settle(apiOf, records, 120_000 + longestMs * 4);
    await driver.settle(adversaryApi, ownRecords, 60_000);
    // The adversary finds a deposit account when Hush sweeps it into a pool. Hush sweeps a few accounts per
    // asset a tick and defers while deposits keep arriving, so at λ = 1 compressed ×4 (16 orders a second)
    // thousands are still unswept when the traffic stops: wait for them (with two minutes the adversary saw
    // 84–93 % of the deposits).
    const unswept = await driver.swept([...records, ...ownRecords], 900_000);
    phase('orders settled and swept');
    // What the adversary knows of its own transfers: the deposit it signed and the recipient it chose.
    const ownTransfers: OwnTransfer[] = ownRecords.map((t) => ({ depositSignature: t.depositSignature, recipient: t.recipient }));

    const adversary = await runAdversary(
      {
        rpcUrl: server.rpcUrl,
        hush: { feePayer: server.feePayer, pools: server.pools },
        policy: server.policy,
        slotMs: server.slotMs,
        api: adversaryApi,
        wallets: { sender: ownSender.address, freshRecipient: (await generateKeyPairSigner()).address, holdingRecipient: holding },
      },
      ownTransfers,
      fromSlot,
    );
    phase('adversary');
    // What the bench counts on the chain for privacy.releasedWith: a class's payouts no further apart than a
    // release's spread plus Hush's latency (which does not scale with c) are one release.
    const payoutSlot = new Map(adversary.view.payouts.map((p) => [`${p.recipient}:${p.assetId}`, p.slot]));
    const spanSlots = Math.ceil((spec.policy.windowS.max - spec.policy.windowS.min) / 0.4) + 5 * c + 5;
    const bursts = chainBurstSizes([...records], payoutSlot, spanSlots);
    if (spec.workloads.some((w) => w.partnerFees)) for (const l of releaseLog(records, payoutSlot, spanSlots, { fromSlot, slotMs: server.slotMs, t0, c })) spec.log(l);
    const quotesFromMs = (Math.min(spec.policy.trafficWindowS, spec.policy.budgetS) * 1000) / c;
    const active = spec.workloads.filter((w) => !w.rates || w.rates.includes(spec.rate));
    const targetSet = spec.policy.k ?? spec.policy.targetSet;
    const meta = (row: string, label: string, planned: (p: PlannedOrder) => boolean) => ({ row, label, rate: spec.rate, compression: c, planned: plans.filter((p) => planned(p) && inScoredSpan(p)).length, quotesFromMs, bursts, targetSet });
    const jobs = active.map((w) => ({ records: records.filter((r) => r.plan.stream === w.id), meta: meta(w.id, w.label, (p) => p.stream === w.id) }));
    // A stream of mixed choices also scores its orders that chose nothing, on the same attack of the whole
    // stream: whether the patient ones cost them anything.
    // (Only where some orders chose nothing: a row of none would fail the self-checks for being empty.)
    for (const w of active.filter((x) => x.choice && records.some((r) => r.plan.stream === x.id && !r.plan.privacy))) {
      jobs.push({
        records: records.filter((r) => r.plan.stream === w.id).map((r) => ({ ...r, scored: r.scored && !r.plan.privacy })),
        meta: meta(`${w.id}-default`, `${w.label}: its default orders`, (p) => p.stream === w.id && !p.privacy),
      });
    }
    // Scoring needs neither the chain nor Hush: stop them (a Hush left running polls its chain) and let the
    // run's place go to the next run while this one scores (bench:privacy's queue).
    await server.close();
    closed = true;
    spec.chainDone?.();
    const rows = await scoreRows({ view: adversary.view, knowledge: { ...adversary.knowledge, schedule: adversary.scheduleData }, seed: Math.floor(spec.random() * 2 ** 31), rows: jobs });
    phase('scored');
    return { rows, failedOrders: failed, unswept, wallSeconds: (Date.now() - started) / 1000, rpcRequests: adversary.view.requests, ownDelaysS: adversary.ownDelaysS };
  } finally {
    if (!closed) await server.close();
  }
}
