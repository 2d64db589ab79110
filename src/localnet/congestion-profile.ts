import { seeded } from '../support/seeded-random.ts';

/**
 * How busy the congested chain is (docs/decisions.md, "A local chain that congests"): a block's compute
 * capacity and, per slot, the background traffic that competes for it. The traffic of a slot is a pure
 * function of (profile, seed, slot), so a seed replays the same market whatever the senders do.
 */
export type CongestionProfileName = 'calm' | 'busy' | 'spike';
export const CONGESTION_PROFILES: readonly CongestionProfileName[] = ['calm', 'busy', 'spike'];

export interface CongestionOptions {
  profile: CongestionProfileName;
  seed: number;
  /** Share of sends (first or rebroadcast) lost before they reach the leader, well priced or not. */
  dropRate: number;
  /** Slots a sent transaction waits in the leader's queue for a block it clears; then it is dropped. */
  queueSlots: number;
  /** Accounts background traffic also writes (a pool everybody writes): each its own local fee market. */
  hotAccounts: readonly string[];
}

export const CONGESTION_DEFAULTS: Omit<CongestionOptions, 'profile'> = { seed: 1, dropRate: 0, queueSlots: 6, hotAccounts: [] };

/** Agave's block cost limit and its per-account write limit (a quarter of it), in compute units. */
export const BLOCK_COMPUTE_UNITS = 48_000_000;
export const ACCOUNT_COMPUTE_UNITS = 12_000_000;

interface Profile {
  /** Background demand as a multiple of block capacity, at the cycle's middle, and the cycle's swing (±, relative). */
  load: number;
  loadSwing: number;
  /** Median price (micro-lamports per CU) of background transactions that pay one, and the cycle's swing (× or ÷). */
  median: number;
  medianSwing: number;
  /** Share of background transactions paying no priority fee. */
  zeroShare: number;
  /** Slots per calm-to-busy cycle. */
  period: number;
  /** Every `every` slots a spike of `length` slots: demand and median rise and fall back by these factors at its peak. */
  spike: { every: number; length: number; load: number; median: number } | null;
}

export const PROFILES: Readonly<Record<CongestionProfileName, Profile>> = {
  // Blocks rarely full: a transaction paying nothing lands, and the slot's lowest fee is 0.
  calm: { load: 0.55, loadSwing: 0.2, median: 2_000, medianSwing: 1.5, zeroShare: 0.35, period: 900, spike: null },
  // Demand near twice capacity: about the top half of it lands, the clearing price moves over minutes.
  busy: { load: 1.8, loadSwing: 0.25, median: 20_000, medianSwing: 2, zeroShare: 0.15, period: 600, spike: null },
  // Calm, with a burst every two minutes (at 400 ms) that fills blocks at ten times the price for ~24 s.
  spike: { load: 0.7, loadSwing: 0.2, median: 3_000, medianSwing: 1.5, zeroShare: 0.3, period: 900, spike: { every: 300, length: 60, load: 3, median: 10 } },
};

/** Log-normal spread of background prices around the slot's median, and the slot's own wobble of that median. */
const PRICE_SIGMA = 1.2;
const SLOT_MEDIAN_SIGMA = 0.2;
const SLOT_LOAD_NOISE = 0.1;
/** A background transaction's compute units: uniform in this range. */
const MIN_UNITS = 20_000;
const MAX_UNITS = 300_000;
/** Hot-account writers pay this much more than the slot's median: those markets are competed for. */
const HOT_PREMIUM = 2;
/**
 * The leader is not a strict auction (bundles, its own transactions, batches scheduled before the queue is
 * sorted): in this share of slots up to three background transactions land whatever they pay, which is
 * why the agave form's per-slot minimum is so often 0 on mainnet, busy or not.
 */
const LEAK_CHANCE = 0.4;

export interface BackgroundTransaction {
  units: number;
  price: bigint;
  /** The hot account it writes, if any (its other writes are its own and never contended). */
  hot: string | null;
  /** Lands whatever it pays (the leader's non-strict scheduling, above). */
  leak: boolean;
}

/** A generator for one slot's draws: the same (seed, slot) always draws the same. */
function slotRandom(seed: number, slot: bigint): () => number {
  return seeded(Math.imul(seed ^ 0x2545f491, 0x9e3779b1) ^ Number(slot & 0xffffffffn) ^ Number((slot >> 32n) & 0xffffn));
}

