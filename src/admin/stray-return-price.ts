import { callThrough, FeeMarket } from '../chain/fee-market.ts';
import type { ChainCalls } from '../chain/solana-chain.ts';
import type { FeeSettings } from '../config/fee-settings.ts';
import { BASE_FEE_LAMPORTS, estimateComputeUnitPrice, PURPOSE_LEVEL } from '../domain/fee-estimate.ts';
import type { Clock } from '../support/clock.ts';

/**
 * The compute-unit price of a stray return (the operator's return-stray: funds no order counts, going back to
 * the sender), from the fee market as a late refund is priced: its level (medium: nobody's payout waits on it)
 * over the fee payer's account, within its cap (HUSH_FEE_CAP_LAMPORTS lateRefund). Asked once per return-stray,
 * a rare operator command, so no answer is kept. Static pricing or an unreadable market: the configured price
 * (the floor of the level when the market answers calm).
 */
export class StrayReturnPrice {
  private readonly market: FeeMarket | null;

  constructor(
    chain: Pick<ChainCalls, 'post'>,
    private readonly settings: FeeSettings & { computeUnitPriceMicroLamports: bigint; computeUnitLimit: number; slotMs: number },
    clock: Pick<Clock, 'now'>,
    private readonly feePayer: string,
  ) {
    this.market = settings.feePricing === 'static' ? null : new FeeMarket(callThrough(chain), clock, { slotMs: settings.slotMs });
  }

  async price(): Promise<bigint> {
    const s = this.settings;
    if (!this.market) return s.computeUnitPriceMicroLamports;
    const market = await this.market.recentFees([this.feePayer]).catch(() => null);
    if (!market) return s.computeUnitPriceMicroLamports;
    return estimateComputeUnitPrice({
      level: PURPOSE_LEVEL.lateRefund,
      market,
      own: [],
      tipSlot: 0n,
      computeUnits: s.computeUnitLimit,
      baseFeeLamports: BASE_FEE_LAMPORTS.hush,
      capLamports: s.feeCapLamports.lateRefund,
      fallbackPrice: s.computeUnitPriceMicroLamports,
    }).microLamportsPerCu;
  }
}
