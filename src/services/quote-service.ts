import type { Address } from '@solana/kit';
import type { Asset } from '../config/assets.ts';
import type { HushConfig } from '../config/config.ts';
import { HushError } from '../domain/errors.ts';
import { coarseAmount } from '../domain/coarse-amount.ts';
import { chainUnavailable } from '../domain/chain-unavailable.ts';
import { quoteCrossAsset, quoteSameAsset, type QuoteMode } from '../domain/fees.ts';
import type { SwapPricing } from '../prices/swap-pricing.ts';
import { U64_MAX, U64_MAX_DIGITS, toAmount, type Amount } from '../domain/money.ts';
import { DEFAULT_NETWORK_COST, settlementLamports } from '../domain/network-cost.ts';
import { convertCeil, convertFloor, parsePrice, type Price } from '../domain/price.ts';
import { releasePolicy } from '../config/privacy-settings.ts';
import { estimatePrivacy, nearestStandard, type PrivacyEstimate } from '../domain/quote-privacy.ts';
import { issueQuote, type QuoteObject } from '../domain/quote-token.ts';
import type { PrivacyChoice } from '../domain/privacy-choice.ts';
import type { AccountRecord } from '../store/accounts-store.ts';
import { AddressRules } from './address-rules.ts';
import type { ClassTrafficSource } from './class-traffic.ts';
import { SCREENING_OFF, type Screening } from '../screening/screening-port.ts';
import { screenQuote, type QuoteDecisionSink } from '../screening/quote-screening.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';
import { QuoteNonces } from './quote-nonces.ts';
import { classKey } from '../domain/class-release.ts';
import type { QuotedFeePrice } from './fee-grid-view.ts';

export interface QuoteRequest {
  amount: string;
  sourceAssetId: string;
  destinationAssetId: string;
  senderAddress: string;
  recipientAddress: string;
  mode?: QuoteMode;
  feeBps?: number;
  feeRecipientAddress?: string;
  privacy?: PrivacyChoice;
}

/** Seconds the settlement adds beyond the release delay: confirmation depth, sweep schedule, payout confirmation. */
const SETTLEMENT_OVERHEAD_S = 5;

/** Live amount bounds per asset (pool inventory) as an account sees them; absent → the configured bounds. */
export interface LiveBounds {
  bounds(assetId: string, accountId?: string): { min: bigint; max: bigint };
  /** Which side keeps the bounds from being read (null when they are current). */
  unreadable?(): 'chain' | 'store' | null;
}

export class QuoteService {
  private readonly prices = new Map<string, Price>();
  /** networkFee by settlement shape, valid while the prices it was converted at are the current ones. */
  private readonly networkFees = new Map<string, { solPrice: Price | null; sourcePrice: Price | null; fee: bigint }>();
  /**
   * nearestStandard's answers by asset, amount and bounds (issue 56: ~5 % of a quote's CPU, for the same few
   * amounts quoted over and over; a pure function of the key, so a kept answer is the one it would compute).
   */
  private readonly suggestions = new Map<string, Amount[]>();
  private readonly nonces: QuoteNonces;

  constructor(
    private readonly config: HushConfig,
    private readonly quoteSecret: Uint8Array,
    /** A quote's life and expiry are read on it. */
    private readonly clock: Clock,
    /** Each quote's nonce is drawn from it. */
    random: Random,
    private readonly live?: LiveBounds,
    /** Live prices for swaps (absent → every swap is PAIR_NOT_SUPPORTED). */
    private readonly swaps?: SwapPricing,
    /** Recent deposits per class, for the privacy estimate (absent → every class counts as idle). */
    private readonly traffic?: Pick<ClassTrafficSource, 'arrivalsOf' | 'crowdOf'>,
    /** docs/spec.md §4 address rules; absent → the static ones and the configured mints (no own addresses). */
    private readonly rules: AddressRules = new AddressRules(config.assets.list.map((a) => a.mint)),
    /** docs/spec.md §12 screening; off → no check at all. */
    private readonly screening: Screening = SCREENING_OFF,
    private readonly onBlocked?: QuoteDecisionSink,
    /** The rung the flat networkFee is priced at (the shared fee grid); absent → HUSH_COMPUTE_UNIT_PRICE. */
    private readonly feePrice?: QuotedFeePrice,
  ) {
    this.nonces = new QuoteNonces(random);
    for (const a of config.assets.list) this.prices.set(a.assetId, parsePrice(a.referencePriceUsd));
  }

