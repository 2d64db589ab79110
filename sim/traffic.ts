import type { Random } from '../src/support/random.ts';

export const PROFILES = ['steady', 'cold-crowd', 'burst', 'daily', 'test-sends'] as const;
export type Profile = (typeof PROFILES)[number];

/** How a user's deposit differs from what the order asks. */
export type DepositKind =
  /** Hush's own transaction, signed as handed out. */
  | 'exact'
  /** The user's own transaction with less than amountIn (refunded: deposit_short). */
  | 'short'
  /** The user's own transaction with more than amountIn (refunded: deposit_over). */
  | 'over'
  /** Never sent: the order expires. */
  | 'none';

export type AssetId = 'sol' | 'usdc';

/** One user's visit, drawn from the seed: what it asks for and how it behaves. */
export interface Session {
  /** Its place in the schedule (what shrinking removes and a replay names). */
  id: number;
  /** When it starts, in ms after the run's start. */
  at: number;
  partner: number;
  source: AssetId;
  destination: AssetId;
  /** The pinned amount (exact_in: amountIn), base units. */
  amount: bigint;
  /** On the source asset's menu: held for its class. */
  menu: boolean;
  privacy: { minAnonymitySet: number } | { maxDelaySeconds: number } | null;
  feeBps: number;
  deposit: DepositKind;
  /** Sends the deposit's signature to POST /deposit. */
  hint: boolean;
  /** Orders with an Idempotency-Key (else the quote is the key). */
  idempotencyKey: boolean;
  /** Sends the same order request again (a client's retry after a lost answer). */
  retryOrder: boolean;
  /** How long the user takes to sign, ms: past the blockhash's life it must refresh. */
  signDelayMs: number;
  /** The sender's address is on the screening provider's list. */
  sanctioned: boolean;
  /** Funds another wallet sends to the deposit account after the order ends (late, foreign funds). */
  lateFunds: boolean;
  /**
   * Sent from the wallet this number names, shared by every session with the same number (a partner's test
   * sends from one wallet, profile test-sends); absent: a wallet of its own.
   */
  wallet?: number;
}

export interface TrafficOptions {
  profile: Profile;
  /** Simulated run length, ms. */
  durationMs: number;
  /** Mean orders per second (the profile shapes it). */
  rate: number;
  partners: number;
  /** The share of sessions with each misbehaviour (0 for a clean run). */
  mischief: number;
}

/** Menu amounts (the decade menu, docs/spec.md §9) and a few amounts off it, per asset. */
const MENU: Record<AssetId, bigint[]> = {
  sol: [10_000_000n, 100_000_000n, 1_000_000_000n],
  usdc: [1_000_000n, 10_000_000n, 100_000_000n],
};
const OFF_MENU: Record<AssetId, bigint[]> = {
  sol: [12_345_678n, 250_000_000n, 730_000_000n],
  usdc: [2_500_000n, 12_340_000n, 57_000_000n],
};

/** Arrival times of the profile, ms from the start, in order. */
function arrivals(o: TrafficOptions, random: Random): number[] {
  const out: number[] = [];
  const exp = (rate: number) => (-Math.log(1 - random.float()) / rate) * 1000;
  if (o.profile === 'steady' || o.profile === 'daily' || o.profile === 'test-sends') {
    // daily: a rate that swings between a fifth and 1.8× its mean over the run (one simulated day's cycle).
    const rateAt = (t: number) => (o.profile === 'daily' ? o.rate * (1 + 0.8 * Math.sin((2 * Math.PI * t) / o.durationMs)) : o.rate);
    const peak = o.profile === 'daily' ? o.rate * 1.8 : o.rate;
    for (let t = exp(peak); t < o.durationMs; t += exp(peak)) if (random.float() < rateAt(t) / peak) out.push(Math.round(t));
    return out;
  }
  if (o.profile === 'cold-crowd') {
    // A fresh Hush meets a crowd at twice the rate for the first part of the run, then quiet.
    const crowdMs = Math.min(o.durationMs, 60_000);
    for (let t = exp(o.rate * 2); t < crowdMs; t += exp(o.rate * 2)) out.push(Math.round(t));
    return out;
  }
  // burst: bursts of 10–40 orders within a few seconds, with quiet between, at the mean rate overall.
  for (let t = 0; t < o.durationMs; ) {
    const n = 10 + random.int(31);
    for (let i = 0; i < n; i++) out.push(Math.round(t + random.float() * 3000));
    t += (n / o.rate) * 1000;
  }
  return out.filter((t) => t < o.durationMs).sort((a, b) => a - b);
}

