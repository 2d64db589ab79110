import { DEPOSIT_ACCOUNT_RENT } from '../src/domain/network-cost.ts';
import type { Db } from '../src/store/db.ts';
import type { ChainUsers } from './chain-users.ts';
import type { StatusRecord } from './final-statuses.ts';
import { InvariantBroken, type OrderTruth } from './users.ts';

/** An order's fee lines in the books, summed by the account they credit or debit (movement `fees:<trackingId>`). */
interface FeeLines {
  service: bigint;
  partner: bigint;
  network: bigint;
  retained: bigint;
}

async function feeLines(db: Db, ids: string[]): Promise<Map<string, FeeLines>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ movement: string; service: string; partner: string; network: string; retained: string }>(
    `SELECT movement,
            coalesce(sum(amount) FILTER (WHERE account = 'income:service'), 0)::text AS service,
            coalesce(sum(amount) FILTER (WHERE account LIKE 'payable:partner:%'), 0)::text AS partner,
            coalesce(sum(amount) FILTER (WHERE account = 'income:network_fee'), 0)::text AS network,
            coalesce(sum(amount) FILTER (WHERE account = 'custody:retained'), 0)::text AS retained
       FROM ledger_entries WHERE movement = ANY($1::text[]) GROUP BY movement`,
    [ids.map((id) => `fees:${id}`)],
  );
  return new Map(rows.map((r) => [r.movement.slice('fees:'.length), { service: BigInt(r.service), partner: BigInt(r.partner), network: BigInt(r.network), retained: BigInt(r.retained) }]));
}

/**
 * The books, shadowed from the outside (issue 86): what each ended order's fee lines must say follows from the
 * quote the partner was given and what the chain shows its users got, never from Hush's own order record. An
 * income is a credit (a negative line), and:
 * - a completed order books the quote's service and partner fees, and its network fee less what its recipient got
 *   above the quote's amountOut (a release's one amount, docs/spec.md §4), and retains their sum in custody;
 * - a refunded order books as network fee income exactly what it kept of the deposit (the deposit less what its
 *   sender got back; a SOL sender also gets the deposit account's rent back, which Hush never booked as income).
 * Orders a restored or lost store forgot are left out: a rebuilt order carries what its record says, not its quote.
 */
export async function checkBooks(db: Db, chain: ChainUsers, truths: readonly OrderTruth[], forgotten: (t: OrderTruth) => boolean): Promise<number> {
  const ended = truths.filter((t) => t.trackingId !== null && ['completed', 'refunded'].includes(t.last?.status) && !forgotten(t));
  const lines = await feeLines(db, ended.map((t) => t.trackingId!));
  let checked = 0;
  for (const t of ended) {
    const got = lines.get(t.trackingId!) ?? { service: 0n, partner: 0n, network: 0n, retained: 0n };
    const say = (what: string) => new InvariantBroken('the books are the shadow\'s', `${t.trackingId} (${t.last.status}, session #${t.session.id}): ${what}; its fee lines ${JSON.stringify(got, (_k, v) => (typeof v === 'bigint' ? v.toString() : v))}`);
    if (got.service > 0n || got.partner > 0n || got.network > 0n) throw say('an income is booked as a debit');
    if (got.retained !== -(got.service + got.partner + got.network)) throw say('custody retains other than the fees booked');
    if (t.last.status === 'completed') {
      const fees = t.quote.feeBreakdown as { serviceFee: string; partnerFee: string; networkFee: string };
      const received = await chain.holding(t.recipient, t.session.destination);
      const above = t.session.source === t.session.destination && received > BigInt(t.quote.amountOut) ? received - BigInt(t.quote.amountOut) : 0n;
      const want = { service: -BigInt(fees.serviceFee), partner: -BigInt(fees.partnerFee), network: -(BigInt(fees.networkFee) - above) };
      if (got.service !== want.service || got.partner !== want.partner || got.network !== want.network) {
        throw say(`the quote's fees are service ${fees.serviceFee}, partner ${fees.partnerFee}, network ${fees.networkFee} (its recipient got ${above} above amountOut)`);
      }
    } else if (t.senderAfterDeposit !== null && t.lateFunds === 0n && t.deposited > 0n) {
      const back = (await chain.holding(t.sender.address, t.session.source)) - t.senderAfterDeposit;
      // Kept: the deposit less the refund; a SOL sender's `back` may also hold the deposit account's rent.
      const keptMost = t.deposited - back + (t.session.source === 'sol' ? DEPOSIT_ACCOUNT_RENT : 0n);
      const keptLeast = t.deposited - back;
      const kept = -got.network;
      if (got.service !== 0n || got.partner !== 0n) throw say('a refund booked a service or partner fee');
      if (kept < keptLeast || kept > keptMost) throw say(`deposited ${t.deposited}, its sender got back ${back}: Hush kept ${keptLeast === keptMost ? keptLeast : `${keptLeast}..${keptMost}`}`);
    }
    checked++;
  }
  return checked;
}

