import type { Address } from '@solana/kit';
import { associatedTokenAddress } from '../src/domain/associated-token-address.ts';
import { burstSpanSlots, landedBurstSizes } from '../src/domain/landed-bursts.ts';
import { DEPOSIT_ACCOUNT_RENT } from '../src/domain/network-cost.ts';
import type { Db } from '../src/store/db.ts';
import { MINTS, TOKEN_PROGRAM, type ChainUsers } from './chain-users.ts';
import { InvariantBroken, type OrderTruth } from './users.ts';

const FINAL = new Set(['completed', 'refunded', 'expired', 'failed', 'frozen']);

/** The counts every run prints: what was checked, and how often the quotes' promises were kept. */
export interface Tallies {
  checks: number;
  reconciles: number;
  ordersChecked: number;
  /** Standard orders completed, and those whose releasedWith reached the quote's anonymitySet (the 4-in-5 promise). */
  promisedSets: { orders: number; kept: number };
  /** Standard orders released, and those whose heldSeconds stayed within the quote's delaySeconds. */
  promisedWaits: { orders: number; kept: number };
  /** Receipts checked against the chain's bursts; those below what the chain shows (allowed: never above). */
  receipts: { checked: number; below: number };
  /** Payouts and refunds checked for a screening decision logged before them. */
  screenedFlows: number;
  /** Ended orders whose fee lines were checked against the books' shadow (book-invariants.ts). */
  booked: number;
}

export function emptyTallies(): Tallies {
  return { checks: 0, reconciles: 0, ordersChecked: 0, promisedSets: { orders: 0, kept: 0 }, promisedWaits: { orders: 0, kept: 0 }, receipts: { checked: 0, below: 0 }, screenedFlows: 0, booked: 0 };
}

interface StoreOrder {
  status: string;
  network_fee: string;
  amount_out: string;
  /** Its scheduling, for a report: due times, lease, release. */
  state: string;
}