  /**
   * Bounds of a swap's `amount` (source units): the source's configured bounds, the max also capped by
   * what the destination pools can pay, converted back at the live rate and rounded down to two
   * significant digits in the source unit, as GET /tokens rounds a max (issue 43: a converted figure
   * such as 1234567891 looked like an exact balance, and changed with every price tick).
   */
  swapBounds(source: Asset, destination: Asset, pair = this.swaps!.pair(source.assetId, destination.assetId), accountId?: string): { min: bigint; max: bigint } {
    const free = this.bounds(destination, accountId).max;
    const inSource = coarseAmount(convertFloor(free, pair.to, pair.from));
    return { min: source.min, max: inSource < source.max ? inSource : source.max };
  }

  /** Bounds of `amount`: what the destination pools can pay now for this account, within the configured limits. */
  bounds(asset: Asset, accountId?: string): { min: bigint; max: bigint } {
    return this.live?.bounds(asset.assetId, accountId) ?? { min: asset.min, max: asset.max };
  }

  asset(assetId: string, field: string): Asset {
    const a = this.config.assets.get(assetId);
    if (!a) throw new HushError('UNSUPPORTED_ASSET', `Unknown asset "${assetId}"; valid asset ids: ${this.config.assets.list.map((x) => x.assetId).join(', ')}`, { field, assetId });
    return a;
  }

