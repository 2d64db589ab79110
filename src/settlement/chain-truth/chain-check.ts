import { historySince, readTransactions } from '../../chain/hush-history.ts';
import { STATUS, STATUS_TRAITS } from '../../domain/order-state.ts';
import {
  insertFound, knownSignatures, markChecked, openAdoptions, orderIdByDepositAccount, pauseTruth, readTruth, readWatermark, settleRecordedAdoptions, writeWatermark,
  type FoundTransaction, type TruthState,
} from '../../store/chain-truth-store.ts';
import { getOrderById, getOrderByTrackingId, type OrderRecord } from '../../store/orders-store.ts';
import type { NewChainTx, TransferMeta } from '../../store/settlement/chain-tx.ts';
import { insertChainTx } from '../../store/settlement/insert-chain-tx.ts';
import { attachSweep } from '../../store/settlement/attach-sweep.ts';
import { leaseOrder } from '../../store/settlement/lease-order.ts';
import { refundOrder } from '../../store/settlement/refund-order.ts';
import { releaseOrder } from '../../store/settlement/release-orders.ts';
import { startPayouts, type PayableStatus } from '../../store/settlement/start-payouts.ts';
import { openRecord } from '../../treasury/record-cipher.ts';
import type { Treasury } from '../../treasury/treasury.ts';
import type { ChainRecord } from '../../domain/chain-record.ts';
import { readRetiredWallets } from '../../store/treasury-wallets-store.ts';
import { depositIdentityAccounts, purgeDepositIdentities } from '../../store/deposit-identities-store.ts';
import { confirmFundedOrders, originQuery, type PayableOrder } from '../confirm-funded-orders.ts';
import type { SettlementContext } from '../context.ts';
import { attribute } from './attribute.ts';
import { recordDecisions, screenOrders } from '../steps/screen-orders.ts';
import { rebuildOrder } from './rebuild-order.ts';
import { rebuildFromDeposit } from './rebuild-from-deposit.ts';
import { bookOpeningBalances, markOpeningDue, openingDue, storeHoldsNothing } from './opening-balances.ts';

/** A record opened with whichever held seed sealed it (a retired one's for a transaction signed before a rotation). */
function openWithAny(seeds: readonly Treasury[], memo: string): { record: ChainRecord; seed: Treasury } | null {
  for (const seed of seeds) {
    const record = openRecord(seed.keys.recordKey, memo);
    if (record) return { record, seed };
  }
  return null;
}

/** The lowest identities of each asset's pool looked at: what a few APIs' claims take next (32 at a time). */
const POOL_SCAN_PER_ASSET = 128;

/** A landed transaction never expires: its record's last valid height only has to be past any height the fate loop reads. */
const LANDED = 2n ** 62n;

/** What one pass of the check did. */
export interface CheckOutcome {
  /** Signatures of the fee payer's history read this pass. */
  read: number;
  adopted: number;
  unattributed: number;
  paused: boolean;
}

/**
 * The store compared with the chain (docs/decisions.md "The chain is the record"). The fee payer signs every
 * transaction Hush builds, so its history, read past a high-water mark, lists them all; each the store has no
 * record of (it went back in time) is read and its sealed record opened. What belongs to an order the store
 * still has open is adopted: it becomes that order's payout, refund or sweep record, so the order is settled
 * by what the chain shows and never paid again. Anything else pauses payouts (`store_behind_chain`) until an
 * operator acts. Runs before a worker pays anything, then every CHECK_EVERY_MS.
 */
export class ChainCheck {
  /** Adopted payouts and refunds not yet recorded, by order (pools.plan takes them instead of signing anew). */
  private adoptions = new Map<string, FoundTransaction[]>();
  private state: TruthState = { paused: false, reason: null, since: null, checkedAt: null };
  /** Whether this process has looked at the identities next in line on chain yet (scanPool, once a start). */
  private poolScanned = false;
  /** False while a lost store's opening balances wait to be booked (reconcile would show them as differences). */
  openingSettled = true;

  constructor(private readonly ctx: SettlementContext) {}

  /** Payouts stopped for an operator (the last the store said). */
  get paused(): boolean {
    return this.state.paused;
  }

  /** The transfer the chain shows for an order's part, when the store had forgotten it (pools.plan). */
  adopted(orderId: string, kind: 'payout' | 'refund' | 'partner_payout', part: number): FoundTransaction | undefined {
    return this.adoptions.get(orderId)?.find((f) => f.kind === kind && f.part === part);
  }

