import { callThrough, FeeMarket } from '../chain/fee-market.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { FeeSettings } from '../config/fee-settings.ts';
import { BASE_FEE_LAMPORTS, capPrice, estimateComputeUnitPrice, PURPOSE_LEVEL } from '../domain/fee-estimate.ts';
import type { Clock } from '../support/clock.ts';

/** The SDK refuses a deposit priced above this (packages/sdk DEFAULT_MAX_COMPUTE_UNIT_PRICE): never offered. */
export const DEPOSIT_MAX_PRICE = 1_000_000n;
/** A deposit's compute-unit limit is drawn per order (deposit-budget.ts); the level is priced for a typical one. */
const TYPICAL_DEPOSIT_UNITS = 26_000;
/** An order waits for the market only when the last answer is older than this. */
const STALE_MS = 30_000;

/**
 * The price the deposit transaction the partner's user signs is drawn around (docs/decisions.md, "Priority fees
 * from the market: the wiring"): the fee market's `deposit` level (medium) over the whole block (no account:
 * the sender's and the new deposit account's own histories say nothing), asked only by authenticated order
 * creation and refresh, and at most once a slot whatever their number (FeeMarket shares one call per slot).
 * Quotes, status reads and anonymous requests never ask. With the market unreadable, the configured price.
 */
export class DepositFees {
  private readonly market: FeeMarket | null;
  private last: { price: bigint; at: number } | null = null;
  private asking: Promise<bigint> | null = null;

  constructor(
    chain: Pick<SolanaChain, 'post'>,
    private readonly settings: FeeSettings & { computeUnitPriceMicroLamports: bigint; slotMs: number },
    private readonly clock: Pick<Clock, 'now'>,
  ) {
    // The API's lane of the request budget: what a partner's request makes the chain do.
    this.market = settings.feePricing === 'static' ? null : new FeeMarket(callThrough({ post: (body, methods) => chain.post(body, methods, { lane: 'api' }) }), clock, { slotMs: settings.slotMs });
  }

  /**
   * The base price of a deposit now (micro-lamports per CU); never throws. An order waits for the market only
   * when the last answer is older than STALE_MS (a cold start, an idle spell); otherwise it takes the last one
   * and a slot-old answer is refreshed beside it, so a slow RPC never holds an order up.
   */
  async price(): Promise<bigint> {
    if (!this.market) return this.settings.computeUnitPriceMicroLamports;
    const now = this.clock.now();
    if (this.last && now - this.last.at < this.settings.slotMs) return this.last.price;
    this.asking ??= this.ask().finally(() => (this.asking = null));
    if (this.last && now - this.last.at < STALE_MS) return this.last.price;
    return this.asking;
  }

  private async ask(): Promise<bigint> {
    const s = this.settings;
    const market = await this.market!.recentFees([]).catch(() => null);
    const price = estimateComputeUnitPrice({
      level: PURPOSE_LEVEL.deposit,
      market,
      own: [],
      tipSlot: 0n,
      computeUnits: TYPICAL_DEPOSIT_UNITS,
      baseFeeLamports: BASE_FEE_LAMPORTS.deposit,
      capLamports: s.feeCapLamports.deposit,
      fallbackPrice: s.computeUnitPriceMicroLamports,
    }).microLamportsPerCu;
    // An unreadable market is not an answer: the next order asks again.
    if (market) this.last = { price, at: this.clock.now() };
    return price;
  }

  /** The most a deposit of `computeUnitLimit` may offer: its cap, and what the SDK signs (static: the configured draw, unclamped). */
  ceiling(computeUnitLimit: number): bigint {
    if (!this.market) return 1n << 62n;
    const cap = capPrice(this.settings.feeCapLamports.deposit, BASE_FEE_LAMPORTS.deposit, computeUnitLimit);
    return cap < DEPOSIT_MAX_PRICE ? cap : DEPOSIT_MAX_PRICE;
  }
}