async function storeOrders(db: Db, ids: string[]): Promise<Map<string, StoreOrder>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<StoreOrder & { tracking_id: string }>(
    `SELECT tracking_id, status, coalesce(quote ->> 'networkFee', network_fee::text) AS network_fee, amount_out::text AS amount_out,
            json_build_object('payoutDueAt', payout_due_at, 'nextRunAt', next_run_at, 'lockedBy', locked_by, 'lockedUntil', locked_until, 'attempts', attempts,
              'classReleasedAt', class_released_at, 'releaseSize', class_release_size, 'failureReason', failure_reason)::text AS state
       FROM orders WHERE tracking_id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.tracking_id, r]));
}

/** A destination holding: SOL in the wallet itself, a token in the owner's associated account. */
function holdingAddress(owner: string, asset: 'sol' | 'usdc'): string {
  return asset === 'sol' ? owner : associatedTokenAddress(owner as Address, MINTS.usdc as Address, TOKEN_PROGRAM);
}

/**
 * Money, from the chain's side: each recipient (a fresh wallet) holds nothing or exactly its amountOut, and
 * only once Hush says it paid; each sender got back at most its refund, and all of it once refunded. `final`:
 * the run has ended and drained, so every order must have ended, or be held for an operator.
 */
export async function checkMoney(
  db: Db,
  chain: ChainUsers,
  truths: readonly OrderTruth[],
  final: boolean,
  tallies: Tallies,
  forgotten: (t: OrderTruth) => boolean = () => false,
  /** A forgotten order whose deposit identity the restored store held: its deposit must be found. */
  handedBack: (t: OrderTruth) => boolean = () => false,
): Promise<void> {
  // Mid-run, an order already seen final with its money where it belongs is not read again (every order every
  // minute made the checks grow with the square of the run); the final check reads them all.
  const placed = truths.filter((t) => t.trackingId !== null && (final || !t.settled));
  // The chain is read before the store: the clock runs while a check reads, and Hush records a payout before it
  // sends it, so a store read after the chain's is never older than what the chain shows (the other order
  // saw a payout land between the two reads and called it unrecorded).
  const receivedBy = new Map<OrderTruth, bigint>();
  const senderNow = new Map<OrderTruth, bigint>();
  for (const t of placed) {
    receivedBy.set(t, await chain.holding(t.recipient, t.session.destination));
    if (t.senderAfterDeposit !== null) senderNow.set(t, await chain.holding(t.sender.address, t.session.source));
  }
  const store = await storeOrders(db, placed.map((t) => t.trackingId!));
  for (const t of placed) {
    const o = store.get(t.trackingId!);
    // The quote is the contract (written from what the partner was told, not from Hush's order): the order names its
    // amounts, and the recipient is held to them.
    const amountOut = BigInt(t.quote.amountOut);
    if (BigInt(t.order.amountOut) !== amountOut || BigInt(t.order.amountIn) !== BigInt(t.quote.amountIn)) {
      throw new InvariantBroken('the quote is the contract', `${t.trackingId} (session #${t.session.id}): the order says ${t.order.amountIn} in, ${t.order.amountOut} out; its quote ${t.quote.amountIn} in, ${t.quote.amountOut} out`);
    }
    const received = receivedBy.get(t)!;
    // A deposit of any other amount than the quote's amountIn is refunded, never paid (docs/spec.md §5).
    if (received > 0n && t.deposited > 0n && t.deposited !== BigInt(t.quote.amountIn)) {
      throw new InvariantBroken('a wrong deposit is refunded', `${t.trackingId} (session #${t.session.id}): deposited ${t.deposited} of ${t.quote.amountIn}, and its recipient holds ${received}`);
    }
    if (!o && forgotten(t)) {
      // A store that went back forgot it, and Hush has not rebuilt it. What the chain shows still holds: its recipient
      // has nothing or exactly its amountOut, never more.
      if (received !== 0n && received !== amountOut) throw new InvariantBroken('paid exactly once', `${t.trackingId} (forgotten by a restored store): its recipient holds ${received}, amountOut is ${amountOut}`);
      // At the end, one the chain leads to is back: paid (its payout's record), or, deposited with Hush's own transaction
      // (which carries its record; a user's own transfer does not), its deposit swept (its account closed) or its
      // identity handed back by the restore. Only a deposit nothing of Hush's names may stay unfound (docs/spec.md §10).
      const recorded = t.session.deposit === 'exact' && t.depositAccount !== null;
      if (final && t.deposited > 0n && (received > 0n || (recorded && (handedBack(t) || (await chain.lamports(t.depositAccount!)) === 0n)))) {
        throw new InvariantBroken('orders come back from the chain', `${t.trackingId} (forgotten by the store): its deposit is ${received > 0n ? 'paid out' : handedBack(t) ? 'in an identity the restore handed back' : 'swept'} on chain, and the order was not rebuilt`);
      }
      continue;
    }
    if (!o) throw new InvariantBroken('orders are kept', `${t.trackingId} (session #${t.session.id}) was answered 200 and is not in the store`);
    if (received !== 0n && received !== amountOut) {
      throw new InvariantBroken('paid exactly once', `${t.trackingId} (session #${t.session.id}): its recipient holds ${received}, amountOut is ${amountOut}`);
    }
    if (received === amountOut && !['sending', 'completed'].includes(o.status)) {
      throw new InvariantBroken('paid exactly once', `${t.trackingId}: its recipient was paid ${received} and the order is ${o.status}`);
    }
    if (t.senderAfterDeposit !== null) {
      const back = (senderNow.get(t) ?? (await chain.holding(t.sender.address, t.session.source))) - t.senderAfterDeposit;
      const networkFee = BigInt(o.network_fee);
      const refundable = (x: bigint) => (x > networkFee ? x - networkFee : 0n);
      // A refund of the order's own deposit also returns the deposit account's rent, in SOL: for a SOL sender, its holding.
      const rentBack = t.session.source === 'sol' && refundable(t.deposited) > 0n ? DEPOSIT_ACCOUNT_RENT : 0n;
      const most = refundable(t.deposited) + rentBack + refundable(t.lateFunds);
      if (back > most) throw new InvariantBroken('refunded at most once', `${t.trackingId}: its sender got back ${back}, at most ${most} is owed (deposit ${t.deposited}, late ${t.lateFunds})`);
      // An order pays its recipient or refunds its sender, never both: paid, only late funds may come back.
      if (received === amountOut && back > refundable(t.lateFunds)) {
        throw new InvariantBroken('paid or refunded, never both', `${t.trackingId}: its recipient was paid ${received} and its sender got back ${back} (late funds ${t.lateFunds})`);
      }
      if (final && o.status === 'refunded' && back < refundable(t.deposited)) {
        throw new InvariantBroken('refunds arrive', `${t.trackingId} is refunded and its sender got back ${back} of ${refundable(t.deposited)}`);
      }
    }
    if (final) {
      if (!FINAL.has(o.status) && o.status !== 'held') {
        throw new InvariantBroken('every order ends', `${t.trackingId} (session #${t.session.id}) is still ${o.status} after the run drained: ${o.state}`);
      }
      if (o.status === 'completed' && received !== amountOut) throw new InvariantBroken('paid exactly once', `${t.trackingId} is completed and its recipient holds ${received} of ${amountOut}`);
    }
    if (FINAL.has(o.status) && t.senderAfterDeposit !== null && !t.session.lateFunds) t.settled = true;
    tallies.ordersChecked++;
  }
}

