import { alertsTotal, type AlertSink } from '../support/alerts.ts';
import { getBase58Encoder, type Signature } from '@solana/kit';
import { HushError } from '../domain/errors.ts';
import { readingChain } from '../domain/chain-unavailable.ts';
import type { ChainCalls, SolanaChain } from '../chain/solana-chain.ts';
import type { LaneContext } from '../chain/rpc-lane.ts';
import type { HushConfig } from '../config/config.ts';
import type { AccountRecord } from '../store/accounts-store.ts';
import type { Db } from '../store/db.ts';
import { addDepositHint, getOrderById, type OrderRecord } from '../store/orders-store.ts';
import { confirmFundedOrders, type ConfirmDeps } from '../settlement/confirm-funded-orders.ts';
import { STATUS_TRAITS } from '../domain/order-state.ts';
import type { Screening } from '../screening/screening-port.ts';
import type { OrderService } from './order-service.ts';
import { OncePerKey } from '../support/once-per-key.ts';
import { statusRecord } from './order-views.ts';
import { ChainView, type AccountBalance } from '../chain/chain-view.ts';
import { DepositOrigins, type DepositOrigin } from '../chain/deposit-origin.ts';
import { aboveWrappedSolReserve } from '../domain/reserves.ts';
import type { Clock } from '../support/clock.ts';
import type { Random } from '../support/random.ts';
import type { FaultPoints } from '../support/fault-points.ts';

const base58 = getBase58Encoder();
/** The hint's lease: its holder name, and a lease that outlives one confirmation by far (a crash gives the order back soon). */
const HINT_WORKER_ID = 'deposit-hint';
const HINT_LEASE_SECONDS = 10;
/**
 * How long a hint waits for a worker that holds the order before answering 202: the holder confirms it
 * (it reads the same chain) or gives it back, within one batch; half a second was too short for a batch
 * waiting on the planning lock under load (a swap's hint answered 202 in the suite).
 */
const HINT_CLAIM_WAIT_MS = 5000;
const HINT_CLAIM_RETRY_MS = 25;
const HINT_CLAIM_RETRY_MAX_MS = 400;
/** A wrapped-SOL account's lamports, as plain JSON (numbers) or kit (bigints) give them, as its token amount. */
const aboveReserve = (lamports: number | bigint | undefined) => aboveWrappedSolReserve(BigInt(lamports ?? 0));

function requireSignature(s: string): Signature {
  try {
    if (s.length >= 64 && s.length <= 88 && base58.encode(s).length === 64) return s as Signature;
  } catch {
    // fall through
  }
  throw new HushError('INVALID_SIGNATURE', 'signature is not a base58 transaction signature', { field: 'signature' });
}

interface TokenBalance {
  accountIndex: number;
  mint: string;
  owner?: string;
  uiTokenAmount: { amount: string };
}

/** Wallet SOL, not a token: how a stray credit to the deposit owner's own address is named. */
const NATIVE = 'native';

/**
 * POST /deposit: a partner's hint that the deposit was sent. It is checked against the chain, never
 * trusted: 200 when the transaction funded this order's deposit account, 202 while it is not yet visible
 * at `confirmed` or a worker holds the order for more than five seconds (it is then watched), 409 when it exists but did not fund the deposit account.
 */
export class DepositHintService {
  private readonly view: ChainView;
  private readonly origins: DepositOrigins;
  /** Signatures already reported as funds outside a deposit account. */
  private readonly alerted = new OncePerKey();
  /** What the one confirmation (confirmFundedOrders) gets from the hint: its lease holder, screening, the deposits' lookup. */
  private readonly confirming: ConfirmDeps;

