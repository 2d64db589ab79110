/**
 * The compute-unit price a Hush transaction offers (docs/decisions.md, "Priority fees from the market"): from
 * the recent per-slot fees of the accounts it writes (getRecentPrioritizationFees, src/chain/fee-market.ts),
 * Hush's own recent landings, a level per purpose, a cap per transaction, and an escalation on each re-sign
 * after expiry. Pure: the caller brings what the chain said and what Hush saw.
 */

/** How soon a transaction must land. */
export type FeeLevel = 'cheap' | 'medium' | 'fast';

/** What a transaction does, which decides its level (PURPOSE_LEVEL). */
export type FeePurpose = 'payout' | 'refund' | 'lateRefund' | 'partnerPayout' | 'sweep' | 'lateSweep' | 'deposit';

/**
 * Each transaction's base fee (5,000 lamports a signature): Hush's carry the fee payer's and a pool's or a
 * deposit owner's signatures; a deposit only its sender's.
 */
export const BASE_FEE_LAMPORTS = { hush: 10_000n, deposit: 5_000n } as const;

export const PURPOSE_LEVEL: Readonly<Record<FeePurpose, FeeLevel>> = {
  // Somebody is waiting for these.
  payout: 'fast',
  refund: 'fast',
  // The sender is owed it, but no partner watches the minute it lands.
  lateRefund: 'medium',
  partnerPayout: 'medium',
  // Custody moves: nobody waits, and they are the bulk of Hush's own transactions.
  sweep: 'cheap',
  lateSweep: 'cheap',
  // The partner's user signs it: it must land within its blockhash's life, not within seconds.
  deposit: 'medium',
};

export interface LevelRule {
  /** Recent slots the level reads. */
  windowSlots: number;
  /** Quantile, across those slots, of the per-slot fee (0..1): the share of recent slots the price would have cleared. */
  quantile: number;
  /** The price never goes below this (micro-lamports per CU): a calm chain's fee of 0 is no reason to offer nothing. */
  floor: bigint;
}

export const LEVEL_RULES: Readonly<Record<FeeLevel, LevelRule>> = {
  fast: { windowSlots: 10, quantile: 0.6, floor: 500n },
  medium: { windowSlots: 50, quantile: 0.5, floor: 200n },
  cheap: { windowSlots: 150, quantile: 0.25, floor: 100n },
};

/**
 * The percentile the fee market asks an endpoint that takes one (Triton's `percentile`, basis points): low,
 * because what lands a transaction is beating a block's marginal price, not its typical one; above the
 * minimum, because the leader lets a few transactions in whatever they pay, and a slot's lowest price is
 * then one of those (often 0, busy or not).
 */
export const MARKET_PERCENTILE_BPS = 300;

/** A recent slot's fee as the endpoint reported it for the transaction's writable accounts. */
export interface SlotFee {
  slot: bigint;
  fee: bigint;
}

/** What the fee market answered: per slot, in the percentile form (its basis points) or the agave minimum (null). */
export interface MarketFees {
  slots: readonly SlotFee[];
  percentileBps: number | null;
}

/** One of Hush's own transactions that landed: the price it offered and how many slots after its first send. */
export interface OwnLanding {
  slot: bigint;
  price: bigint;
  waitedSlots: number;
  /**
   * It was sent again before it landed (a rebroadcast): its wait may be a lost send's, whatever its price, so it
   * says nothing of the market's edge (ownEvidence's floor leaves it out). Absent: not known, counted.
   */
  resent?: boolean;
}

/** Own landings this recent (slots) count; older ones describe another market. */
export const OWN_WINDOW_SLOTS = 150;
/** A landing slower than this many slots after its first send says the price was at the market's edge. */
export const PROMPT_SLOTS = 2;
/** When a third of recent landings were slow, the market is above what they paid: this much above. */
const SLOW_STEP_BPS = 12_500n;
/** Each re-sign after an expiry offers at least this much more than the attempt that expired. */
export const ESCALATION_BPS = 15_000n;

export interface FeeQuestion {
  level: FeeLevel;
  /** What getRecentPrioritizationFees said (through the fee market); null when it could not be asked. */
  market: MarketFees | null;
  /** Hush's own recent landings (any purpose: the same fee payer and pools). */
  own: readonly OwnLanding[];
  /** The newest slot Hush knows of: what "recent" is measured from. */
  tipSlot: bigint;
  /** The transaction's compute-unit limit and its base fee (5,000 lamports a signature). */
  computeUnits: number;
  baseFeeLamports: bigint;
  /** The most this transaction may cost in lamports, base fee included. */
  capLamports: bigint;
  /** The price of the attempt that expired, for a re-sign; absent for a first signing. */
  previousPrice?: bigint;
  /** The price when nothing is known (no market answer and no landing): the configured static price. */
  fallbackPrice: bigint;
}

export type FeeBasis = 'market' | 'own' | 'fallback' | 'floor' | 'escalated';

export interface FeeAnswer {
  /** Micro-lamports per compute unit. */
  microLamportsPerCu: bigint;
  /** True when the cap, not the market, set the price: a transaction that may not land soon (ALERT material). */
  capped: boolean;
  /** What set the price before the cap. */
  basis: FeeBasis;
}

function compare(a: bigint, b: bigint): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

/** The value at quantile `q` (0..1) of `values`, nearest rank from below; null for none. */
export function quantile(values: readonly bigint[], q: number): bigint | null {
  if (values.length === 0) return null;
  const sorted = [...values].sort(compare);
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!;
}