/** What each partner earned in each asset: the quotes' partnerFee of its orders that completed (status read afresh at the end). */
function partnerEarnings(truths: readonly OrderTruth[], statusOf: (t: OrderTruth) => StatusRecord | null): Map<string, bigint> {
  const earned = new Map<string, bigint>();
  for (const t of truths) {
    const fee = BigInt((t.quote?.feeBreakdown as { partnerFee?: string } | undefined)?.partnerFee ?? '0');
    if (fee === 0n || statusOf(t)?.status !== 'completed') continue;
    const key = `${t.session.partner} ${t.session.source}`;
    earned.set(key, (earned.get(key) ?? 0n) + fee);
  }
  return earned;
}

/**
 * A partner is paid at most the fees its completed orders earned it, in each asset (issue 86): what its fee
 * recipient holds on chain against the quotes' partnerFee of its orders that completed, by each order's status read
 * afresh once every order has ended (`statusOf`: a user may have stopped reading before its order ended).
 */
export async function checkPartnerFees(chain: ChainUsers, truths: readonly OrderTruth[], feeRecipients: readonly string[], statusOf: (t: OrderTruth) => StatusRecord | null): Promise<void> {
  const earned = partnerEarnings(truths, statusOf);
  for (const [partner, feeRecipient] of feeRecipients.entries()) {
    for (const asset of ['sol', 'usdc'] as const) {
      const owed = earned.get(`${partner} ${asset}`) ?? 0n;
      const held = await chain.holding(feeRecipient, asset);
      if (held > owed) throw new InvariantBroken('a partner is paid at most its fees', `partner ${partner}'s fee recipient ${feeRecipient} holds ${held} ${asset}; its completed orders earned it ${owed}`);
    }
  }
}

/**
 * What Hush owes each partner, an internal account, is the shadow's figure (issue 86): its `payable:partner:<account>:
 * <fee recipient>` balance in each asset is minus what the partner's completed orders earned (their quotes' partnerFee)
 * plus what its fee recipient received on chain. Read when no partner payout is in flight (one sent and not yet booked
 * is on the chain before the books); a run whose store went back in time is left out (a rebuilt order books its record's fees).
 */
export async function checkPartnerPayables(
  db: Db,
  chain: ChainUsers,
  truths: readonly OrderTruth[],
  partners: readonly { accountId: string; feeRecipient: string }[],
  statusOf: (t: OrderTruth) => StatusRecord | null,
): Promise<number> {
  const inFlight = await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM chain_txs WHERE kind = 'partner_payout' AND status = 'pending'`);
  if ((inFlight.rows[0]?.n ?? 0) > 0) return 0;
  const earned = partnerEarnings(truths, statusOf);
  let checked = 0;
  for (const [partner, p] of partners.entries()) {
    for (const asset of ['sol', 'usdc'] as const) {
      const { rows } = await db.query<{ balance: string }>(`SELECT coalesce(sum(amount), 0)::text AS balance FROM ledger_entries WHERE account = $1 AND asset_id = $2`, [`payable:partner:${p.accountId}:${p.feeRecipient}`, asset]);
      const booked = BigInt(rows[0]!.balance);
      const want = -(earned.get(`${partner} ${asset}`) ?? 0n) + (await chain.holding(p.feeRecipient, asset));
      if (booked !== want) {
        throw new InvariantBroken('the books are the shadow\'s', `partner ${partner} (${p.accountId}) is owed ${-booked} ${asset} in the books; its completed orders earned ${earned.get(`${partner} ${asset}`) ?? 0n} and its fee recipient received ${want + (earned.get(`${partner} ${asset}`) ?? 0n)}`);
      }
      checked++;
    }
  }
  return checked;
}