/** The run's users, drawn from the seed's traffic stream. */
export function drawSessions(o: TrafficOptions, random: Random): Session[] {
  const pick = <T>(list: readonly T[]): T => list[random.int(list.length)]!;
  const chance = (p: number) => random.float() < p;
  const crowd = o.profile === 'cold-crowd';
  if (o.profile === 'test-sends') return arrivals(o, random).map((at, id) => testSend(o, at, id, random));
  const sessions = arrivals(o, random).map((at, id): Session => {
    const source: AssetId = crowd ? 'usdc' : chance(0.6) ? 'sol' : 'usdc';
    const destination: AssetId = chance(crowd ? 0.2 : 0.15) ? (source === 'sol' ? 'usdc' : 'sol') : source;
    const menu = crowd || chance(0.6);
    const amount = menu ? pick(MENU[source]) : pick(OFF_MENU[source]);
    const m = o.mischief;
    const deposit: DepositKind = chance(m * 0.3) ? 'none' : chance(m * 0.15) ? 'short' : chance(m * 0.1) ? 'over' : 'exact';
    const privacy = !menu || !chance(0.3) ? null : chance(0.5) ? { minAnonymitySet: 1 + random.int(8) } : { maxDelaySeconds: random.int(300) };
    return {
      id,
      at,
      partner: random.int(o.partners),
      source,
      destination,
      amount,
      menu,
      privacy,
      feeBps: chance(0.5) ? 0 : 10 + random.int(40),
      deposit,
      hint: chance(0.4),
      idempotencyKey: chance(0.7),
      retryOrder: chance(m * 0.5),
      signDelayMs: chance(m * 0.2) ? 60_000 + random.int(60_000) : 500 + random.int(5_000),
      sanctioned: chance(m * 0.1),
      lateFunds: deposit === 'exact' && chance(m * 0.1),
    };
  });
  // A run with misbehaving users has late funds early enough to be swept and refunded within it (a short run may
  // draw none): the first exact deposits of senders screening lets through send some, drawing nothing more.
  if (o.mischief > 0) for (const s of sessions.filter((x) => x.deposit === 'exact' && !x.sanctioned).slice(0, LATE_AT_LEAST)) s.lateFunds = true;
  return sessions;
}

/** Late funds a run with mischief has at least. */
const LATE_AT_LEAST = 2;

/**
 * Partners testing on an otherwise idle Hush (issue 71): each of two wallets repeats its own standard USDC amount
 * (a class of its own), some deposits of the wrong amount (refunded); nobody else uses those classes, so no send
 * may be held for a crowd (checkTestSends).
 */
function testSend(o: TrafficOptions, at: number, id: number, random: Random): Session {
  const wallet = random.int(TEST_WALLETS);
  const m = o.mischief;
  const deposit: DepositKind = random.float() < m * 0.15 ? 'short' : random.float() < m * 0.1 ? 'over' : 'exact';
  return {
    id,
    at,
    partner: wallet % o.partners,
    source: 'usdc',
    destination: 'usdc',
    amount: MENU.usdc[wallet]!,
    menu: true,
    privacy: null,
    feeBps: 0,
    deposit,
    hint: random.float() < 0.4,
    idempotencyKey: true,
    retryOrder: random.float() < m * 0.5,
    signDelayMs: 500 + random.int(5_000),
    sanctioned: false,
    lateFunds: false,
    wallet,
  };
}

/** The wallets of profile test-sends, each with its own class. */
export const TEST_WALLETS = 2;

/** A session as one line of a replay (what shrinking prints). */
export function describeSession(s: Session): string {
  const extras = [
    s.privacy ? JSON.stringify(s.privacy) : '',
    s.feeBps ? `fee ${s.feeBps}bps` : '',
    s.deposit !== 'exact' ? `deposit ${s.deposit}` : '',
    s.hint ? 'hint' : '',
    s.retryOrder ? 'retried order' : '',
    s.signDelayMs > 60_000 ? `signs after ${Math.round(s.signDelayMs / 1000)} s` : '',
    s.sanctioned ? 'sanctioned sender' : '',
    s.lateFunds ? 'late funds' : '',
    s.wallet !== undefined ? `wallet ${s.wallet}` : '',
  ].filter(Boolean);
  return `#${s.id} at ${(s.at / 1000).toFixed(1)} s: partner ${s.partner} ${s.amount} ${s.source}→${s.destination}${s.menu ? ' (menu)' : ''}${extras.length ? `, ${extras.join(', ')}` : ''}`;
}