  constructor(
    private readonly config: HushConfig,
    private readonly db: Db,
    private readonly chain: SolanaChain,
    private readonly orders: OrderService,
    /** docs/spec.md §12: the deposit is screened as the hint confirms it, as the worker screens its own. */
    screening: Screening,
    private readonly clock: Clock,
    /** A confirmed deposit's payout delay is drawn from it. */
    random: Random,
    /** Where a crash test stops the process (src/support/fault-points.ts). */
    faults: FaultPoints,
    log: (msg: string) => void = () => {},
    /** ALERT records (structured and counted); absent, they are text lines on `log`, counted here. */
    private readonly alert: AlertSink = (kind, _fields, msg) => {
      alertsTotal.inc({ kind });
      log(`ALERT: ${msg}`);
    },
  ) {
    this.view = new ChainView(chain);
    this.origins = new DepositOrigins(() => this.view, clock);
    this.confirming = {
      config,
      db,
      clock,
      random,
      faults,
      workerId: HINT_WORKER_ID,
      leaseSeconds: HINT_LEASE_SECONDS,
      asset: (id) => {
        const a = config.assets.get(id);
        if (!a) throw new Error(`unknown asset ${id}`);
        return a;
      },
      screening,
      log: (fields, msg) => log(fields.err instanceof Error ? `${msg}: ${fields.err.message}` : msg),
      alert: (kind, fields, msg) => this.alert(kind, fields, msg),
      foreign: { origins: this.origins },
    };
  }

