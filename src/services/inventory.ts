import { every } from '../support/periodic.ts';
import type { AssetRegistry } from '../config/assets.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { Db } from '../store/db.ts';
import { poolCommitments } from '../store/settlement/pool-commitments.ts';
import type { Treasury } from '../treasury/treasury.ts';
import { ChainView } from '../chain/chain-view.ts';

const SOL_POOL_RESERVE = 10_000_000n;
/** Below this the fee payer cannot be trusted to cover a settlement's fees and rent (0.05 SOL). */
const FEE_PAYER_MINIMUM = 50_000_000n;
/** Refreshes failing for this long make the last reading too old to quote from. */
const STALE_AFTER_MS = 10_000;

/**
 * What the pools can pay out right now, per asset: confirmed pool balances, less pending outgoing
 * transactions and what open orders still owe beyond them (poolCommitments). Refreshed in the background
 * so the quote path reads a number, never the chain.
 */
export class Inventory {
  private free = new Map<string, bigint>();
  /** Per pool wallet, what it can pay out (after its pending transactions), per asset. */
  private stopTimer: (() => void) | null = null;
  private readonly view: ChainView;
  /**
   * One per refresh in flight: the reservations its store read may not see — those not yet stored when it
   * started, and those taken since — less those released meanwhile.
   */
  private readonly takenDuringRefresh = new Set<Map<string, bigint>>();
  /** Per asset, reservations whose order is neither stored nor given up yet. */
  private readonly unstored = new Map<string, bigint>();
  private ready = false;
  /** Since when, and on which side, refreshes have been failing (null while they succeed). */
  private failing: { since: number; side: 'chain' | 'store' } | null = null;

  constructor(
    private readonly db: Db,
    chain: SolanaChain,
    private readonly treasury: Treasury,
    private readonly assets: AssetRegistry,
    private readonly everyMs = 2000,
  ) {
    this.view = new ChainView(chain);
  }

  async refresh(): Promise<void> {
    const pools = this.treasury.allPools();
    const taken = new Map(this.unstored);
    this.takenDuringRefresh.add(taken);
    let read;
    let side: 'chain' | 'store' | undefined;
    const failsOn = <T>(which: 'chain' | 'store', p: Promise<T>) => p.catch((e: unknown) => ((side ??= which), Promise.reject(e)));
    try {
      // The store first, then the chain (as the worker's planning does): a payout that lands and settles
      // between the two reads is then counted twice for a moment, never in neither.
      const commitments = await failsOn('store', poolCommitments(this.db));
      const balancesRead = await failsOn('chain', this.view.balances([this.treasury.feePayer.address, ...pools.map((p) => p.holding)], 'confirmed'));
      read = [balancesRead, commitments.pending, commitments.owed] as const;
    } catch (e) {
      this.failing = { since: this.failing?.since ?? Date.now(), side: side ?? 'chain' };
      throw e;
    } finally {
      this.takenDuringRefresh.delete(taken);
    }
    const [balances, pending, reserved] = read;
    const free = new Map<string, bigint>();
    for (const p of pools) {
      const asset = this.assets.get(p.assetId)!;
      const b = balances.get(p.holding);
      let held = asset.native ? (b?.lamports ?? 0n) - SOL_POOL_RESERVE : (b?.tokenAmount ?? 0n);
      held -= pending.get(p.holding) ?? 0n;
      free.set(p.assetId, (free.get(p.assetId) ?? 0n) + (held > 0n ? held : 0n));
    }
    for (const [assetId, r] of reserved) free.set(assetId, (free.get(assetId) ?? 0n) - r);
    // Orders reserved but not stored when the store was read may be missing from it: count them (twice at
    // worst, for one stored meanwhile, until the next refresh).
    for (const [assetId, r] of taken) free.set(assetId, (free.get(assetId) ?? 0n) - r);
    // Without lamports for fees and rent nothing can be settled: quote nothing.
    if ((balances.get(this.treasury.feePayer.address)?.lamports ?? 0n) < FEE_PAYER_MINIMUM) free.clear();
    this.free = free;
    this.ready = true;
    this.failing = null;
  }

  /**
   * Why the free inventory cannot be vouched for, or null when it can: never read yet, or every
   * refresh failing for STALE_AFTER_MS. A quote then answers 503 rather than bounds that may be wrong.
   */
  unreadable(): 'chain' | 'store' | null {
    if (!this.failing) return this.ready ? null : 'chain';
    return !this.ready || Date.now() - this.failing.since >= STALE_AFTER_MS ? this.failing.side : null;
  }

  start(): void {
    this.stopTimer ??= every(this.everyMs, () => this.refresh());
  }

  stop(): void {
    this.stopTimer?.();
    this.stopTimer = null;
  }

  /** Free inventory of an asset; unknown (not yet read) counts as none. */
  available(assetId: string): bigint {
    const f = this.free.get(assetId) ?? 0n;
    return f > 0n ? f : 0n;
  }

  /**
   * Takes `amount` of an asset's free inventory for a new order, synchronously, so the next order (and
   * quote) sees it at once instead of after the next refresh reads the order from the store. Null, and
   * nothing taken, when that much is not free. Until the order is `stored`, every refresh counts the
   * reservation itself (its store read may not see the order). `release` gives it back when the order is
   * then not created (a replay, a conflict, a failure).
   */
  reserve(assetId: string, amount: bigint): { release(): void; stored(): void } | null {
    if (amount > this.available(assetId)) return null;
    this.free.set(assetId, (this.free.get(assetId) ?? 0n) - amount);
    this.unstored.set(assetId, (this.unstored.get(assetId) ?? 0n) + amount);
    for (const taken of this.takenDuringRefresh) taken.set(assetId, (taken.get(assetId) ?? 0n) + amount);
    let resolved = false;
    const resolve = () => {
      if (resolved) return false;
      resolved = true;
      const left = (this.unstored.get(assetId) ?? 0n) - amount;
      if (left > 0n) this.unstored.set(assetId, left);
      else this.unstored.delete(assetId);
      return true;
    };
    return {
      release: () => {
        if (!resolve()) return;
        // Every refresh since the reservation counted it (in its `taken`): give it back to the one in force
        // and to those still reading.
        this.free.set(assetId, (this.free.get(assetId) ?? 0n) + amount);
        for (const taken of this.takenDuringRefresh) taken.set(assetId, (taken.get(assetId) ?? 0n) - amount);
      },
      // The order is in the store: refreshes starting from now read it there. One already reading keeps
      // counting it (twice at worst, until the next refresh).
      stored: () => void resolve(),
    };
  }

  /** Live [min, max] of `amount` for an asset: the configured bounds capped by free inventory. */
  bounds(assetId: string): { min: bigint; max: bigint } {
    const a = this.assets.get(assetId)!;
    const avail = this.available(assetId);
    return { min: a.min, max: avail < a.max ? avail : a.max };
  }
}