/**
 * Screening: every payout, refund and late refund Hush recorded has a screening decision of its stage in the
 * log for its order, written before the transaction was; and no deposit held by a screening (a blocked answer,
 * or the provider's error under the default policy, hold) was paid out without an operator's resolution.
 */
export async function checkScreening(db: Db, tallies: Tallies, from: { id: number } = { id: 0 }): Promise<void> {
  const { rows } = await db.query<{ id: string | number; tracking_id: string; kind: string; late: boolean; screened: boolean; blocked: boolean; released: boolean }>(
    `SELECT c.id, o.tracking_id, c.kind, (c.meta ? 'lateOf') AS late,
            EXISTS (SELECT 1 FROM screening_log s WHERE s.tracking_id = o.tracking_id
                      AND s.stage = CASE WHEN c.meta ? 'lateOf' THEN 'late' WHEN c.kind = 'payout' THEN 'payout' ELSE 'refund' END
                      AND s.at <= c.created_at) AS screened,
            EXISTS (SELECT 1 FROM screening_log s WHERE s.tracking_id = o.tracking_id AND s.at <= c.created_at
                      AND (s.result = 'blocked' OR (s.result = 'error' AND s.stage IN ('deposit', 'payout')))) AS blocked,
            EXISTS (SELECT 1 FROM screening_log s WHERE s.tracking_id = o.tracking_id AND s.stage = 'resolution' AND s.at <= c.created_at) AS released
       FROM chain_txs c JOIN orders o ON o.id = c.order_id
      WHERE c.kind IN ('payout', 'refund') AND c.id > $1 ORDER BY c.id`,
    [from.id],
  );
  // Four eyes (docs/spec.md §12): no freeze, and no release of a list's finding, on one person's word.
  const { rows: alone } = await db.query<{ tracking_id: string | null; result: string; actor: string }>(
    `SELECT s.tracking_id, s.result, s.actor FROM screening_log s
      WHERE s.stage = 'resolution' AND (s.approved_by IS NULL OR s.approved_by = s.actor)
        AND (s.result = 'freeze' OR (s.result = 'release' AND EXISTS (
              SELECT 1 FROM screening_log f WHERE f.tracking_id = s.tracking_id AND f.id < s.id AND f.result = 'blocked' AND f.reason LIKE 'listed%'
                 AND f.id > coalesce((SELECT max(r.id) FROM screening_log r WHERE r.tracking_id = s.tracking_id AND r.stage = 'resolution' AND r.id < s.id), 0))))`,
  );
  if (alone[0]) throw new InvariantBroken('four eyes', `${alone[0].tracking_id ?? 'a fund hold'}: ${alone[0].result} by ${alone[0].actor} with no second operator's approval`);
  for (const r of rows) {
    if (!r.screened) throw new InvariantBroken('every flow is screened first', `${r.tracking_id}: a ${r.late ? 'late refund' : r.kind} was recorded with no screening decision of its stage before it`);
    if (r.blocked && !r.released) throw new InvariantBroken('a blocked flow waits for an operator', `${r.tracking_id}: a ${r.kind} was recorded after a blocked screening and no operator's resolution`);
    tallies.screenedFlows++;
    from.id = Number(r.id);
  }
}

/**
 * Receipts and promises: each completed standard order's releasedWith (status record and receipt) is never more
 * than the chain shows — its payout's burst among its class's payouts, by the burst rule an outside reader
 * applies — and the quote's promises are tallied (kept at least 4 times in 5 is the promise; printed).
 */