function normal(rand: () => number): number {
  return Math.sqrt(-2 * Math.log(1 - rand())) * Math.cos(2 * Math.PI * rand());
}

/** The slot's demand level and median price, before the slot's own noise: where the cycle and any spike stand. */
export function marketLevel(profile: Profile, seed: number, slot: bigint): { load: number; median: number } {
  const phase = (((seed >>> 0) % 997) / 997) * 2 * Math.PI;
  const wave = Math.sin((2 * Math.PI * Number(slot % BigInt(profile.period))) / profile.period + phase);
  let load = profile.load * (1 + profile.loadSwing * wave);
  let median = profile.median * profile.medianSwing ** wave;
  if (profile.spike) {
    const at = Number((slot + BigInt(seed >>> 0)) % BigInt(profile.spike.every));
    if (at < profile.spike.length) {
      const ramp = Math.sin((Math.PI * (at + 0.5)) / profile.spike.length);
      load *= 1 + (profile.spike.load - 1) * ramp;
      median *= profile.spike.median ** ramp;
    }
  }
  return { load, median };
}

/** The background traffic that wants into `slot`'s block: enough transactions to make its demand. */
export function backgroundTraffic(options: Pick<CongestionOptions, 'profile' | 'seed' | 'hotAccounts'>, slot: bigint): BackgroundTransaction[] {
  const profile = PROFILES[options.profile];
  const rand = slotRandom(options.seed, slot);
  const level = marketLevel(profile, options.seed, slot);
  const load = level.load * (1 + SLOT_LOAD_NOISE * (2 * rand() - 1));
  const median = level.median * Math.exp(SLOT_MEDIAN_SIGMA * normal(rand));
  const out: BackgroundTransaction[] = [];
  const draw = (budget: number, hot: string | null, premium: number) => {
    for (let used = 0; used < budget; ) {
      const units = MIN_UNITS + Math.floor(rand() * (MAX_UNITS - MIN_UNITS));
      const paid = rand() < profile.zeroShare ? 0 : Math.floor(median * premium * Math.exp(PRICE_SIGMA * normal(rand)));
      out.push({ units, price: BigInt(paid), hot, leak: false });
      used += units;
    }
  };
  draw(load * BLOCK_COMPUTE_UNITS, null, 1);
  // Each hot account is wanted as much as the block is, against a quarter of the room.
  for (const hot of options.hotAccounts) draw(load * ACCOUNT_COMPUTE_UNITS, hot, HOT_PREMIUM);
  if (rand() < LEAK_CHANCE) for (let n = 1 + Math.floor(rand() * 3); n > 0; n--) out[Math.floor(rand() * out.length)]!.leak = true;
  return out;
}

/** LOCALNET_CONGESTION (off, calm, busy, spike) and its knobs; null when off, the default. */
export function congestionFromEnv(env: NodeJS.ProcessEnv): CongestionOptions | null {
  const raw = env.LOCALNET_CONGESTION;
  if (raw === undefined || raw === '' || raw === 'off') return null;
  if (!(CONGESTION_PROFILES as readonly string[]).includes(raw)) throw new Error(`LOCALNET_CONGESTION must be off, calm, busy or spike, got "${raw}"`);
  const num = (name: string, fallback: number, min: number, max: number, integer: boolean) => {
    const v = env[name];
    if (v === undefined || v === '') return fallback;
    const n = Number(v);
    if (!Number.isFinite(n) || n < min || n > max || (integer && !Number.isInteger(n))) throw new Error(`${name} must be ${integer ? 'an integer' : 'a number'} between ${min} and ${max}, got "${v}"`);
    return n;
  };
  return {
    profile: raw as CongestionProfileName,
    seed: num('LOCALNET_CONGESTION_SEED', CONGESTION_DEFAULTS.seed, 0, 2 ** 32 - 1, true),
    dropRate: num('LOCALNET_DROP_RATE', CONGESTION_DEFAULTS.dropRate, 0, 1, false),
    queueSlots: num('LOCALNET_QUEUE_SLOTS', CONGESTION_DEFAULTS.queueSlots, 1, 150, true),
    hotAccounts: (env.LOCALNET_HOT_ACCOUNTS ?? '').split(',').map((a) => a.trim()).filter(Boolean),
  };
}
