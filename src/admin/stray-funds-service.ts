import type { Address } from '@solana/kit';
import type { HushConfig } from '../config/config.ts';
import { associatedTokenAddress } from '../domain/associated-token-address.ts';
import { buildStrayReturn, txShape, type StrayHolding, type TxShape } from '../chain/hush-transactions.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import { HushError } from '../domain/errors.ts';
import { readingChain } from '../domain/chain-unavailable.ts';
import { networkCostMovement } from '../ledger/network-cost.ts';
import type { Db } from '../store/db.ts';
import { getOrderByTrackingId, type OrderRecord } from '../store/orders-store.ts';
import { chainTxsOfOrder } from '../store/settlement/chain-txs-of-orders.ts';
import { insertChainTx } from '../store/settlement/insert-chain-tx.ts';
import { recordMovements } from '../store/settlement/record-movements.ts';
import { settleChainTx } from '../store/settlement/settle-chain-txs.ts';
import type { Treasury } from '../treasury/treasury.ts';
import { ChainView, TOKEN_PROGRAMS } from '../chain/chain-view.ts';
import { asWireTransaction } from '../chain/base64-wire.ts';
import { settledFate, txFate } from '../domain/settlement/tx-fate.ts';
import type { Clock } from '../support/clock.ts';
import { StrayReturnPrice } from './stray-return-price.ts';
import { sealRecord } from '../treasury/record-cipher.ts';
import type { Random } from '../support/random.ts';

/** How long a return waits for its transactions to confirm before reporting them as sent. */
const CONFIRM_WAIT_MS = 15_000;

export interface StrayReturnLine {
  /** The account that held the funds: a token account of the deposit owner, or the owner's own address. */
  account: string;
  /** The token's mint, or `native` for SOL held by the owner's own address. */
  mint: string;
  /**
   * Base units that left the account (for wrapped SOL and `native`, every lamport of it). A Token-2022
   * mint with a transfer fee withholds its fee from what the sender receives.
   */
  amount: string;
  /** confirmed / failed on chain; sent: not confirmed yet (the worker keeps resending it); in_flight: an earlier return of this account is pending; skipped: not returnable, see reason. */
  status: 'confirmed' | 'failed' | 'sent' | 'in_flight' | 'skipped';
  signature?: string;
  reason?: string;
}

export interface StrayReturnReport {
  trackingId: string;
  depositOwner: string;
  /** Where the funds go: the order's sender. */
  to: string;
  returns: StrayReturnLine[];
}

interface ParsedTokenAccount {
  mint: string;
  owner: string;
  state: string;
  isNative: boolean;
  closeAuthority?: string;
  tokenAmount: { amount: string; decimals: number };
}

/**
 * Funds sent to an order's deposit owner outside its deposit account — another mint, a second account of
 * the deposit's mint, or SOL to the owner's own address (the deposit hint's wrong_asset / wrong_account):
 * no order counts them and no sweep looks for them. This gives them back to the order's sender, one
 * transaction per holding account, each simulated first and recorded (kind stray_return) before it is
 * sent, so the worker resends it and books its network cost like any Hush transaction. The funds never
 * entered the ledger, so they leave it untouched; the fee payer's fee and any rent it pays or recoups are
 * booked. Empty token accounts are closed too, their rent to the sender.
 */
export class StrayFundsService {
  private readonly view: ChainView;
  private readonly prices: StrayReturnPrice;
  /** Runs for the same order in this process, one after the other: the second finds what the first left. */
  private readonly running = new Map<string, Promise<unknown>>();

  constructor(
    private readonly config: HushConfig,
    private readonly db: Db,
    private readonly chain: SolanaChain,
    private readonly treasury: Treasury,
    private readonly log: (msg: string) => void,
    private readonly clock: Clock,
    /** Seals each return's record (chain-record.ts). */
    private readonly random: Random,
  ) {
    this.view = new ChainView(chain);
    this.prices = new StrayReturnPrice(chain, config, clock, treasury.feePayer.address);
  }

  async returnStray(trackingId: string): Promise<StrayReturnReport> {
    const order = await getOrderByTrackingId(this.db, trackingId);
    if (!order) throw new HushError('NOT_FOUND', `No order ${trackingId}`);
    const previous = this.running.get(order.id) ?? Promise.resolve();
    const run = previous.catch(() => {}).then(() => this.run(order));
    this.running.set(order.id, run);
    try {
      return await run;
    } finally {
      if (this.running.get(order.id) === run) this.running.delete(order.id);
    }
  }