/**
 * A slot's reading no higher than the dearest price Hush itself landed at in that slot may be Hush's own echo
 * (docs/decisions.md, "Priority fees from the market: Hush's own echo"): the endpoint's per-account figure is the
 * lowest (or a low percentile) of what the transactions writing the account paid, and Hush's fee payer and
 * pools are written mostly by Hush, so such a slot says only that the market was at most that. It counts this
 * much below its reading: read at face value, a price Hush once paid holds itself up for as long as Hush signs
 * (the fixed point bench:landing's warm-up found), while a step down per reading lets it sink back to where the
 * market's own slots, uncensored above Hush's price, take over again.
 */
export const ECHO_STEP_BPS = 9_500n;

/** Per slot, the dearest price Hush landed at in it (the echo test of marketPrice). */
function ownDearest(own: readonly OwnLanding[]): Map<bigint, bigint> {
  const out = new Map<bigint, bigint>();
  for (const o of own) if (o.price > (out.get(o.slot) ?? -1n)) out.set(o.slot, o.price);
  return out;
}

/**
 * What the market asks at this level: the level's quantile of its recent slots' fees, in either form (the
 * agave form's minimums, leaked zeros and all, lands as well at the same quantile and costs a little more:
 * docs/decisions.md), a slot Hush's own landings may have set counted a step below its reading (ECHO_STEP_BPS);
 * 0 for a market of zeros, null when it said nothing (no slots).
 */
export function marketPrice(market: MarketFees, rule: LevelRule, own: readonly OwnLanding[] = []): bigint | null {
  const newest = market.slots.reduce((m, s) => (s.slot > m ? s.slot : m), -1n);
  const mine = ownDearest(own);
  const fees = market.slots.filter((s) => s.slot > newest - BigInt(rule.windowSlots)).map((s) => {
    const paid = mine.get(s.slot);
    return paid !== undefined && s.fee <= paid ? (s.fee * ECHO_STEP_BPS) / 10_000n : s.fee;
  });
  return quantile(fees, rule.quantile);
}

/**
 * What Hush's own landings say: `known`, the median price of those that landed promptly (what worked, for
 * when the market said nothing); `floor`, when a third or more of those sent once landed slowly, their median
 * a quarter up (the market ran above them, whatever the endpoint reports). A rebroadcast landing counts for
 * neither side of the floor: with a tenth of sends lost, a lost first send lands a rebroadcast (~5 slots)
 * later at any price, and counted as slow it lifted the price that then landed as slowly for the same
 * reason (docs/decisions.md, "Priority fees from the market: Hush's own echo").
 */
export function ownEvidence(own: readonly OwnLanding[], tipSlot: bigint): { known: bigint | null; floor: bigint } {
  const recent = own.filter((o) => o.slot > tipSlot - BigInt(OWN_WINDOW_SLOTS));
  const prompt = recent.filter((o) => o.waitedSlots <= PROMPT_SLOTS).map((o) => o.price);
  const once = recent.filter((o) => o.resent !== true);
  const slow = once.filter((o) => o.waitedSlots > PROMPT_SLOTS).map((o) => o.price);
  const floor = slow.length >= 3 && slow.length * 3 >= once.length ? (quantile(slow, 0.5)! * SLOW_STEP_BPS) / 10_000n : 0n;
  return { known: quantile(prompt, 0.5), floor };
}

/** The highest price whose priority fee keeps the transaction within its cap: floor((cap − base) × 10⁶ / units). */
export function capPrice(capLamports: bigint, baseFeeLamports: bigint, computeUnits: number): bigint {
  if (computeUnits <= 0 || capLamports <= baseFeeLamports) return 0n;
  return ((capLamports - baseFeeLamports) * 1_000_000n) / BigInt(computeUnits);
}

/** What a transaction pays at `price`: its base fee and its priority fee, rounded up as the runtime does. */
export function transactionLamports(price: bigint, computeUnits: number, baseFeeLamports: bigint): bigint {
  return baseFeeLamports + (price * BigInt(computeUnits) + 999_999n) / 1_000_000n;
}

/** The price to sign with (docs/decisions.md): market, own evidence, floor and escalation, then the cap. */
export function estimateComputeUnitPrice(q: FeeQuestion): FeeAnswer {
  const rule = LEVEL_RULES[q.level];
  const fromMarket = q.market ? marketPrice(q.market, rule, q.own) : null;
  const own = ownEvidence(q.own, q.tipSlot);
  let price: bigint;
  let basis: FeeBasis;
  if (fromMarket !== null) [price, basis] = [fromMarket, 'market'];
  else if (own.known !== null) [price, basis] = [own.known, 'own'];
  else [price, basis] = [q.fallbackPrice, 'fallback'];
  if (own.floor > price) [price, basis] = [own.floor, 'own'];
  if (rule.floor > price) [price, basis] = [rule.floor, 'floor'];
  if (q.previousPrice !== undefined) {
    const escalated = (q.previousPrice * ESCALATION_BPS + 9_999n) / 10_000n;
    if (escalated > price) [price, basis] = [escalated, 'escalated'];
  }
  const cap = capPrice(q.capLamports, q.baseFeeLamports, q.computeUnits);
  return price > cap ? { microLamportsPerCu: cap, capped: true, basis } : { microLamportsPerCu: price, capped: false, basis };
}
