import type { Address } from '@solana/kit';
import { depositAccountOf } from '../../chain/deposit-transaction.ts';
import { historySince, readTransactions, tokenDelta, tokenOwner, type ReadTransaction } from '../../chain/hush-history.ts';
import type { ChainRecord } from '../../domain/chain-record.ts';
import { getAccount } from '../../store/accounts-store.ts';
import { getOrderByTrackingId, insertOrder, type NewOrder, type OrderRecord } from '../../store/orders-store.ts';
import { ensureRecoveredAccount } from '../../store/chain-truth-store.ts';
import type { SettlementContext } from '../context.ts';
import type { TreasuryKeys } from '../../treasury/treasury-keys.ts';

/** What a rebuilt order's quote says: no quote survives a lost store; its terms are the chain's. */
export const RECOVERED_QUOTE = Object.freeze({ recovered: true, privacy: { standard: false } });

type RebuildDeps = Pick<SettlementContext, 'db' | 'view' | 'treasury' | 'config' | 'clock' | 'log'>;

/**
 * An order the store forgot, rebuilt from its payout's or refund's record and the chain (docs/decisions.md "What
 * the chain gives back"): its deposit account is derived from the seed and its tracking id, the deposit read from
 * that account's history (its sender, amount, blockhash, time), the payout's recipient and amount from the payout.
 * It is born as every order is (awaiting its deposit, the only status an order is created in), then adopted like
 * any other: confirmed from the chain, its payout or refund the one the chain shows. Its fees are not on chain: a
 * same-asset order's whole difference is booked as the service fee. Null when the record lacks its terms or the
 * chain shows no deposit.
 */
export async function rebuildOrder(ctx: RebuildDeps, record: ChainRecord, tx: ReadTransaction, poolHoldings: ReadonlySet<string>, keys: TreasuryKeys = ctx.treasury.keys): Promise<OrderRecord | null> {
  const { accountId, mode, sourceAssetId, destinationAssetId } = record;
  if (!accountId || !mode || !sourceAssetId || !destinationAssetId) return null;
  const source = ctx.config.assets.get(sourceAssetId);
  const destination = ctx.config.assets.get(destinationAssetId);
  if (!source || !destination) return null;
  // The seed that sealed the record derived the order's deposit owner (a retired one's, for an order before a rotation).
  const depositOwner = keys.depositOwnerAddress(record.trackingId);
  const { depositAccount } = depositAccountOf(depositOwner, source.mint, source.tokenProgram);
  const deposit = await depositOf(ctx, depositAccount);
  if (!deposit) return null;
  const out = tx.transfers.filter((t) => poolHoldings.has(t.source));
  const moved = out.reduce((s, t) => s + t.amount, 0n);
  const sender = deposit.tx.signers[0]! as Address;
  // A payout's recipient: the wallet paid (SOL), or the owner of the token account paid.
  const paidTo = out[0] ? (destination.native || record.kind === 'refund' ? out[0].destination : tokenOwner(tx, out[0].destination)) : undefined;
  const recipient = (record.kind === 'payout' ? paidTo : sender) as Address | undefined;
  if (!recipient || moved <= 0n) return null;
  const amountOut = record.kind === 'payout' ? moved : deposit.amount;
  const created = await insertRecoveredOrder(ctx, deposit, {
    trackingId: record.trackingId,
    accountId,
    quote: RECOVERED_QUOTE,
    sourceAssetId,
    destinationAssetId,
    mode,
    amountOut,
    // A refund returned the deposit less the network fee; a same-asset payout, the deposit less every fee (booked as
    // the service fee: the split is not on chain).
    serviceFee: record.kind === 'payout' && sourceAssetId === destinationAssetId && deposit.amount > amountOut ? deposit.amount - amountOut : 0n,
    networkFee: record.kind === 'refund' && deposit.amount > moved ? deposit.amount - moved : 0n,
    sender,
    recipient,
    depositOwner,
    depositAccount,
  });
  if (!created) return null;
  ctx.log({ trackingId: record.trackingId, accountId, status: record.kind }, 'an order the store forgot was rebuilt from the chain');
  return getOrderByTrackingId(ctx.db, record.trackingId);
}

/** A rebuilt order's own terms; the rest is the chain's or none (no partner fee, no fee recipient: not on chain). */
export type RecoveredTerms = Pick<NewOrder, 'trackingId' | 'accountId' | 'quote' | 'sourceAssetId' | 'destinationAssetId' | 'mode' | 'amountOut' | 'serviceFee' | 'networkFee' | 'sender' | 'recipient' | 'depositOwner' | 'depositAccount'>;

/**
 * Inserts a rebuilt order (born awaiting its deposit, as every order is), dated by its deposit, under an account the
 * store may have lost too. True when this call created it.
 */
export async function insertRecoveredOrder(ctx: Pick<RebuildDeps, 'db' | 'clock'>, deposit: { tx: ReadTransaction; amount: bigint }, terms: RecoveredTerms): Promise<boolean> {
  if (!(await getAccount(ctx.db, terms.accountId))) await ensureRecoveredAccount(ctx.db, terms.accountId);
  const createdAt = deposit.tx.blockTime === null ? ctx.clock.date() : new Date(deposit.tx.blockTime * 1000);
  const key = `recovered:${terms.trackingId}`;
  const inserted = await insertOrder(
    ctx.db,
    {
      ...terms,
      quoteKey: key,
      amountIn: deposit.amount,
      partnerFee: 0n,
      feeBps: 0,
      feeRecipient: null,
      expiration: createdAt,
      txBlockhash: deposit.tx.blockhash,
      txLastValidBlockHeight: 0n,
      txExpiresAtSlot: deposit.tx.slot,
      createdAt,
    },
    { key, responseStatus: 0, responseBody: null },
  );
  return inserted.kind === 'created';
}

/** The deposit account's first successful transaction that credited it, and what it put there. */
export async function depositOf(ctx: Pick<SettlementContext, 'view'>, account: Address): Promise<{ tx: ReadTransaction; amount: bigint } | null> {
  const history = (await historySince(ctx.view, account, null)).filter((h) => h.err === null).slice(0, 8);
  for (const tx of await readTransactions(ctx.view, history.map((h) => h.signature))) {
    const amount = tokenDelta(tx, account);
    if (amount > 0n) return { tx, amount };
  }
  return null;
}