  private async run(order: OrderRecord): Promise<StrayReturnReport> {
    const owner = await this.treasury.depositSigner(order.trackingId, order.depositOwner);
    // A different treasury seed than the one that made the order could sign nothing here.
    if (owner.address !== order.depositOwner) throw new HushError('SERVICE_UNAVAILABLE', "This treasury seed did not derive the order's deposit owner");
    const to = order.sender;
    const report: StrayReturnReport = { trackingId: order.trackingId, depositOwner: order.depositOwner, to, returns: [] };
    const inFlight = await readingChain(() => this.settleLandedReturns(order));
    const holdings = await readingChain(() => this.strayHoldings(order));
    for (const { holding, skip } of holdings) {
      const line: StrayReturnLine = { account: holding.account, mint: holding.kind === 'lamports' ? 'native' : holding.mint, amount: holding.amount.toString(), status: 'skipped' };
      report.returns.push(line);
      if (inFlight.has(holding.account)) {
        line.status = 'in_flight';
        line.reason = 'an earlier return of this account is still pending';
      } else if (skip) {
        line.reason = skip;
      } else {
        await this.returnOne(order, owner, holding, to, line).catch((e: unknown) => {
          line.status = 'skipped';
          line.reason = `the chain did not answer (${(e as Error).message}); run return-stray again`;
        });
      }
    }
    await this.awaitConfirmation(report.returns);
    return report;
  }

  private async returnOne(order: OrderRecord, owner: Awaited<ReturnType<Treasury['depositSigner']>>, holding: StrayHolding, to: Address, line: StrayReturnLine): Promise<void> {
    const createRecipientAccount = holding.kind === 'token' && !holding.native && holding.amount > 0n && !(await this.exists(associatedTokenAddress(to, holding.mint, holding.tokenProgram)));
    const [blockhash, price] = await Promise.all([this.chain.latestBlockhash(), this.prices.price()]);
    const signed = await buildStrayReturn(this.shape(blockhash, price, order.trackingId), owner, holding, to, createRecipientAccount);
    const simulated = await this.chain.rpc.simulateTransaction(asWireTransaction(signed.wire), { encoding: 'base64', commitment: 'confirmed', sigVerify: false }).send();
    if (simulated.value.err) {
      line.reason = `the chain refuses the transfer: ${JSON.stringify(simulated.value.err, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`;
      return;
    }
    const id = await insertChainTx(this.db, {
      kind: 'stray_return',
      orderId: order.id,
      assetId: this.assetIdOf(line.mint),
      amount: holding.amount,
      source: holding.account,
      destination: to,
      signature: signed.signature,
      wire: signed.wire,
      lastValidBlockHeight: signed.lastValidBlockHeight,
      meta: { mint: line.mint },
    });
    if (id === null) {
      line.status = 'in_flight';
      line.reason = 'an earlier return of this account is still pending';
      return;
    }
    line.status = 'sent';
    line.signature = signed.signature;
    this.log(`stray funds of ${order.trackingId}: returning ${line.amount} of ${line.mint} from ${line.account} to ${to} (${signed.signature})`);
    // Recorded first: a failed send is resent by the worker while the blockhash lives.
    await this.view.send(signed.wire).catch(() => {});
  }

