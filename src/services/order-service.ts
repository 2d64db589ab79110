import { depositComputeBudget, drawsFromSeed } from '../domain/deposit-budget.ts';
import { addressBytes } from '../domain/address-codec.ts';
import { hmacSha256 } from '../domain/hmac-sha256.ts';
import { createHash } from 'node:crypto';
import pLimit, { type LimitFunction } from 'p-limit';
import type { Address } from '@solana/kit';
import type { Asset } from '../config/assets.ts';
import type { HushConfig } from '../config/config.ts';
import { HushError } from '../domain/errors.ts';
import { STATUS } from '../domain/order-state.ts';
import { chainUnavailable } from '../domain/chain-unavailable.ts';
import { orderExpirationMs, orderTtlS } from '../domain/order-deadline.ts';
import { firstQuoteDifference, openQuoteId, quoteKey, type OpenedQuote } from '../domain/quote-token.ts';
import { trackingIdByQuoteKey } from '../store/order-by-quote.ts';
import { buildDepositTransaction, depositAccountOf } from '../chain/deposit-transaction.ts';
import { DepositFees } from './deposit-fees.ts';
import { ChainUnavailableError, SolanaChain, type FreshBlockhash } from '../chain/solana-chain.ts';
import type { LaneContext } from '../chain/rpc-lane.ts';
import type { AccountRecord } from '../store/accounts-store.ts';
import type { Db } from '../store/db.ts';
import { claimIdempotencyKey, releaseIdempotencyKey } from '../store/idempotency-store.ts';
import { getOrderByTrackingId, insertOrder, updateOrderTransaction, type OrderRecord } from '../store/orders-store.ts';
import type { DepositIdentity } from '../treasury/deposit-identity.ts';
import { sealDepositRecord } from '../treasury/deposit-record-box.ts';
import type { Random } from '../support/random.ts';
import { insertBatchesInFlight, OrderInsertBatcher } from './order-insert-batcher.ts';
import { orderObject, type OrderObject } from './order-views.ts';
import { depositAddressRefusal } from './address-rules.ts';
import type { Clock } from '../support/clock.ts';

export interface OrderRequest {
  quote: Record<string, unknown>;
  senderAddress: string;
  recipientAddress: string;
  feeBps?: number;
  feeRecipientAddress?: string;
}

/** The answer to a created order; a replay is the same body, as stored with its idempotency key. */
export interface OrderCreated {
  success: true;
  order: OrderObject;
}

export interface OrderOutcome {
  status: 200;
  body: OrderCreated;
  replayed: boolean;
}

/**
 * What order creation needs of Hush's secrets (docs/spec.md §10, key custody): the quote key, and deposit
 * identities a process holding the seed derived (role api claims them from the store). No signing key.
 */
export interface OrderSecrets {
  quoteMacKey: Uint8Array;
  identities: { take(mint: Address, tokenProgram: Address): Promise<DepositIdentity> };
  /**
   * The public key each deposit's record is sealed to (docs/decisions.md "The deposit carries its order's record"),
   * a worker's, and the draws of each record's ephemeral key. Not a secret: sealing opens nothing.
   */
  depositRecords: { publicKey(): Uint8Array; random: Random };
}

/** What a deposit's record holds: the order's terms a payout needs that the chain does not show. */
type RecordTerms = Pick<OrderRecord, 'trackingId' | 'accountId' | 'mode' | 'sourceAssetId' | 'destinationAssetId' | 'recipient' | 'amountOut'>;

/** Margin between a transaction's last possible landing and the order's expiration (slot times vary). */
const BLOCKHASH_SAFETY = 1.25;
const BUDGET_DOMAIN = Buffer.from('hush/deposit-budget', 'ascii');


function chainError(e: unknown): never {
  if (e instanceof ChainUnavailableError) throw chainUnavailable(e);
  throw e;
}

/** Seed rule 4: the loser of a concurrent creation; its retry replays the order. */
const orderInProgress = () => new HushError('ORDER_IN_PROGRESS', 'This order is being created by a concurrent request; retry shortly');

export class OrderService {
  /** Bounds in-flight database work so a burst queues in memory instead of stretching every query. */
  private readonly dbSlots: LimitFunction;
  private readonly identities: OrderSecrets['identities'];
  private readonly inserts: OrderInsertBatcher;
  /** Orders being created by this process, by account and idempotency key (see create). */
  private readonly creating = new Map<string, { requestHash: string; outcome: Promise<OrderOutcome | { error: unknown }> }>();
  /** The deposit level's price (the fee market at most once a slot, for order creation and refresh only). */
  private readonly depositFees: DepositFees;