  /** The chain record an adopted transfer becomes (what the store would hold had it not forgotten it). */
  static chainTx(f: FoundTransaction): NewChainTx {
    const meta: TransferMeta = { part: f.part, ...(f.detail.sources ? { sources: f.detail.sources as TransferMeta['sources'] } : {}) };
    return { kind: f.kind as 'payout' | 'refund', orderId: f.orderId, assetId: f.assetId!, amount: f.amount!, source: f.source!, destination: f.destination as NewChainTx['destination'], signature: f.signature, wire: f.wire, lastValidBlockHeight: LANDED, meta };
  }

  async pass(): Promise<CheckOutcome> {
    const ctx = this.ctx;
    const found: FoundTransaction[] = [];
    const rebuilt: string[] = [];
    let read = 0;
    let purged = 0;
    for (const wallet of await this.feePayers()) {
      const scanned = await this.scan(wallet, wallet === ctx.treasury.feePayer.address);
      read += scanned.read;
      purged += scanned.purged;
      found.push(...scanned.found);
      rebuilt.push(...scanned.rebuilt);
    }
    if (!this.poolScanned) {
      await this.scanPool(rebuilt);
      this.poolScanned = true;
    }
    const lost = found.filter((f) => f.kind === 'unattributed');
    if (lost.length > 0) {
      ctx.alert(
        'store_behind_chain',
        { transactions: lost.length, signatures: lost.slice(0, 10).map((f) => f.signature), reasons: [...new Set(lost.map((f) => f.detail.reason))] },
        'ALERT: the chain shows transactions of Hush that the store cannot attribute (restored or lost store?); payouts are paused until an operator acts (docs/operations.md "store_behind_chain")',
      );
    }
    const adopted = found.length - lost.length;
    if (rebuilt.length > 0) {
      ctx.alert('orders_rebuilt', { orders: rebuilt.length, trackingIds: rebuilt.slice(0, 10) }, 'ALERT: the store had forgotten orders the chain shows paid or refunded (restored or lost store?); they were rebuilt from the chain (docs/operations.md "orders_rebuilt")');
    }
    if (purged > 0) ctx.log({ purged }, 'deposit identities the store held from before it went back were dropped (never handed out twice)');
    if (adopted > 0) ctx.log({ adopted, signatures: found.filter((f) => f.kind !== 'unattributed').map((f) => f.signature) }, 'the store was behind the chain: transactions of its orders adopted from the chain');
    const open = await this.adopt();
    if (await openingDue(ctx.db)) this.openingSettled = await bookOpeningBalances(ctx, open);
    else this.openingSettled = true;
    this.state = await readTruth(ctx.db);
    return { read, adopted, unattributed: lost.length, paused: this.state.paused };
  }

  /**
   * The fee payers whose history is read: the current seed's, and each retired seed's until its fee payer is drained
   * (docs/operations.md "Rotate the treasury seed": an empty fee payer can pay for nothing more).
   */
  private async feePayers(): Promise<string[]> {
    const t = this.ctx.treasury;
    if (t.retired.length === 0) return [t.feePayer.address];
    const drained = new Set((await readRetiredWallets(this.ctx.db)).filter((w) => w.role === 'feepayer' && w.drainedAt !== null).map((w) => w.feePayer as string));
    return [t.feePayer.address, ...t.retired.map((r) => r.feePayer.address as string).filter((a) => !drained.has(a))];
  }