export async function checkReleases(db: Db, chain: ChainUsers, truths: readonly OrderTruth[], spreadMs: number, slotMs: number, tallies: Tallies): Promise<void> {
  const completed = truths.filter((t) => t.last?.status === 'completed' && t.quote?.privacy?.standard === true);
  const landedSlot = new Map<string, bigint | null>();
  for (const t of truths.filter((x) => x.quote?.privacy?.standard === true && x.trackingId)) {
    const sigs = await chain.call<{ slot: number; err: unknown }[]>('getSignaturesForAddress', [holdingAddress(t.recipient, t.session.destination), { limit: 5, commitment: 'confirmed' }]).catch(() => []);
    const ok = sigs.filter((s) => s.err === null);
    landedSlot.set(t.trackingId!, ok.length ? BigInt(ok[ok.length - 1]!.slot) : null);
  }
  const span = burstSpanSlots(spreadMs, slotMs);
  const classOf = (t: OrderTruth) => `${t.session.source}>${t.session.destination}:${t.quote.amountIn}`;
  const byClass = new Map<string, { id: string; slot: bigint | null }[]>();
  for (const t of truths.filter((x) => landedSlot.has(x.trackingId ?? ''))) {
    const list = byClass.get(classOf(t)) ?? [];
    list.push({ id: t.trackingId!, slot: landedSlot.get(t.trackingId!) ?? null });
    byClass.set(classOf(t), list);
  }
  const sizes = new Map<string, number>();
  for (const members of byClass.values()) for (const [id, n] of landedBurstSizes(members, span)) sizes.set(id, n);
  const receipts = await receiptReleases(db, completed.map((t) => t.trackingId!));
  for (const t of completed) {
    const onChain = sizes.get(t.trackingId!);
    const said = t.last.privacy?.releasedWith as number | null;
    if (said !== null && said !== undefined) {
      if (onChain === undefined || said > onChain) throw new InvariantBroken('releasedWith is what the chain shows', `${t.trackingId}: releasedWith ${said}, the chain shows ${onChain ?? 'no landed payout'}`);
      tallies.promisedSets.orders++;
      if (said >= Number(t.quote.privacy.anonymitySet)) tallies.promisedSets.kept++;
    }
    const held = t.last.privacy?.heldSeconds as number | null;
    // A wait for the compliance desk (screening held the order) is no wait for the class: no quote promises it.
    if (held !== null && held !== undefined && !heldByScreening(t)) {
      tallies.promisedWaits.orders++;
      if (held <= Number(t.quote.privacy.delaySeconds)) tallies.promisedWaits.kept++;
    }
    const receipt = receipts.get(t.trackingId!);
    if (receipt !== undefined && receipt !== null) {
      if (onChain === undefined || receipt > onChain) throw new InvariantBroken('a receipt states what the chain shows', `${t.trackingId}: its receipt says releasedWith ${receipt}, the chain shows ${onChain ?? 'no landed payout'}`);
      tallies.receipts.checked++;
      if (receipt < onChain) tallies.receipts.below++;
    }
  }
}

/**
 * A partner's test sends (profile test-sends, issue 71): each wallet repeats a class nobody else uses, so every
 * quote of one says it goes alone (set and "likely" 1), and every completed one was released without a hold for a
 * crowd: confirmed to its payout's due within TEST_SEND_HELD_MAX_S (the two slots and a release pass, with room for
 * a crash's restart), never held toward the end of its hold for company its own sends seemed to be.
 */
export function checkTestSends(truths: readonly OrderTruth[]): void {
  for (const t of truths.filter((x) => x.session.wallet !== undefined)) {
    const q = t.quote?.privacy;
    if (q && (Number(q.anonymitySet) !== 1 || Number(q.anonymitySetLikely) !== 1)) {
      throw new InvariantBroken('a test send is never promised a crowd', `#${t.session.id}: quoted ${JSON.stringify(q)}`);
    }
    // An order screening held waited for its operator, not its class: its heldSeconds counts that wait.
    const held = t.last?.status === 'completed' && !heldByScreening(t) ? (t.last.privacy?.heldSeconds as number | null) : null;
    if (held !== null && held !== undefined && held > TEST_SEND_HELD_MAX_S) {
      throw new InvariantBroken('a test send is never held for a crowd', `#${t.session.id} (${t.trackingId}): held ${held} s`);
    }
  }
}

/** Whether screening held the order for an operator on its way (its history passes `held`). */
function heldByScreening(t: OrderTruth): boolean {
  return (t.last?.history ?? []).some((e: { status: string }) => e.status === 'held');
}

/**
 * The longest a test send may be held, seconds: the two slots and a release pass, a crash's restart (3 s) and a
 * failed pass or two on a cut store; far under any hold for company (808 s at the defaults, 88 s in the suite's).
 */
const TEST_SEND_HELD_MAX_S = 15;

async function receiptReleases(db: Db, ids: string[]): Promise<Map<string, number | null>> {
  if (ids.length === 0) return new Map();
  const { rows } = await db.query<{ tracking_id: string; document: string }>(
    `SELECT o.tracking_id, r.document FROM order_receipts r JOIN orders o ON o.id = r.order_id WHERE o.tracking_id = ANY($1::text[])`,
    [ids],
  );
  return new Map(rows.map((r) => [r.tracking_id, (JSON.parse(r.document) as { releasedWith?: number | null }).releasedWith ?? null]));
}