  constructor(
    private readonly config: HushConfig,
    private readonly db: Db,
    private readonly chain: SolanaChain,
    private readonly keys: OrderSecrets,
    private readonly clock: Clock,
    private readonly inventory?: {
      reserve(assetId: string, amount: bigint, accountId: string): { release(): void; stored(): void } | null;
      openOrders(accountId: string): { count: number; firstExpiration: Date | null };
    },
    dbConcurrency = db.kind === 'pglite' ? 4 : 16,
  ) {
    this.dbSlots = pLimit(dbConcurrency);
    this.inserts = new OrderInsertBatcher(db, insertBatchesInFlight(db.kind), clock);
    this.identities = keys.identities;
    this.depositFees = new DepositFees(chain, config, clock);
  }

  async close(): Promise<void> {}

  /** The quote as issued to this account, checked against what the partner sent back. */
  private verifyQuote(account: AccountRecord, req: OrderRequest): OpenedQuote {
    const quoteId = req.quote.quoteId;
    // No quoteId string at all is the wrong shape, not an unknown quote: say what to send (issue 43).
    if (typeof quoteId !== 'string') {
      const wrapped = typeof (req.quote as { quote?: unknown }).quote === 'object';
      throw new HushError('INVALID_REQUEST', wrapped
        ? 'quote is the whole POST /quote answer: send its `quote` object instead, unchanged'
        : 'quote.quoteId is required: send the quote object from POST /transfer/v1/quote, unchanged', {
        field: 'quote.quoteId',
        reason: wrapped ? 'send answer.quote, not the answer' : 'missing',
      });
    }
    const opened = openQuoteId(this.keys.quoteMacKey, account.id, quoteId);
    if (!opened) throw new HushError('QUOTE_NOT_FOUND', 'No quote with this quoteId was issued to this account');
    const field = firstQuoteDifference(opened.quote, req.quote);
    if (field !== null) throw new HushError('QUOTE_MISMATCH', `The quote differs from the one issued (${field})`, { field });
    const terms = opened.request;
    const checks: [string, unknown, unknown][] = [
      ['senderAddress', req.senderAddress, terms.senderAddress],
      ['recipientAddress', req.recipientAddress, terms.recipientAddress],
      ['feeBps', req.feeBps ?? 0, terms.feeBps],
      ['feeRecipientAddress', req.feeRecipientAddress, terms.feeRecipientAddress],
    ];
    for (const [f, got, want] of checks) {
      if (got !== want) throw new HushError('QUOTE_MISMATCH', `${f} differs from the quote request`, { field: f });
    }
    return opened;
  }

  /** `lane`: where its chain call (a blockhash, when the cache is stale) waits: a request passes its own (src/api/request-lane.ts). */
  async create(account: AccountRecord, req: OrderRequest, idempotencyKey: string | undefined, lane: LaneContext): Promise<OrderOutcome> {
    const opened = this.verifyQuote(account, req);
    const key = idempotencyKey ?? `quote:${quoteKey(opened.quote.quoteId)}`;
    const requestHash = createHash('sha256')
      // The quote as issued, in its canonical field order: verifyQuote found the one sent equal to it, and
      // a retry that sends it back with its keys in another order (e.g. from a JSONB column) is the same request.
      .update(JSON.stringify([opened.quote, req.senderAddress, req.recipientAddress, req.feeBps ?? 0, req.feeRecipientAddress ?? null]))
      .digest('base64url');
    const flight = `${account.id}\n${key}`;
    const running = this.creating.get(flight);
    if (running) {
      // A duplicate of a request this process is still answering waits for it in memory (no database work):
      // the same answers a claimed record gives (idempotency-store) — other terms conflict; the loser of a
      // creation is told ORDER_IN_PROGRESS (seed rule 4) and its retry replays; a replay or a failure of
      // the same request is shared.
      if (running.requestHash !== requestHash) throw new HushError('IDEMPOTENCY_CONFLICT', 'This idempotency key was used with different terms');
      const first = await running.outcome;
      if ('error' in first) throw first.error;
      if (first.replayed) return first;
      throw orderInProgress();
    }
    let settle!: (o: OrderOutcome | { error: unknown }) => void;
    this.creating.set(flight, { requestHash, outcome: new Promise((resolve) => (settle = resolve)) });
    try {
      const outcome = await this.createOwned(account, opened, key, requestHash, lane);
      settle(outcome);
      return outcome;
    } catch (e) {
      settle({ error: e });
      throw e;
    } finally {
      this.creating.delete(flight);
    }
  }