  /** One fee payer's history past its high-water mark: what of it the store does not know, attributed and recorded. */
  private async scan(wallet: string, current: boolean): Promise<{ read: number; found: FoundTransaction[]; rebuilt: string[]; purged: number }> {
    const ctx = this.ctx;
    const mark = await readWatermark(ctx.db, wallet);
    const history = await historySince(ctx.view, wallet, mark?.signature ?? null);
    // A store that holds nothing over a seed whose fee payer signed transactions it does not know: a lost store (its
    // opening balances are booked once what is adopted has settled). Someone else's transfers (the start's
    // funding airdrops) are no sign of one: their funding is booked as it lands.
    const empty = current && mark === null && history.length > 0 && (await storeHoldsNothing(ctx.db));
    const found: FoundTransaction[] = [];
    const rebuilt: string[] = [];
    let purged: { depositAccount: string }[] = [];
    if (history.length === 0) {
      if (current) await markChecked(ctx.db);
      return { read: 0, found, rebuilt, purged: 0 };
    }
    const known = await knownSignatures(ctx.db, history.map((h) => h.signature));
    // A failed transaction moved nothing but its fee (reconcile shows a fee the ledger lacks).
    const unknown = history.filter((h) => !known.has(h.signature) && h.err === null);
    const seeds = ctx.treasury.seeds();
    const reads = {
      orderByTrackingId: (id: string) => getOrderByTrackingId(ctx.db, id),
      orderByDepositAccount: async (a: string) => {
        const id = await orderIdByDepositAccount(ctx.db, a);
        return id === null ? null : getOrderById(ctx.db, id);
      },
      poolHoldings: new Set(seeds.flatMap((t) => t.allPools().map((p) => p.holding as string))),
    };
    for (const tx of await readTransactions(ctx.view, unknown.map((u) => u.signature))) {
      // Someone else's transaction naming the fee payer (a top-up, an airdrop): no money of Hush's left by it. One
      // the fee payer's key signed is Hush's, whoever paid its fee (a key used outside Hush has no record).
      if (!tx.signers.includes(wallet)) continue;
      const opened = tx.memo === null ? null : openWithAny(seeds, tx.memo);
      const record = opened?.record ?? null;
      let f = await attribute(tx, record, reads);
      // A sweep of deposits the store forgot: each deposit's own record brings its order back, then the sweep is theirs.
      if (f.detail.reason === 'sweep_of_unknown_deposit' && (await this.rebuildDeposits(tx.closed.map((c) => c.account), rebuilt))) f = await attribute(tx, record, reads);
      // An order the store forgot whose record holds its terms comes back (born again, then adopted like any other).
      if (opened && f.detail.reason === 'order_unknown' && (await rebuildOrder(ctx, opened.record, tx, reads.poolHoldings, opened.seed.keys))) {
        f = await attribute(tx, opened.record, reads);
        rebuilt.push(opened.record.trackingId);
      }
      found.push(f);
    }
    const newest = history[history.length - 1]!;
    await ctx.db.transaction(async (q) => {
      await insertFound(q, found);
      if (empty && found.length > 0) await markOpeningDue(q);
      await writeWatermark(q, wallet, newest.signature, newest.slot);
      // The store went back in time: identities it still holds may be ones a forgotten order was given.
      if (found.length > 0) purged = await purgeDepositIdentities(q);
      if (found.some((f) => f.kind === 'unattributed')) await pauseTruth(q, 'store_behind_chain');
      else if (current) await markChecked(q);
    });
    // Identities handed out since the backup, to orders the store forgot: a funded one is such an order's deposit.
    if (purged.length > 0) await this.rebuildFunded(purged.map((p) => p.depositAccount), rebuilt);
    return { read: history.length, found, rebuilt, purged: purged.length };
  }

  /**
   * Rebuilds the orders of deposit accounts the store does not know from their deposits' records, and confirms each from
   * the chain (its account may be swept and closed): the usual steps then pay it or refund it. True when any came back.
   */
  private async rebuildDeposits(accounts: readonly string[], rebuilt: string[]): Promise<boolean> {
    let any = false;
    for (const account of accounts) {
      if ((await orderIdByDepositAccount(this.ctx.db, account)) !== null) continue;
      const order = await rebuildFromDeposit(this.ctx, account);
      if (!order) continue;
      any = true;
      rebuilt.push(order.trackingId);
      if (STATUS_TRAITS[order.status].awaitsDeposit) await this.confirmFromChain(order);
    }
    return any;
  }

  /**
   * The identities next in line (the lowest of each asset's pool) and those APIs claimed without an order stored: a
   * store restored from before they were handed out holds them as unused, though orders it forgot took them (and
   * nothing of Hush's may have moved since to tell). One the chain shows created means the store went back: the pool
   * is dropped (remembered as claimed, never handed out again) and every such order rebuilt from its deposit's record.
   */
  private async scanPool(rebuilt: string[]): Promise<void> {
    const accounts = await depositIdentityAccounts(this.ctx.db, POOL_SCAN_PER_ASSET);
    if (accounts.length === 0) return;
    const balances = await this.ctx.view.balances(accounts, 'confirmed');
    if (!accounts.some((a) => balances.get(a)?.exists)) return;
    const purged = await purgeDepositIdentities(this.ctx.db);
    this.ctx.log({ dropped: purged.length }, 'deposit identities the chain shows used were still unused in the store (restored from before): the pool is dropped');
    await this.rebuildFunded(purged.map((p) => p.depositAccount), rebuilt);
  }

  /** Of the deposit accounts of dropped identities, those the chain shows created: forgotten orders' deposits. */
  private async rebuildFunded(accounts: readonly string[], rebuilt: string[]): Promise<void> {
    const balances = await this.ctx.view.balances([...accounts], 'confirmed');
    await this.rebuildDeposits(accounts.filter((a) => balances.get(a)?.exists), rebuilt);
  }