  /**
   * Settles this order's earlier returns that have landed or can no longer land, as the worker would
   * (compare-and-set, so racing it is harmless): with Hush stopped (the CLI's direct mode) nothing else
   * would, and a pending row holds its account back. Returns the accounts whose return is still pending.
   */
  private async settleLandedReturns(order: OrderRecord): Promise<Set<string>> {
    const pending = (await chainTxsOfOrder(this.db, order.id, 'stray_return')).filter((t) => t.status === 'pending');
    const still = new Set<string>();
    if (pending.length === 0) return still;
    const [statuses, finalizedHeight] = await Promise.all([this.view.statuses(pending.map((t) => t.signature)), this.view.blockHeight('finalized')]);
    for (const [i, t] of pending.entries()) {
      // The worker's rule; a return is never resent from here (the worker resends it), so no resend time.
      const fate = txFate({ status: statuses[i], finalizedHeight, lastValidBlockHeight: t.lastValidBlockHeight, msSinceSent: 0, resendEveryMs: Infinity });
      if (fate === 'expired' && (await settleChainTx(this.db, t.id, 'expired', null))) continue;
      const costs = fate === 'landed' || fate === 'failed' ? await this.view.costs(t.signature) : null;
      if (!costs) {
        still.add(t.source);
        continue;
      }
      await this.db.transaction(async (tx) => {
        if (!(await settleChainTx(tx, t.id, fate === 'landed' ? 'confirmed' : 'failed', costs.fee, fate === 'landed' ? this.clock.date().toISOString() : undefined))) return;
        await recordMovements(tx, [networkCostMovement(t.signature, costs.feePayer, costs)]);
      });
    }
    return still;
  }

  /** Every holding of the deposit owner but its deposit account, with the reason when it cannot be returned. */
  private async strayHoldings(order: OrderRecord): Promise<{ holding: StrayHolding; skip?: string }[]> {
    const owner = order.depositOwner;
    const [lamports, ...byProgram] = await Promise.all([
      this.chain.rpc.getBalance(owner, { commitment: 'confirmed' }).send(),
      ...TOKEN_PROGRAMS.map((programId) => this.chain.rpc.getTokenAccountsByOwner(owner, { programId }, { commitment: 'confirmed', encoding: 'jsonParsed' }).send()),
    ]);
    const out: { holding: StrayHolding; skip?: string }[] = [];
    for (const [i, list] of byProgram.entries()) {
      for (const { pubkey, account } of list.value) {
        if (pubkey === order.depositAccount) continue;
        const info = (account.data as unknown as { parsed: { info: ParsedTokenAccount } }).parsed.info;
        const amount = info.isNative ? BigInt(account.lamports) : BigInt(info.tokenAmount.amount);
        const closable = info.closeAuthority === undefined || info.closeAuthority === owner;
        const holding: StrayHolding = {
          kind: 'token',
          account: pubkey,
          mint: info.mint as Address,
          tokenProgram: TOKEN_PROGRAMS[i]!,
          amount,
          decimals: info.tokenAmount.decimals,
          native: info.isNative,
          closable,
        };
        const skip =
          info.state === 'frozen'
            ? 'the token account is frozen by its mint'
            : !closable && (info.isNative || amount === 0n)
              ? 'its close authority is not the deposit owner'
              : undefined;
        out.push(skip ? { holding, skip } : { holding });
      }
    }
    if (lamports.value > 0n) out.push({ holding: { kind: 'lamports', account: owner, amount: lamports.value } });
    return out;
  }

  private async exists(address: Address): Promise<boolean> {
    const { value } = await this.chain.rpc.getAccountInfo(address, { commitment: 'confirmed', encoding: 'base64' }).send();
    return value !== null;
  }

  private async awaitConfirmation(lines: StrayReturnLine[]): Promise<void> {
    const until = this.clock.now() + CONFIRM_WAIT_MS;
    for (;;) {
      const sent = lines.filter((l) => l.status === 'sent');
      if (sent.length === 0 || this.clock.now() > until) return;
      const statuses = await this.view.statuses(sent.map((l) => l.signature!)).catch(() => []);
      for (const [i, st] of statuses.entries()) {
        const settled = settledFate(st);
        if (settled) sent[i]!.status = settled === 'landed' ? 'confirmed' : 'failed';
      }
      await this.clock.sleep(250);
    }
  }

  private assetIdOf(mint: string): string {
    if (mint === 'native') return this.config.assets.list.find((a) => a.native)!.assetId;
    return this.config.assets.byMint(mint)?.assetId ?? mint;
  }

  private shape(blockhash: { blockhash: string; lastValidBlockHeight: bigint }, computeUnitPriceMicroLamports: bigint, trackingId: string): TxShape {
    const shape = txShape(this.treasury.feePayer, { computeUnitLimit: this.config.computeUnitLimit, computeUnitPriceMicroLamports }, blockhash);
    return { ...shape, memo: sealRecord(this.treasury.keys.recordKey, { kind: 'stray_return', trackingId, part: 0 }, this.random) };
  }
}
