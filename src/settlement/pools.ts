import type { Address } from '@solana/kit';
import type { Asset } from '../config/assets.ts';
import type { AccountBalance, ChainView } from '../chain/chain-view.ts';
import { buildPayout, type TxShape } from '../chain/hush-transactions.ts';
import type { ChainRecord } from '../domain/chain-record.ts';
import type { OrderRecord } from '../store/orders-store.ts';
import type { FreshBlockhash } from '../chain/solana-chain.ts';
import type { Queryable } from '../store/db.ts';
import { ReadPerConnection } from '../support/read-per-connection.ts';
import { openOrderBlockhashes } from '../store/settlement/open-order-blockhashes.ts';
import { pendingOutflows } from '../store/settlement/pending-outflows.ts';
import { transferSources, type ChainTxKind, type NewChainTx, type TransferMeta } from '../store/settlement/chain-tx.ts';
import { allocate, shufflePools } from '../domain/settlement/allocation.ts';
import type { Treasury } from '../treasury/treasury.ts';
import { spendableBalance } from '../domain/reserves.ts';
import { type Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';
import { presignedVerdict, type PresignedVerdict, type SignedWith } from '../domain/settlement/presigned-payout.ts';
import type { FeePurpose } from '../domain/fee-estimate.ts';
import type { FeePrices } from './fee-prices.ts';

/** What the pools touch: balances and pending outflows, the signers, the chain's blockhashes (the context builds it once). */
export interface PoolsPort {
  readonly db: Queryable;
  readonly treasury: Pick<Treasury, 'pools' | 'allPools'>;
  /** The chain view, at each read (a test swaps the context's for one over fixed balances). */
  view(): Pick<ChainView, 'balances' | 'chain'>;
  asset(id: string): Asset;
  /** An ALERT record: `alert: kind` with the fields, counted in hush_alerts_total{kind}. */
  alert(kind: string, fields: Record<string, unknown>, msg: string): void;
  shape(blockhash: { blockhash: string; lastValidBlockHeight: bigint }, purpose: FeePurpose, record: ChainRecord, previousPrice?: bigint): TxShape;
  /** The fee port: a plan waits for a fresh market answer only after an idle spell (FeePrices.ready). */
  fees(): Pick<FeePrices, 'ready' | 'price'>;
  readonly clock: Clock;
  /** The order the pools are tried in. */
  readonly random: Random;
  /** The transfer the chain already shows for an order's part, which the store had forgotten (chain-truth/chain-check.ts). */
  adopted(orderId: string, kind: 'payout' | 'refund' | 'partner_payout', part: number): NewChainTx | undefined;
}

/** What a batch of pool choices shares: one read of pending outflows and balances, and what it took. */
export interface PlanReads {
  pending: Map<string, bigint>;
  balances: Map<string, AccountBalance>;
  taken: Map<string, bigint>;
}

/** A signed transfer out of a pool, ready to be recorded (then sent); `signedWith`: its blockhash's life and price, for a presigned payout's check at use. */
export type PlannedTransfer = NewChainTx & { kind: Extract<ChainTxKind, 'payout' | 'refund' | 'partner_payout'>; meta: TransferMeta; signedWith?: SignedWith };

/** The fee purpose of a transfer out of a pool (src/domain/fee-estimate.ts PURPOSE_LEVEL). */
export function transferPurpose(kind: 'payout' | 'refund' | 'partner_payout', meta: TransferMeta): FeePurpose {
  if (kind === 'partner_payout') return 'partnerPayout';
  if (kind === 'refund') return meta.late ? 'lateRefund' : 'refund';
  return 'payout';
}

/** What a pool can still pay: its `confirmed` balance less recorded pending outflows and what a batch took. */
export function available(asset: Asset, holding: string, reads: PlanReads): bigint {
  const held = spendableBalance(asset.native, reads.balances.get(holding));
  return held - (reads.pending.get(holding) ?? 0n) - (reads.taken.get(holding) ?? 0n);
}

/**
 * Pool state and signing: which pools pay an outgoing amount, the one planning lock of this worker, and
 * the signed transfers.
 */
export class Pools {
  /** Serializes choosing pools and recording the transfers: see `exclusive`. */
  private planLock: Promise<unknown> = Promise.resolve();
  /** Sections entered so far (the one running is the latest): who planned last, for a caller reusing its reads. */
  sections = 0;
  /** The deposit blockhashes of open orders, read at most every 500 ms (payoutBlockhash), one read at a time. */
  private handedOut = { at: 0, set: new Set<string>() };
  private readonly handedOutRead = new ReadPerConnection<Queryable, Set<string>>((q) =>
    openOrderBlockhashes(q).then((set) => ((this.handedOut = { at: this.ctx.clock.now(), set }), set)),
  );

  constructor(private readonly ctx: PoolsPort) {}

  /**
   * Runs `fn` alone among this worker's plan-and-record sections. Pool choice counts pool balances less
   * the *recorded* pending outflows, so two plans running side by side (orders are stepped concurrently)
   * would both count on the same funds; one at a time, each sees the previous one's record. Must be
   * entered outside any database transaction (PGlite would block the holder's queries behind it).
   */
  exclusive<T>(fn: () => Promise<T>): Promise<T> {
    const enter = () => (this.sections++, fn());
    const run = this.planLock.then(enter, enter);
    this.planLock = run.catch(() => {});
    return run;
  }

  /** One read of pending outflows, then (second: see plan) of the pools of some assets. */
  async reads(assetIds: string[]): Promise<PlanReads> {
    const pending = await pendingOutflows(this.ctx.db);
    const holdings = assetIds.flatMap((a) => this.ctx.treasury.pools(a).map((p) => p.holding));
    return { pending, balances: await this.ctx.view().balances(holdings, 'confirmed'), taken: new Map() };
  }

  /**
   * Chooses pool wallets for an outgoing amount (allocate: a random pool that can cover it, else several)
   * and signs one transaction paying it, with a transfer from each chosen pool (docs/spec.md §9: a payout is one
   * transaction, never parts landing at different times). Balances are read at `confirmed` less what
   * pending transactions will take. Null (with an ALERT unless quiet) when the pools cannot cover it.
   */
  async plan(
    /** txBlockhash: the order's deposit blockhash, which its transfer must not carry (payoutBlockhash). */
    o: { id: string | null; trackingId: string; txBlockhash?: string } & Partial<Pick<OrderRecord, 'accountId' | 'mode' | 'sourceAssetId' | 'destinationAssetId'>>,
    kind: 'payout' | 'refund' | 'partner_payout',
    assetId: string,
    destination: Address,
    amount: bigint,
    meta: TransferMeta = {},
    /** Inside a transaction, reads must use it: PGlite serializes everything behind an open transaction. */
    q: Queryable = this.ctx.db,
    /** Reads shared by a batch of plans; each plan adds what it chose to `taken`. */
    shared?: PlanReads,
    /**
     * quiet: a shortfall is not alerted (signing ahead; the real attempt alerts). previousPrice: the price of the
     * expired attempt this one replaces (escalated from: docs/decisions.md).
     */
    opts: { quiet?: boolean; previousPrice?: bigint } = {},
  ): Promise<PlannedTransfer | null> {
    const ctx = this.ctx;
    // The chain shows this part paid already (the store went back in time): that transaction is the plan, never a second.
    const adopted = o.id !== null && !meta.late ? ctx.adopted(o.id, kind, meta.part ?? 0) : undefined;
    if (adopted) return { ...adopted, kind, meta: { ...meta, ...adopted.meta } as TransferMeta };
    const asset = ctx.asset(assetId);
    const pools = ctx.treasury.pools(assetId);
    // Pending first, balances second: a transaction that settles in between is then subtracted twice
    // (safe), never missed by both reads (which could overspend a pool).
    const pending = shared?.pending ?? (await pendingOutflows(q));
    const balances = shared?.balances ?? (await ctx.view().balances(pools.map((p) => p.holding), 'confirmed'));
    const reads = { pending, balances, taken: shared?.taken ?? new Map<string, bigint>() };
    const shuffled = shufflePools(pools, () => ctx.random.float()).map((pool) => ({ pool, available: available(asset, pool.holding, reads) }));
    const chosen = allocate(amount, shuffled);
    if (!chosen) {
      if (!opts.quiet) ctx.alert('pools_short', { trackingId: o.trackingId, assetId, amount: amount.toString() }, 'ALERT: pools cannot cover a payout; will retry');
      return null;
    }
    // With shared reads there was no await above: the choice and this update are one synchronous step.
    for (const c of chosen) shared?.taken.set(c.pool.holding, (shared.taken.get(c.pool.holding) ?? 0n) + c.amount);
    const [blockhash] = await Promise.all([this.payoutBlockhash(q, o.txBlockhash), ctx.fees().ready()]);
    // The record names the order (a partner payout's none: its account is in no order's record).
    const record: ChainRecord =
      kind === 'partner_payout'
        ? { kind, trackingId: '', part: 0 }
        : { kind, trackingId: o.trackingId, part: meta.part ?? 0, accountId: o.accountId, mode: o.mode, sourceAssetId: o.sourceAssetId, destinationAssetId: o.destinationAssetId };
    const shape = ctx.shape(blockhash, transferPurpose(kind, meta), record, opts.previousPrice);
    const rentBack = meta.rentBack ? { rentBack: BigInt(meta.rentBack) } : {};
    const signed = await buildPayout(shape, { asset, sources: chosen.map((c) => ({ pool: c.pool.signer, poolHolding: c.pool.holding, amount: c.amount })), recipient: destination, ...rentBack });
    // A replacement passes the dead transaction's meta: its pools are not this one's.
    const { sources: _deadSources, confirmedAt: _deadFate, ...kept } = meta;
    const sources = chosen.length > 1 ? { sources: chosen.map((c) => ({ holding: c.pool.holding, amount: c.amount.toString() })) } : {};
    const signedWith: SignedWith = { blockhash: blockhash.blockhash, fetchedAt: blockhash.fetchedAt, blocksLeftAtFetch: blockhash.blocksLeftAtFetch, slotMs: blockhash.slotMs, computeUnitPrice: shape.computeUnitPriceMicroLamports };
    return { kind, orderId: o.id, assetId, amount, source: chosen[0]!.pool.holding, destination, ...signed, meta: { part: 0, ...kept, ...sources }, signedWith };
  }

  /**
   * Whether a payout signed ahead (PayoutQueue.presign) may be recorded and sent as it is, against a batch's
   * shared reads: still priced and dated as one signed now (presignedVerdict), its blockhash not one a deposit
   * transaction carries now (it was checked when signed; an order created since may have been handed it),
   * and its pools still able to pay it. When it may, what it takes is counted in the batch's `taken`.
   */
  async reusable(planned: PlannedTransfer, shared: PlanReads): Promise<PresignedVerdict | 'handed_out' | 'pools_changed'> {
    const s = planned.signedWith;
    if (!s) return 'repriced';
    const ctx = this.ctx;
    const verdict = presignedVerdict(s, ctx.clock.now(), ctx.fees().price('payout').microLamportsPerCu);
    if (verdict !== 'use') return verdict;
    if ((await this.handedOutSet(ctx.db)).has(s.blockhash)) return 'handed_out';
    // No await from here on: the check and the update of `taken` are one synchronous step, as in plan().
    const asset = ctx.asset(planned.assetId);
    const legs = transferSources(planned);
    if (legs.some((l) => available(asset, l.holding, shared) < l.amount)) return 'pools_changed';
    for (const l of legs) shared.taken.set(l.holding, (shared.taken.get(l.holding) ?? 0n) + l.amount);
    return 'use';
  }

  /**
   * A blockhash for a payout: never one a deposit transaction carries (see openOrderBlockhashes), nor
   * `own`, the paid order's own deposit blockhash: the set is up to 500 ms old, and an order created
   * since then by an API in another process (whose cache may have reached Hush's own blockhash) can be
   * paid within it.
   */
  private async payoutBlockhash(q: Queryable, own?: string): Promise<FreshBlockhash> {
    const set = await this.handedOutSet(q);
    return this.ctx.view().chain.blockhashAvoiding(own === undefined ? set : { has: (h) => h === own || set.has(h) });
  }

  /** The deposit blockhashes of open orders, at most 500 ms old; the plans of a batch share one read. */
  private async handedOutSet(q: Queryable): Promise<Set<string>> {
    if (this.ctx.clock.now() - this.handedOut.at <= 500) return this.handedOut.set;
    // `q`: inside a transaction the read must use it (PGlite serializes everything behind an open one).
    return this.handedOutRead.get(q);
  }

  /** Pool inventory per asset at `confirmed` (SOL pools less their rent reserve). */
  async inventory(): Promise<Map<string, bigint>> {
    const pools = this.ctx.treasury.allPools();
    const balances = await this.ctx.view().balances(pools.map((p) => p.holding), 'confirmed');
    const out = new Map<string, bigint>();
    for (const p of pools) {
      const held = spendableBalance(this.ctx.asset(p.assetId).native, balances.get(p.holding));
      out.set(p.assetId, (out.get(p.assetId) ?? 0n) + (held > 0n ? held : 0n));
    }
    return out;
  }
}