  /** Brings every order with an adopted transfer to where the chain says it is, through the usual writers. */
  private async adopt(): Promise<number> {
    const ctx = this.ctx;
    const open = await openAdoptions(ctx.db);
    const byOrder = new Map<string, FoundTransaction[]>();
    for (const f of open) if (f.orderId !== null) byOrder.set(f.orderId, [...(byOrder.get(f.orderId) ?? []), f]);
    this.adoptions = byOrder;
    for (const [orderId, list] of byOrder) {
      let order = await getOrderById(ctx.db, orderId);
      if (!order || STATUS_TRAITS[order.status].final) continue;
      if (STATUS_TRAITS[order.status].awaitsDeposit) order = await this.confirmFromChain(order);
      if (!order) continue;
      const payout = list.find((f) => f.kind === 'payout');
      const refund = list.find((f) => f.kind === 'refund');
      if (payout && (order.status === STATUS.deposit_confirmed || order.status === STATUS.swapping)) await this.startAdoptedPayout(order, order.status, list.filter((f) => f.kind === 'payout'));
      else if (refund && (order.status === STATUS.deposit_confirmed || order.status === STATUS.swapping)) {
        // The refund step then plans it, and pools.plan hands it the adopted one.
        if (await refundOrder(ctx.db, order.id, order.status, 'refunded_before_the_store_went_back')) ctx.wake('orders');
      }
    }
    for (const f of open.filter((x) => x.kind === 'sweep')) await this.adoptSweep(f);
    const left = await settleRecordedAdoptions(ctx.db);
    if (left < open.length) {
      const still = new Set((await openAdoptions(ctx.db)).map((f) => f.signature));
      for (const [id, list] of this.adoptions) this.adoptions.set(id, list.filter((f) => still.has(f.signature)));
    }
    return left;
  }

  /** The order's deposit as the chain shows it (its account may be swept and closed since): confirmed through the usual path. */
  private async confirmFromChain(order: OrderRecord): Promise<OrderRecord | null> {
    const ctx = this.ctx;
    const found = await ctx.foreign.origins.find([originQuery(ctx, order)]);
    const origin = found.get(order.depositAccount);
    if (!origin) return null;
    const balance = { exists: true, lamports: 0n, tokenAmount: origin.amount };
    await confirmFundedOrders(ctx, [order as PayableOrder], new Map([[order.depositAccount, balance]]), Promise.resolve(found));
    return getOrderById(ctx.db, order.id);
  }

  private async startAdoptedPayout(order: OrderRecord, from: PayableStatus, payouts: FoundTransaction[]): Promise<void> {
    const ctx = this.ctx;
    if (!(await leaseOrder(ctx.db, order.id, from, ctx.workerId, ctx.leaseSeconds))) return;
    // docs/spec.md §12: every payout has its screening decision, this one too. It has left already: a finding now
    // cannot stop it, so it is an ALERT for compliance rather than a hold.
    const { holds, passed } = await screenOrders(ctx, [order], 'payout');
    if (holds.size > 0) ctx.alert('adopted_payout_flagged', { trackingId: order.trackingId }, 'ALERT: a payout found on chain (sent before the store went back) screens as flagged now; it has left (docs/operations.md "store_behind_chain")');
    await recordDecisions(ctx, passed, [order.id]);
    const moved = await startPayouts(ctx.db, ctx.workerId, payouts.map(ChainCheck.chainTx), 0, from);
    if (moved.has(order.id)) {
      ctx.log({ trackingId: order.trackingId, signatures: payouts.map((p) => p.signature) }, 'payout adopted from the chain');
      ctx.wake('transactions');
    } else await releaseOrder(ctx.db, order.id, ctx.workerId, { delayMs: 0 });
  }

  /** A forgotten sweep, once every deposit it moved is confirmed (its items are then that order's, never late funds). */
  private async adoptSweep(f: FoundTransaction): Promise<void> {
    const ctx = this.ctx;
    const items = (f.detail.items ?? []) as { orderId: string; depositAccount: string; amount: string }[];
    const orders = await Promise.all(items.map((i) => getOrderById(ctx.db, i.orderId)));
    if (orders.some((o) => !o || STATUS_TRAITS[o.status].awaitsDeposit)) return;
    await ctx.db.transaction(async (q) => {
      const id = await insertChainTx(q, {
        kind: 'sweep', orderId: null, assetId: f.assetId!, amount: f.amount!, source: 'deposits', destination: f.destination as NewChainTx['destination'],
        signature: f.signature, wire: f.wire, lastValidBlockHeight: LANDED,
        meta: { items: items.map((i, n) => ({ orderId: i.orderId, depositAccount: i.depositAccount, amount: depositPart(orders[n]!, BigInt(i.amount)).toString() })) },
      });
      if (id !== null) await attachSweep(q, items.map((i) => i.orderId), id);
    });
    ctx.wake('transactions');
  }
}

/** What of a swept amount was the order's deposit (the rest, sent after it, is late funds: not adopted here). */
function depositPart(o: OrderRecord, swept: bigint): bigint {
  const deposited = BigInt(o.deposit?.amount ?? '0');
  return swept < deposited ? swept : deposited;
}