  /** QUOTE_ALREADY_USED naming the order the quote backs, so a partner that lost it can follow it (issue 43). */
  private async quoteAlreadyUsed(account: AccountRecord, opened: OpenedQuote): Promise<HushError> {
    const trackingId = await this.dbSlots(() => trackingIdByQuoteKey(this.db, account.id, quoteKey(opened.quote.quoteId))).catch(() => null);
    return new HushError('QUOTE_ALREADY_USED', `This quote already backs an order${trackingId ? ` (${trackingId})` : ''}`, trackingId ? { trackingId } : undefined);
  }

  private async createOwned(account: AccountRecord, opened: OpenedQuote, key: string, requestHash: string, lane: LaneContext): Promise<OrderOutcome> {
    // Common case, one statement: build the order, then record the new key and the order together. If the
    // build fails or the key exists, the claim-first path below answers as the key's record says (a replay
    // stays a replay even when, say, liquidity has changed since). Whatever was built but not stored gives
    // its inventory reservation back.
    let prepared = await this.prepare(account, opened, lane).catch(() => null);
    let stored = false;
    try {
      if (prepared) {
        const fast = await this.inserts.insert({ order: prepared.order, key, requestHash, responseBody: prepared.body });
        if (fast.kind === 'created') {
          stored = true;
          return { status: 200, body: prepared.body, replayed: false };
        }
        if (fast.kind === 'quote_used') throw await this.quoteAlreadyUsed(account, opened);
        if (fast.kind === 'deposit_address') throw depositAddressRefusal(opened.request, fast.addresses);
      }
      const claim = await this.dbSlots(() => claimIdempotencyKey(this.db, account.id, key, requestHash));
      if (claim.kind === 'conflict') throw new HushError('IDEMPOTENCY_CONFLICT', 'This idempotency key was used with different terms');
      if (claim.kind === 'in_progress') throw orderInProgress();
      // Only a created order's answer (200) is ever stored with a key (insertOrder, the insert batcher).
      if (claim.kind === 'done') return { status: 200, body: claim.body as OrderCreated, replayed: true };
      try {
        prepared ??= await this.prepare(account, opened, lane);
        const { order, body } = prepared;
        const inserted = await this.dbSlots(() => insertOrder(this.db, order, { key, responseStatus: 200, responseBody: body }));
        if (inserted.kind === 'quote_used') throw await this.quoteAlreadyUsed(account, opened);
        if (inserted.kind === 'deposit_address') throw depositAddressRefusal(opened.request, inserted.addresses);
        stored = true;
        return { status: 200, body, replayed: false };
      } catch (e) {
        await this.dbSlots(() => releaseIdempotencyKey(this.db, account.id, key)).catch(() => {});
        throw e;
      }
    } finally {
      if (prepared && !stored) prepared.reservation.release();
      else if (prepared) prepared.reservation.stored();
    }
  }

  /** Everything an order is before it is stored: its row and the response that creates it. */
  private async prepare(account: AccountRecord, opened: OpenedQuote, lane: LaneContext) {
    const q = opened.quote;
    // Checks of what may have changed since the quote, here rather than in verifyQuote: a retry of an order
    // already created replays it (records live ≥ 24 h) even once its quote has expired.
    if (Date.parse(q.expiresAt) <= this.clock.now()) throw new HushError('QUOTE_EXPIRED', 'The quote has expired; request a new one', { expiresAt: q.expiresAt });
    const feeRecipient = opened.request.feeRecipientAddress;
    if (feeRecipient && !account.feeRecipients.includes(feeRecipient)) {
      throw new HushError('FEE_RECIPIENT_NOT_REGISTERED', 'feeRecipientAddress is no longer registered to this account', { feeRecipientAddress: feeRecipient });
    }
    const source = this.config.assets.get(q.sourceAssetId);
    if (!source) throw new HushError('UNSUPPORTED_ASSET', `Asset "${q.sourceAssetId}" is no longer supported; valid asset ids: ${this.config.assets.list.map((a) => a.assetId).join(', ')}`, { field: 'sourceAssetId', assetId: q.sourceAssetId });
    // The cap on open unfunded orders, then the order-time re-check: the pools must still cover this order.
    // Check and take in one synchronous step, so an order created a moment ago counts even before the next
    // inventory refresh.
    this.checkOpenOrders(account);
    const reservation = this.inventory ? this.inventory.reserve(q.destinationAssetId, BigInt(q.amountOut), account.id) : { release() {}, stored() {} };
    if (!reservation) {
      throw new HushError('INSUFFICIENT_LIQUIDITY', 'Not enough liquidity to fill this order right now; retry shortly or request a smaller quote', { assetId: q.destinationAssetId });
    }
    try {
      return { ...(await this.prepareReserved(account, opened, source, lane)), reservation };
    } catch (e) {
      reservation.release();
      throw e;
    }
  }