  /** Validates the request and prices it; throws HushError with the docs/spec.md §6 code for any bad input. */
  async quote(account: AccountRecord, req: QuoteRequest): Promise<QuoteObject> {
    const source = this.asset(req.sourceAssetId, 'sourceAssetId');
    const destination = this.asset(req.destinationAssetId, 'destinationAssetId');
    const mode = req.mode ?? 'exact_in';
    const cross = source.assetId !== destination.assetId;
    if (cross && mode === 'exact_out') throw new HushError('UNSUPPORTED_MODE', 'Cross-asset orders must use exact_in', { mode });
    if (cross && (!this.swaps || !source.swappable || !destination.swappable)) {
      throw new HushError('PAIR_NOT_SUPPORTED', `Swapping ${source.assetId} to ${destination.assetId} is not supported`, {
        sourceAssetId: source.assetId,
        destinationAssetId: destination.assetId,
      });
    }
    const sender = this.rules.wallet(req.senderAddress, 'senderAddress');
    const recipient = this.rules.wallet(req.recipientAddress, 'recipientAddress');
    const feeBps = req.feeBps ?? 0;
    if (feeBps < 0) throw new HushError('INVALID_REQUEST', 'feeBps must be 0 or more', { field: 'feeBps', reason: 'negative' });
    if (feeBps > account.feeCapBps) throw new HushError('FEE_BPS_TOO_HIGH', `feeBps may be at most ${account.feeCapBps} for this account`, { feeCapBps: account.feeCapBps });
    let feeRecipient: Address | undefined;
    if (req.feeRecipientAddress !== undefined) {
      feeRecipient = this.rules.address(req.feeRecipientAddress, 'feeRecipientAddress');
      if (!account.feeRecipients.includes(feeRecipient)) {
        throw new HushError('FEE_RECIPIENT_NOT_REGISTERED', 'feeRecipientAddress is not registered to this account', { feeRecipientAddress: feeRecipient });
      }
    } else if (feeBps > 0) {
      throw new HushError('FEE_RECIPIENT_REQUIRED', 'feeRecipientAddress is required when feeBps > 0', { field: 'feeRecipientAddress' });
    }
    if (this.screening.enabled) {
      await screenQuote(this.screening, { senderAddress: sender, recipientAddress: recipient, feeRecipientAddress: feeRecipient }, this.onBlocked, account.id);
    }
    // More digits than any u64: above every maximum, without parsing up to a body's worth of digits.
    const amount = req.amount.length > U64_MAX_DIGITS ? U64_MAX + 1n : BigInt(req.amount);
    const unreadable = this.live?.unreadable?.();
    if (unreadable === 'chain') throw chainUnavailable();
    if (unreadable === 'store') throw new HushError('SERVICE_UNAVAILABLE', 'The store is unavailable; retry shortly');
    // One validated price pair per swap quote: bounds, fee estimate and conversion all use it.
    const pair = cross ? this.swaps!.pair(source.assetId, destination.assetId) : null;
    const { min, max } = pair ? this.swapBounds(source, destination, pair, account.id) : this.bounds(destination, account.id);
    // Pools that cannot pay even the minimum: no amount would do, so it is not the client's to fix (400).
    if (max < min) {
      throw new HushError('INSUFFICIENT_LIQUIDITY', `Not enough ${destination.assetId} liquidity to quote right now; retry shortly`, { assetId: destination.assetId });
    }
    if (amount > max) throw new HushError('AMOUNT_TOO_HIGH', `amount exceeds the current maximum of ${max}`, { min: min.toString(), max: max.toString() });
    // A private amount's class keeps one rung to its release (docs/spec.md §9; src/domain/fee-grid-shared.ts).
    const cls = source.denominations.includes(amount) ? classKey({ sourceAssetId: source.assetId, destinationAssetId: destination.assetId, mode, pinnedAmount: amount }) : null;
    const networkFeePrice = this.feePrice?.priceFor(cls) ?? this.config.computeUnitPriceMicroLamports;
    const networkFee = this.networkFee(source, destination, networkFeePrice);
    const input = {
      mode,
      amount: toAmount(amount),
      feeBps,
      serviceFeeBps: this.config.serviceFeeBps,
      networkFee: toAmount(networkFee),
      min: toAmount(min),
      max: toAmount(max),
    };
    const fees = pair ? quoteCrossAsset({ ...input, convert: this.swaps!.converterFor(pair, { min, max }), grid: destination.swapGrid }) : quoteSameAsset(input);
    const privacy = this.privacy(source, destination, mode, amount, { min, max }, this.choice(req.privacy), sender);
    const issuedAtMs = this.clock.now();
    return issueQuote(this.quoteSecret, account.id, {
      sourceAssetId: source.assetId,
      destinationAssetId: destination.assetId,
      mode,
      amountIn: fees.amountIn,
      amountOut: fees.amountOut,
      serviceFee: fees.serviceFee,
      partnerFee: fees.partnerFee,
      networkFee: fees.networkFee,
      networkFeePrice,
      min: toAmount(min),
      max: toAmount(max),
      duration: SETTLEMENT_OVERHEAD_S + privacy.delaySeconds,
      ...privacy,
      issuedAtMs,
      expiresAtMs: issuedAtMs + this.config.quoteTtlS * 1000,
      nonce: this.nonces.next(),
      senderAddress: sender,
      recipientAddress: recipient,
      feeBps,
      ...(feeRecipient ? { feeRecipientAddress: feeRecipient } : {}),
    });
  }

  /** docs/spec.md §9: the pinned amount (the request's `amount` in either mode) decides the class. */
  /** The partner's choice, within the operator's ceiling (docs/spec.md §9). The schema has checked its shape. */
  private choice(requested: PrivacyChoice | undefined): PrivacyChoice | undefined {
    if (requested === undefined) return undefined;
    const ceilingS = this.config.privacyMaxWaitS;
    if ('maxDelaySeconds' in requested && requested.maxDelaySeconds > ceilingS) {
      throw new HushError('INVALID_REQUEST', `privacy.maxDelaySeconds may be at most ${ceilingS} (the operator's ceiling on any wait)`, {
        field: 'privacy.maxDelaySeconds',
        reason: `at most ${ceilingS}`,
      });
    }
    return requested;
  }