  /** `lane`: where its chain reads wait (src/chain/rpc-lane.ts); a request passes its own. */
  async hint(account: AccountRecord, trackingId: string, signatureText: string, lane: LaneContext): Promise<{ status: 200 | 202; body: unknown }> {
    const signature = requireSignature(signatureText);
    let order = await this.orders.get(account, trackingId);
    // A retried hint of the deposit already recorded: the same answer, and no chain read. Read again, the chain
    // could no longer show it as one once the sweep had closed a wrapped-SOL deposit account (a completed SOL
    // order's retry was refused as SOL sent before the account existed).
    if (order.deposit?.signature === signature) return { status: 200, body: { success: true, order: statusRecord(order) } };
    const calls = this.chain.inLane(lane);
    const view = calls === this.chain ? this.view : new ChainView(calls);
    const tx = await readingChain(() => calls.rpc.getTransaction(signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send());
    if (!tx) {
      await addDepositHint(this.db, order.id, signature);
      return { status: 202, body: { success: true, order: statusRecord(order) } };
    }
    if (!tx.meta || tx.meta.err) throw new HushError('DEPOSIT_MISMATCH', 'The transaction failed on chain', { reason: 'transaction_failed' });
    const keys = [...tx.transaction.message.accountKeys, ...(tx.meta.loadedAddresses?.writable ?? []), ...(tx.meta.loadedAddresses?.readonly ?? [])];
    const index = keys.indexOf(order.depositAccount as (typeof keys)[number]);
    const asset = this.config.assets.get(order.sourceAssetId);
    const balance = (list: readonly TokenBalance[] | null | undefined) =>
      BigInt(list?.find((b) => b.accountIndex === index && b.mint === asset?.mint)?.uiTokenAmount.amount ?? '0');
    let received = 0n;
    /** The deposit account at `confirmed`, when already read (wrapped SOL). */
    let known: AccountBalance | undefined;
    if (index >= 0 && asset?.native) {
      // Wrapped SOL counts by lamports above the rent reserve, as the worker reads it: SOL sent without
      // SyncNative funds the account too, though its token balance does not show it. But only once the
      // wrapped-SOL account exists: SOL sent to the bare address is no deposit (it was once recorded as a
      // deposit of 0, failing the order with the SOL left there). Read from the account at `confirmed`:
      // a transaction that names no token program carries no token balances, even into a token account.
      const state = await readingChain(() => view.balances([order.depositAccount], 'confirmed'));
      known = state.get(order.depositAccount);
      const tokenAccount = known?.tokenAmount != null;
      const gained = BigInt(tx.meta.postBalances[index] ?? 0) > BigInt(tx.meta.preBalances[index] ?? 0);
      if (!tokenAccount && gained) {
        throw new HushError(
          'DEPOSIT_MISMATCH',
          "The transaction sent SOL to the deposit address before its wrapped-SOL account existed (the order's own transaction creates it): it is not the deposit. It stays the sender's: if the order's transaction lands later it becomes part of the deposit; otherwise, once the order has expired, it is returned less the network fee when it covers the account's rent",
          { reason: 'no_deposit_account' },
        );
      }
      if (tokenAccount) received = aboveReserve(tx.meta.postBalances[index]) - aboveReserve(tx.meta.preBalances[index]);
    } else if (index >= 0) {
      received = balance(tx.meta.postTokenBalances) - balance(tx.meta.preTokenBalances);
    }
    if (received <= 0n) {
      const stray = strayCredit(tx.meta, keys, order);
      if (!stray) throw new HushError('DEPOSIT_MISMATCH', "The transaction did not fund this order's deposit account", { reason: 'not_this_deposit' });
      // Funds at the deposit owner outside its deposit account: no order counts them and no sweep looks for them.
      const sameMint = stray.mint === asset?.mint;
      // Once per transaction: partners retry hints, and a retry is no new event.
      if (this.alerted.first(signature)) {
        this.alert('stray_funds', { trackingId: order.trackingId, amount: stray.amount, mint: stray.mint, depositOwner: order.depositOwner, signature },
          `funds sent to the deposit owner of ${order.trackingId} outside its deposit account: ${stray.amount} of ${stray.mint} to ${order.depositOwner} by ${signature}; held there until an operator returns them to the sender (npm run admin -- return-stray ${order.trackingId})`);
      }
      throw new HushError(
        'DEPOSIT_MISMATCH',
        sameMint
          ? "The transaction sent funds to another account of this order's deposit address, not to its deposit account: they are not the deposit, and they are not refunded automatically; contact support"
          : "The transaction sent another asset to this order's deposit address: it is not the deposit, and it is not refunded automatically; contact support",
        { reason: sameMint ? 'wrong_account' : 'wrong_asset', mint: stray.mint },
      );
    }
    // Only a transaction the order's sender signed can be its deposit (docs/spec.md §5, "Whose deposit"):
    // anyone can send to the deposit account, whose address is in the unsigned transaction.
    const signers = tx.transaction.message.accountKeys.slice(0, tx.transaction.message.header.numRequiredSignatures) as readonly string[];
    if (!signers.includes(order.sender)) {
      throw new HushError('DEPOSIT_MISMATCH', "The transaction was not signed by the order's sender: what it sent to the deposit account is not the deposit", { reason: 'not_from_sender' });
    }
    // Judged here already: the lookup of the order's own deposit below need not read it again.
    this.origins.judge(signature, { account: order.depositAccount, sender: order.sender, native: asset?.native ?? false }, tx);
    if (STATUS_TRAITS[order.status].awaitsDeposit) {
      // The deposit is what the sender's own transaction put there, exactly as the worker records it: the
      // hinted transaction may be a later top-up, and funds of others in the account are not the deposit.
      const deposit = await readingChain(() => this.depositOnChain(order, view, known));
      // Not visible at `confirmed` yet (or the history lags the account): the watch decides.
      if (!deposit) {
        await addDepositHint(this.db, order.id, signature);
        return { status: 202, body: { success: true, order: statusRecord(order) } };
      }
      const recorded = await this.record(order, deposit);
      order = recorded.order;
      // A worker held it throughout (confirming it, most likely): the hint is kept, the watch decides.
      if (recorded.stillHeld) {
        await addDepositHint(this.db, order.id, signature);
        return { status: 202, body: { success: true, order: statusRecord(order) } };
      }
    }
    return { status: 200, body: { success: true, order: statusRecord(order) } };
  }

  /** The order's own deposit at `confirmed` (the worker's view): its sender's transaction, and what the account holds. */
  private async depositOnChain(order: OrderRecord, view: ChainView<ChainCalls>, known?: AccountBalance): Promise<HintedDeposit | null> {
    const account = order.depositAccount;
    const native = this.config.assets.get(order.sourceAssetId)?.native ?? false;
    const [balance, origins] = await Promise.all([
      known ?? view.balances([account], 'confirmed').then((b) => b.get(account)),
      this.origins.find([{ account, sender: order.sender, native }], view),
    ]);
    const origin = origins.get(account);
    if (!origin || !balance || (balance.tokenAmount ?? 0n) <= 0n) return null;
    return { origin, balance };
  }

  /**
   * Confirms the order's deposit (the hint was read at `confirmed`) through the one entry point the worker
   * uses too (confirmFundedOrders): the same screening, attribution, claim (an order nobody holds), record
   * and payout due time, under the hint's own lease holder; the order goes back to the order loop due now,
   * which pays it when its payout is due. A worker holding the order is waited for a moment (one batch): the
   * order as it is then, and whether that worker still holds it awaiting its deposit.
   */
  private async record(order: OrderRecord, deposit: HintedDeposit): Promise<{ order: OrderRecord; stillHeld: boolean }> {
    const balances = new Map([[order.depositAccount, deposit.balance]]);
    const origins = Promise.resolve(new Map([[order.depositAccount, deposit.origin]]));
    const until = this.clock.now() + HINT_CLAIM_WAIT_MS;
    for (let attempt = 0; ; attempt++) {
      const confirmed = await confirmFundedOrders(this.confirming, [order], balances, origins);
      const now = (await getOrderById(this.db, order.id))!;
      if (confirmed.has(order.id) || !STATUS_TRAITS[now.status].awaitsDeposit) return { order: now, stillHeld: false };
      if (this.clock.now() >= until) return { order: now, stillHeld: true };
      // Doubling from 25 ms to 400 ms: a batch's short hold is waited out at once, a long one (an order loop's
      // batch behind the RPC budget) with a dozen tries, not the two hundred a fixed 25 ms made (three statements
      // each, measured in the simulator).
      await this.clock.sleep(Math.min(HINT_CLAIM_RETRY_MS * 2 ** attempt, HINT_CLAIM_RETRY_MAX_MS));
    }
  }
}

/** The order's own deposit as the hint found it at `confirmed`: its sender's transaction, and the account holding it. */
interface HintedDeposit {
  origin: DepositOrigin;
  balance: AccountBalance;
}

/**
 * A credit this transaction made to the order's deposit owner other than its deposit: any other token
 * account owned by it (another mint, or a second account of the deposit's mint), or lamports to the owner's
 * own address.
 */
function strayCredit(
  meta: { preBalances: readonly (number | bigint)[]; postBalances: readonly (number | bigint)[]; preTokenBalances?: readonly TokenBalance[] | null; postTokenBalances?: readonly TokenBalance[] | null },
  keys: readonly string[],
  order: OrderRecord,
): { mint: string; amount: bigint } | null {
  for (const post of meta.postTokenBalances ?? []) {
    if (post.owner !== order.depositOwner || keys[post.accountIndex] === order.depositAccount) continue;
    const pre = meta.preTokenBalances?.find((b) => b.accountIndex === post.accountIndex)?.uiTokenAmount.amount ?? '0';
    const amount = BigInt(post.uiTokenAmount.amount) - BigInt(pre);
    // Any other token account of the owner: another mint, or the deposit's own mint outside the deposit account.
    if (amount > 0n) return { mint: post.mint, amount };
  }
  const owner = keys.indexOf(order.depositOwner);
  if (owner >= 0) {
    const amount = BigInt(meta.postBalances[owner] ?? 0) - BigInt(meta.preBalances[owner] ?? 0);
    if (amount > 0n) return { mint: NATIVE, amount };
  }
  return null;
}
