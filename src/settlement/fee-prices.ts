import type { FeeMarket } from '../chain/fee-market.ts';
import { computeUnitPriceOfWire } from '../chain/wire-price.ts';
import { BASE_FEE_LAMPORTS, estimateComputeUnitPrice, OWN_WINDOW_SLOTS, PURPOSE_LEVEL, type FeeAnswer, type FeeLevel, type FeePurpose, type MarketFees, type OwnLanding } from '../domain/fee-estimate.ts';
import type { FeeSettings } from '../config/fee-settings.ts';
import type { Clock } from '../support/clock.ts';
import type { ChainTx } from '../store/settlement/chain-tx.ts';
import type { Log } from './deps.ts';

/** What the fee port reads: the market (null: static pricing), the accounts Hush writes, the slot, the settings. */
export interface FeePricesPort {
  /** The fee market over the chain's budgeted calls; null under HUSH_FEE_PRICING=static. */
  readonly market: Pick<FeeMarket, 'recentFees'> | null;
  /** The accounts every Hush transaction may write that others write too: the fee payer and the pools. */
  accounts(): readonly string[];
  /** The newest slot known without a call (the slot clock's notified or polled one) and when it was seen. */
  knownSlot(): { slot: bigint; at: number } | null;
  readonly slotMs: number;
  readonly clock: Pick<Clock, 'now'>;
  readonly settings: FeeSettings & { computeUnitLimit: number; computeUnitPriceMicroLamports: bigint };
  readonly log: Log;
  /** The market is asked at most this often while Hush signs (default: a slot, and never more than every 400 ms). */
  readonly minRefreshMs?: number;
}

/** What a fee market answer may be old before a signing waits for a fresh one (slots): after an idle spell. */
const STALE_SLOTS = 30;
/** The market is asked at most once a slot while Hush signs (idle, once per IDLE_READ_MS), and at most this often. */
const MIN_REFRESH_MS = 400;
/**
 * An idle worker reads the market this often (at most): the quote grid steps on readings, and a Hush that
 * signs nothing in a busy hour must still move its quotes' networkFee (one call per 30 s idle: 0.033 a
 * second on the idle budget's 1). While it signs, the once-a-slot refreshes already read it and this adds none.
 */
export const IDLE_READ_MS = 30_000;
/** Own landings kept (the estimate reads the last OWN_WINDOW_SLOTS of them). */
const OWN_KEPT = 512;
/** Signatures whose first send is remembered, for how long their landing took. */
const SENT_KEPT = 8_192;
/** The grid's reading is not capped: it follows the market, the cap is per transaction. */
const NO_CAP = 1n << 62n;

/**
 * Each purpose's current compute-unit price (docs/decisions.md, "Priority fees from the market: the wiring"),
 * for the signers' synchronous `shape`: the fee market's last answer (src/chain/fee-market.ts) and Hush's own
 * landings, through estimateComputeUnitPrice. The market is asked when a signing asks for a price (warm,
 * ready), at most once a slot, and by an idle worker once per 30 s (readIdle: the quote grid must step in a
 * busy hour without orders); a signing after an idle spell waits for one answer (ready). One account set for
 * every purpose (fee payer and pools: one call, not one per pool).
 */
export class FeePrices {
  private market: MarketFees | null = null;
  private marketAt = Number.NEGATIVE_INFINITY;
  /** When the market was last asked (answered or not), and last failed to answer. */
  private askedAt = Number.NEGATIVE_INFINITY;
  private failedAt = Number.NEGATIVE_INFINITY;
  private refreshing: Promise<void> | null = null;
  private readonly own: OwnLanding[] = [];
  /** Per signature sent, the slot of its first send and whether it was sent again since (a rebroadcast). */
  private readonly firstSent = new Map<string, { slot: bigint; resent: boolean }>();
  /** Per purpose, the price of the last attempt that expired unlanded: the next signing escalates from it. */
  private readonly expiredAt = new Map<FeePurpose, bigint>();
  /** Told each fresh `fast` reading (the quote grid follows it: src/settlement/fee-grid-observer.ts). */
  onFastReading: ((price: bigint) => void) | null = null;

  constructor(private readonly port: FeePricesPort) {}

  get static(): boolean {
    return this.port.market === null;
  }

  /** The price to sign a transaction of `purpose` with now; `previousPrice`: the attempt a re-sign replaces. */
  price(purpose: FeePurpose, previousPrice?: bigint): FeeAnswer {
    const s = this.port.settings;
    if (this.static) return { microLamportsPerCu: s.computeUnitPriceMicroLamports, capped: false, basis: 'fallback' };
    const expired = this.expiredAt.get(purpose);
    const previous = previousPrice ?? expired;
    return this.estimate(PURPOSE_LEVEL[purpose], s.feeCapLamports[purpose], purpose === 'deposit' ? BASE_FEE_LAMPORTS.deposit : BASE_FEE_LAMPORTS.hush, previous);
  }

  /** Starts a refresh when the last answer is a refresh period old (never awaited: signing reads what is there). */
  warm(): void {
    if (this.static || this.refreshing) return;
    const now = this.port.clock.now();
    if (now - this.askedAt < (this.port.minRefreshMs ?? Math.max(this.port.slotMs, MIN_REFRESH_MS))) return;
    this.askedAt = now;
    this.refreshing = this.port.market!.recentFees(this.port.accounts())
      .then((m) => {
        this.market = m;
        this.marketAt = this.port.clock.now();
        this.onFastReading?.(this.estimate('fast', NO_CAP, BASE_FEE_LAMPORTS.hush).microLamportsPerCu);
      })
      .catch((e: unknown) => {
        this.failedAt = this.port.clock.now();
        this.port.log({ err: e }, 'fee market not read; pricing from own landings');
      })
      .finally(() => (this.refreshing = null));
  }