  private privacy(source: Asset, destination: Asset, mode: QuoteMode, amount: bigint, bounds: { min: bigint; max: bigint }, requested: PrivacyChoice | undefined, sender: string): PrivacyEstimate {
    const c = this.config;
    const standard = source.denominations.includes(amount);
    // The sender's own deposits are no company for it (class-traffic-store.ts): left out of its class's traffic.
    const cls = { sourceAssetId: source.assetId, destinationAssetId: destination.assetId, mode, pinnedAmount: amount };
    const classTraffic = standard && this.traffic ? this.traffic.arrivalsOf(cls, sender) : undefined;
    const crowdTraffic = standard ? this.traffic?.crowdOf?.(cls, undefined, sender) : undefined;
    // Exact_out pins what the recipient gets, in the destination asset (the same asset: swaps are exact_in only).
    const key = `${source.assetId} ${amount} ${bounds.min} ${bounds.max}`;
    let suggestedAmounts = this.suggestions.get(key);
    if (suggestedAmounts === undefined) {
      suggestedAmounts = nearestStandard(amount, source.denominations, bounds);
      if (this.suggestions.size >= 1024) this.suggestions.clear();
      this.suggestions.set(key, suggestedAmounts);
    }
    return estimatePrivacy({ standard, classTraffic, crowdTraffic, suggestedAmounts, ...(requested ? { requested } : {}) }, releasePolicy(c));
  }

  /**
   * What settling an order of this pair costs Hush on average, converted to the source asset and rounded
   * up: one flat figure per pair (docs/spec.md §4, §9), the same whether or not the recipient has a token account
   * and however many parts the payout takes, since a fee that varied with them would tell recipients
   * apart on the chain. The token account's rent is charged at the expected share of recipients without
   * one; the ledger shows how the flat figure compares with what Hush really paid. Partner fees are paid
   * out in aggregate on a schedule, so their cost is Hush's and in no single order's networkFee. The
   * compute-unit price is the fee grid's rung (the same for everyone at a moment, moved in coarse steps), not
   * the minute's market: Hush absorbs each transaction's difference (expense:network_absorbed).
   */
  private networkFee(source: Asset, destination: Asset, computeUnitPrice: bigint): bigint {
    const sol = this.config.assets.list.find((a) => a.native)!;
    const solPrice = source.native ? null : this.priceOf(sol.assetId);
    const sourcePrice = source.native ? null : this.priceOf(source.assetId);
    // The same few shapes are quoted over and over between price refreshes (a refresh brings new Price objects).
    const key = `${source.assetId} ${destination.native} ${computeUnitPrice}`;
    const hit = this.networkFees.get(key);
    if (hit && hit.solPrice === solPrice && hit.sourcePrice === sourcePrice) return hit.fee;
    const lamports = settlementLamports(
      { ...DEFAULT_NETWORK_COST, computeUnitLimit: this.config.computeUnitLimit, computeUnitPriceMicroLamports: computeUnitPrice },
      { destinationNative: destination.native, tokenAccountRentBps: this.config.newTokenAccountShareBps, payoutCount: 1 },
    );
    const fee = solPrice && sourcePrice ? convertCeil(lamports, { price: solPrice, decimals: sol.decimals }, { price: sourcePrice, decimals: source.decimals }) : lamports;
    if (this.networkFees.size >= 1024) this.networkFees.clear();
    this.networkFees.set(key, { solPrice, sourcePrice, fee });
    return fee;
  }

  /** Live price when the price source has a fresh one, else the configured reference (fees only). */
  private priceOf(assetId: string): Price {
    return this.swaps?.freshPrice(assetId) ?? this.prices.get(assetId)!;
  }
}