  /**
   * docs/spec.md §7: at most HUSH_MAX_OPEN_ORDERS orders of an account await a deposit at once, so one
   * account cannot stock up promises; one is freed when an order is funded or expires (Retry-After: when
   * the first open one expires, at the latest).
   */
  private checkOpenOrders(account: AccountRecord): void {
    const open = this.inventory?.openOrders(account.id);
    if (!open || open.count < this.config.maxOpenOrders) return;
    const untilMs = open.firstExpiration ? open.firstExpiration.getTime() - this.clock.now() : this.config.orderTtlS * 1000;
    throw new HushError(
      'TOO_MANY_OPEN_ORDERS',
      `This account has ${this.config.maxOpenOrders} orders awaiting a deposit; fund one or let it expire before creating another`,
      { maxOpenOrders: this.config.maxOpenOrders },
      { retryAfterSeconds: Math.max(1, untilMs / 1000) },
    );
  }

  private async prepareReserved(account: AccountRecord, opened: OpenedQuote, source: Asset, lane: LaneContext) {
    const q = opened.quote;
    const { trackingId, depositOwner, depositAccount, extraBumpTries } = await this.identities.take(source.mint, source.tokenProgram);
    // Whether an address of the order is another order's deposit address is the insert's own check (orders-store.ts).
    // The market is read beside the blockhash, not after it: at most one call a slot, shared by every order.
    const [blockhash, price] = await Promise.all([this.chain.latestBlockhash(lane).catch(chainError), this.depositFees.price()]);
    const terms: RecordTerms = { trackingId, accountId: account.id, mode: q.mode, sourceAssetId: q.sourceAssetId, destinationAssetId: q.destinationAssetId, recipient: opened.request.recipientAddress, amountOut: BigInt(q.amountOut) };
    const tx = await this.depositTransaction(opened, depositOwner, blockhash, price, terms, { depositAccount, extraBumpTries });
    const createdAt = this.clock.date();
    const txDeathMs = createdAt.getTime() + SolanaChain.remainingMs(blockhash, createdAt.getTime()) * BLOCKHASH_SAFETY;
    const ttlS = orderTtlS(q.sourceAssetId !== q.destinationAssetId, this.config);
    const expiration = new Date(orderExpirationMs(createdAt.getTime(), ttlS, txDeathMs));
    const order = {
      trackingId,
      accountId: account.id,
      quoteKey: quoteKey(q.quoteId),
      quote: q,
      sourceAssetId: q.sourceAssetId,
      destinationAssetId: q.destinationAssetId,
      mode: q.mode,
      amountIn: BigInt(q.amountIn),
      amountOut: BigInt(q.amountOut),
      serviceFee: BigInt(q.feeBreakdown.serviceFee),
      partnerFee: BigInt(q.feeBreakdown.partnerFee),
      networkFee: BigInt(q.networkFee),
      networkFeePrice: opened.networkFeePrice,
      feeBps: opened.request.feeBps,
      feeRecipient: opened.request.feeRecipientAddress ?? null,
      sender: opened.request.senderAddress,
      recipient: opened.request.recipientAddress,
      depositOwner,
      depositAccount: tx.depositAccount,
      expiration,
      txBlockhash: blockhash.blockhash,
      txLastValidBlockHeight: blockhash.lastValidBlockHeight,
      txExpiresAtSlot: blockhash.expiresAtSlot,
      createdAt,
    };
    const body: OrderCreated = { success: true, order: orderObject(this.config.assets, order, { base64: tx.base64, expiresAtSlot: blockhash.expiresAtSlot, lastValidBlockHeight: blockhash.lastValidBlockHeight }, q.duration) };
    return { order, body };
  }

