import { every } from '../support/periodic.ts';
import type { AssetRegistry } from '../config/assets.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { Db } from '../store/db.ts';
import { poolCommitments } from '../store/settlement/pool-commitments.ts';
import { unfundedCommitments } from '../store/settlement/unfunded-commitments.ts';
import { UnfundedReadPace } from './unfunded-read-pace.ts';
import type { TreasuryWallets } from '../treasury/treasury-wallets.ts';
import { ChainView } from '../chain/chain-view.ts';
import { liquiditySettings, type LiquiditySettings } from '../config/liquidity-settings.ts';
import { coarseAmount } from '../domain/coarse-amount.ts';
import { UnfundedReservations, type Reservation } from './unfunded-reservations.ts';
import { spendableBalance } from '../domain/reserves.ts';
import type { Clock } from '../support/clock.ts';

/** Below this the fee payer cannot be trusted to cover a settlement's fees and rent (0.05 SOL). */
const FEE_PAYER_MINIMUM = 50_000_000n;
/** Refreshes failing for this long make the last reading too old to quote from. */
const STALE_AFTER_MS = 10_000;

/**
 * What the pools can pay out right now, per asset: confirmed pool balances, less pending outgoing
 * transactions and what funded open orders still owe beyond them (poolCommitments), less what unfunded
 * orders hold (docs/spec.md §4, docs/decisions.md "Liquidity for deposits"): an account's unfunded orders
 * of the last HUSH_UNFUNDED_HOLD_S hold their full amount against that account, and at most
 * HUSH_UNFUNDED_SHARE_BPS of the asset's free inventory against every other account. Refreshed in the
 * background so the quote path reads a number, never the chain.
 */
export class Inventory {
  /** Per asset: pool balances less pending outflows and what funded orders owe (unfunded reservations not taken). */
  private base = new Map<string, bigint>();
  private readonly reservations = new UnfundedReservations();
  private readonly unfundedPace: UnfundedReadPace;
  private stopTimer: (() => void) | null = null;
  private readonly view: ChainView;
  private ready = false;
  /** Since when, and on which side, refreshes have been failing (null while they succeed). */
  private failing: { since: number; side: 'chain' | 'store' } | null = null;

  constructor(
    private readonly db: Db,
    chain: SolanaChain,
    private readonly treasury: TreasuryWallets,
    private readonly assets: AssetRegistry,
    private readonly everyMs = 2000,
    private readonly settings: Pick<LiquiditySettings, 'unfundedReserveS' | 'unfundedShareBps'> = liquiditySettings({}),
    private readonly clock: Clock,
  ) {
    this.view = new ChainView(chain);
    this.unfundedPace = new UnfundedReadPace(everyMs);
  }

  async refresh(): Promise<void> {
    let pools = this.treasury.allPools();
    const startedAt = this.clock.now();
    const readUnfunded = this.unfundedPace.due(startedAt);
    const taken = readUnfunded ? this.reservations.beginRead() : null;
    let read;
    let side: 'chain' | 'store' | undefined;
    const failsOn = <T>(which: 'chain' | 'store', p: Promise<T>) => p.catch((e: unknown) => ((side ??= which), Promise.reject(e)));
    try {
      // Role api: the wallets' addresses are in the store once a worker has published them (until then, 503).
      if (pools.length === 0) {
        await failsOn('store', this.treasury.loaded());
        pools = this.treasury.allPools();
      }
      // Unfunded orders before funded ones, the store before the chain (as the worker's planning does): an
      // order funded, or a payout that lands and settles, between two reads is then counted twice for a
      // moment, never in neither.
      const unfunded = readUnfunded ? await failsOn('store', unfundedCommitments(this.db, this.settings.unfundedReserveS)) : null;
      const commitments = await failsOn('store', poolCommitments(this.db));
      const balancesRead = await failsOn('chain', this.view.balances([this.treasury.feePayer.address, ...pools.map((p) => p.holding)], 'confirmed'));
      read = [balancesRead, commitments, unfunded] as const;
    } catch (e) {
      if (taken) this.reservations.endRead(taken);
      this.failing = { since: this.failing?.since ?? this.clock.now(), side: side ?? 'chain' };
      throw e;
    }
    const [balances, commitments, unfunded] = read;
    const base = new Map<string, bigint>();
    for (const p of pools) {
      let spendable = spendableBalance(this.assets.get(p.assetId)!.native, balances.get(p.holding));
      spendable -= commitments.pending.get(p.holding) ?? 0n;
      base.set(p.assetId, (base.get(p.assetId) ?? 0n) + (spendable > 0n ? spendable : 0n));
    }
    // What an operator's answer may yet send is not free either (docs/spec.md §12).
    for (const side of [commitments.owed, commitments.held]) for (const [assetId, r] of side) base.set(assetId, (base.get(assetId) ?? 0n) - r);
    // Without lamports for fees and rent nothing can be settled: quote nothing.
    if ((balances.get(this.treasury.feePayer.address)?.lamports ?? 0n) < FEE_PAYER_MINIMUM) base.clear();
    // Orders reserved but not stored when the store was read may be missing from it: count them (twice at
    // worst, for one stored meanwhile, until the next refresh). No await since the read: one step.
    if (unfunded && taken) {
      this.reservations.replace(unfunded, taken);
      // Paced from this read's start, once it is in use: a refresh that failed after it reads it again next time.
      let open = 0;
      for (const o of unfunded.open.values()) open += o.count;
      this.unfundedPace.record(startedAt, open);
    }
    this.base = base;
    this.ready = true;
    this.failing = null;
  }