  /**
   * The idle worker's reading (its own loop, every IDLE_READ_MS): asks the market only when nothing has asked
   * it for that long, so the grid the quotes are priced at follows the market whether or not Hush signs
   * anything. Never throws (a failed call is logged by warm).
   */
  readIdle(): Promise<void> {
    if (this.static || this.port.clock.now() - this.askedAt < IDLE_READ_MS) return Promise.resolve();
    this.warm();
    return this.refreshing ?? Promise.resolve();
  }

  /**
   * Before a signing: refreshes, and waits for the answer only when the last one is stale (after an idle spell)
   * and the market has not failed to answer lately: an unreadable market must not hold every payout up for a
   * call's timeout (they are priced from own landings meanwhile).
   */
  async ready(): Promise<void> {
    this.warm();
    const now = this.port.clock.now();
    const stale = STALE_SLOTS * this.port.slotMs;
    if (this.refreshing && now - this.marketAt > stale && now - this.failedAt > stale) await this.refreshing;
  }

  /** The slot now, from the last one known and the time since (no call). */
  slotNow(): bigint | null {
    const k = this.port.knownSlot();
    if (!k) return this.newestMarketSlot();
    return k.slot + BigInt(Math.max(0, Math.floor((this.port.clock.now() - k.at) / this.port.slotMs)));
  }

  /** Signatures sent for the first time: the slot they left at, to count how long their landing took. */
  sent(signatures: readonly string[]): void {
    const slot = this.slotNow();
    if (slot === null) return;
    for (const s of signatures) if (!this.firstSent.has(s)) this.firstSent.set(s, { slot, resent: false });
    // Oldest first (a Map keeps insertion order), without copying every key on each send once full.
    for (const k of this.firstSent.keys()) {
      if (this.firstSent.size <= SENT_KEPT) break;
      this.firstSent.delete(k);
    }
  }

  /** A signature sent again (the settle loop's rebroadcast): its landing's wait may be a lost send's, not its price's. */
  resent(signature: string): void {
    const f = this.firstSent.get(signature);
    if (f) f.resent = true;
  }

  /** One of Hush's transactions landed in `slot`: its price and wait become evidence; its purpose's escalation ends. */
  landed(t: { signature: string; wire: string }, purpose: FeePurpose | null, slot: bigint | undefined): void {
    const sentAt = this.firstSent.get(t.signature);
    this.firstSent.delete(t.signature);
    if (purpose) this.expiredAt.delete(purpose);
    const price = computeUnitPriceOfWire(t.wire);
    if (slot === undefined || sentAt === undefined || price === null) return;
    this.ownLanding({ slot, price, waitedSlots: Math.max(0, Number(slot - sentAt.slot)), resent: sentAt.resent });
  }

  /** A landing as evidence (landed() reads it from a recorded transaction; bench:landing's own sender gives it so). */
  ownLanding(l: OwnLanding): void {
    this.own.push(l);
    const tip = l.slot - BigInt(OWN_WINDOW_SLOTS);
    while (this.own.length > OWN_KEPT || (this.own.length > 0 && this.own[0]!.slot <= tip)) this.own.shift();
  }

  /** An attempt expired unlanded: the next signing of its purpose offers at least 1.5× its price (up to the cap). */
  expired(t: { signature: string; wire: string }, purpose: FeePurpose | null): void {
    this.firstSent.delete(t.signature);
    const price = computeUnitPriceOfWire(t.wire);
    if (!purpose || price === null) return;
    if (price > (this.expiredAt.get(purpose) ?? -1n)) this.expiredAt.set(purpose, price);
  }

  private estimate(level: FeeLevel, capLamports: bigint, baseFeeLamports: bigint, previousPrice?: bigint): FeeAnswer {
    const s = this.port.settings;
    return estimateComputeUnitPrice({
      level,
      market: this.market,
      own: this.own,
      tipSlot: this.slotNow() ?? this.own.at(-1)?.slot ?? 0n,
      computeUnits: s.computeUnitLimit,
      baseFeeLamports,
      capLamports,
      fallbackPrice: s.computeUnitPriceMicroLamports,
      ...(previousPrice === undefined ? {} : { previousPrice }),
    });
  }

  private newestMarketSlot(): bigint | null {
    if (!this.market || this.market.slots.length === 0) return null;
    const newest = this.market.slots.reduce((m, x) => (x.slot > m ? x.slot : m), 0n);
    return newest + BigInt(Math.max(0, Math.floor((this.port.clock.now() - this.marketAt) / this.port.slotMs)));
  }
}

/** The fee purpose a recorded transaction was priced for (null: not one the fee port prices: funding, stray returns). */
export function purposeOfTx(t: ChainTx): FeePurpose | null {
  switch (t.kind) {
    case 'payout':
      return 'payout';
    case 'refund':
      return t.meta.late ? 'lateRefund' : 'refund';
    case 'partner_payout':
      return 'partnerPayout';
    case 'sweep':
      return t.meta.items.length > 0 && t.meta.items.every((i) => i.late) ? 'lateSweep' : 'sweep';
    default:
      return null;
  }
}