  private async depositTransaction(
    opened: OpenedQuote | { quote: { sourceAssetId: string; amountIn: string }; request: { senderAddress: Address } },
    depositOwner: Address,
    blockhash: FreshBlockhash,
    /** The deposit level's price now (DepositFees): the order's draw is around it, so a refresh re-prices it. */
    price: bigint,
    terms: RecordTerms,
    /** Derived with the deposit identity, off the request's path; a refresh derives it again. */
    deposit?: { depositAccount: Address; extraBumpTries: number },
  ) {
    const source = this.config.assets.get(opened.quote.sourceAssetId)!;
    const { depositAccount, extraBumpTries } = deposit ?? depositAccountOf(depositOwner, source.mint, source.tokenProgram);
    const budget = depositComputeBudget(source.native, price, drawsFromSeed(this.budgetSeed(depositOwner)), extraBumpTries);
    const ceiling = this.depositFees.ceiling(budget.computeUnitLimit);
    if (budget.computeUnitPriceMicroLamports > ceiling) budget.computeUnitPriceMicroLamports = ceiling;
    return buildDepositTransaction({
      depositAccount,
      sender: opened.request.senderAddress,
      depositOwner,
      mint: source.mint,
      tokenProgram: source.tokenProgram,
      decimals: source.decimals,
      native: source.native,
      amount: BigInt(opened.quote.amountIn),
      blockhash: blockhash.blockhash,
      lastValidBlockHeight: blockhash.lastValidBlockHeight,
      ...budget,
      memo: this.sealedRecord(terms),
    });
  }

  private sealedRecord(t: RecordTerms): string {
    const { publicKey, random } = this.keys.depositRecords;
    let key: Uint8Array;
    try {
      key = publicKey();
    } catch {
      throw new HushError('SERVICE_UNAVAILABLE', 'No worker has published its keys yet; retry shortly', undefined, { retryAfterSeconds: 1 });
    }
    const record = { kind: 'deposit' as const, part: 0, trackingId: t.trackingId, accountId: t.accountId, mode: t.mode, sourceAssetId: t.sourceAssetId, destinationAssetId: t.destinationAssetId, recipient: addressBytes(t.recipient as Address), amountOut: t.amountOut };
    return sealDepositRecord(key, record, random);
  }

  /**
   * A deposit budget's seed: keyed (the deposit owner is public on the chain, and an unkeyed draw from it
   * would let anyone recompute the budget and recognise Hush's deposits), the same for every transaction
   * of one order.
   */
  private budgetSeed(depositOwner: Address): Uint8Array {
    return hmacSha256(this.keys.quoteMacKey, BUDGET_DOMAIN, addressBytes(depositOwner));
  }

  /** An order of this account, or 404 (another account's trackingId is indistinguishable from none). */
  async get(account: AccountRecord, trackingId: string): Promise<OrderRecord> {
    const order = /^trk_[1-9A-HJ-NP-Za-km-z]{22}$/.test(trackingId) ? await getOrderByTrackingId(this.db, trackingId) : null;
    if (!order || order.accountId !== account.id) throw new HushError('NOT_FOUND', 'No order with this trackingId');
    return order;
  }

  /** A new transaction for the same deposit after the previous blockhash expired (seed "refresh"). */
  async refresh(account: AccountRecord, trackingId: string, lane: LaneContext) {
    const order = await this.get(account, trackingId);
    // Past its deadline the order is gone (410) whether or not the worker has marked it expired yet.
    if (order.status === STATUS.expired) throw new HushError('ORDER_EXPIRED', 'The order has expired; request a new quote', { expiration: order.expiration.toISOString() });
    if (order.status !== STATUS.awaiting_deposit) throw new HushError('ORDER_NOT_REFRESHABLE', `The order is ${order.status}, not awaiting a deposit`, { status: order.status });
    const [blockhash, price] = await Promise.all([this.chain.latestBlockhash(lane).catch(chainError), this.depositFees.price()]);
    const now = this.clock.now();
    if (now + SolanaChain.remainingMs(blockhash, now) * BLOCKHASH_SAFETY > order.expiration.getTime()) {
      throw new HushError('ORDER_EXPIRED', 'The order expires before a new transaction could land', { expiration: order.expiration.toISOString() });
    }
    const tx = await this.depositTransaction(
      { quote: { sourceAssetId: order.sourceAssetId, amountIn: order.amountIn.toString() }, request: { senderAddress: order.sender } },
      order.depositOwner,
      blockhash,
      price,
      order,
    );
    const updated = await this.dbSlots(() =>
      updateOrderTransaction(this.db, order.id, { blockhash: blockhash.blockhash, lastValidBlockHeight: blockhash.lastValidBlockHeight, expiresAtSlot: blockhash.expiresAtSlot }),
    );
    if (!updated) throw new HushError('ORDER_NOT_REFRESHABLE', 'The order is no longer awaiting a deposit', { status: 'changed' });
    const quote = order.quote as { duration?: number };
    return { success: true as const, order: orderObject(this.config.assets, order, { base64: tx.base64, expiresAtSlot: blockhash.expiresAtSlot, lastValidBlockHeight: blockhash.lastValidBlockHeight }, quote.duration ?? 0) };
  }
}