  /**
   * Why the free inventory cannot be vouched for, or null when it can: never read yet, or every
   * refresh failing for STALE_AFTER_MS. A quote then answers 503 rather than bounds that may be wrong.
   */
  unreadable(): 'chain' | 'store' | null {
    if (!this.failing) return this.ready ? null : 'chain';
    return !this.ready || this.clock.now() - this.failing.since >= STALE_AFTER_MS ? this.failing.side : null;
  }

  start(): void {
    this.stopTimer ??= every(this.clock, this.everyMs, () => this.refresh());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }

  /**
   * Free inventory of an asset as `accountId` may use it (exact; never published): the base less its own
   * unfunded reservations in full and every other account's up to the share. Without an account: as an account
   * holding nothing sees it. Unknown (not yet read) counts as none.
   */
  available(assetId: string, accountId?: string): bigint {
    const base = this.base.get(assetId) ?? 0n;
    if (base <= 0n) return 0n;
    const share = (base * BigInt(this.settings.unfundedShareBps)) / 10_000n;
    let free = base;
    for (const [account, reserved] of this.reservations.reservedOf(assetId)) free -= account === accountId || reserved < share ? reserved : share;
    return free > 0n ? free : 0n;
  }

  /** An account's open unfunded orders (for the cap on them), as of the last refresh and this process's orders since. */
  openOrders(accountId: string): { count: number; firstExpiration: Date | null } {
    return this.reservations.openOrders(accountId);
  }

  /**
   * Takes `amount` of an asset's free inventory for a new order of `accountId`, synchronously, so the
   * account's next order (and quote) sees it at once instead of after the next refresh reads the order
   * from the store. Null, and nothing taken, when that much is not free for the account. `release` gives
   * it back when the order is then not created (a replay, a conflict, a failure); `stored` once it is in
   * the store.
   */
  reserve(assetId: string, amount: bigint, accountId: string): { release(): void; stored(): void } | null {
    if (amount > this.available(assetId, accountId)) return null;
    const r: Reservation = { assetId, accountId, amount };
    this.reservations.add(r);
    const reservations = this.reservations;
    // Methods, not arrows: under tsx (keepNames) an arrow made per order also pays a defineProperty.
    return {
      release() {
        reservations.release(r);
      },
      stored() {
        reservations.stored(r);
      },
    };
  }

  /**
   * Live [min, max] of `amount` for an asset as `accountId` sees it: the configured bounds, the max capped
   * by free inventory rounded down to two significant digits (no public figure gives exact pool balances).
   */
  bounds(assetId: string, accountId?: string): { min: bigint; max: bigint } {
    const a = this.assets.get(assetId)!;
    const avail = coarseAmount(this.available(assetId, accountId));
    return { min: a.min, max: avail < a.max ? avail : a.max };
  }
}
