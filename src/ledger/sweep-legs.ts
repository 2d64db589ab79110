import type { SweepItemRecord } from '../store/settlement/chain-tx.ts';
import type { LedgerLeg } from '../store/settlement/movements.ts';

/** One item of a sweep's `meta.items`: a deposit account's recorded amount, or (late) funds sent after its deposit. */
export type { SweepItemRecord };

/** Each distinct deposit account's rent reserve: as read by the sweep when recorded, else `rentPerAccount`. */
function reserves(items: readonly SweepItemRecord[], rentPerAccount: bigint): Map<string, bigint> {
  const out = new Map<string, bigint>();
  for (const i of items) {
    if (i.reserve !== undefined) out.set(i.depositAccount, BigInt(i.reserve));
    else if (!out.has(i.depositAccount)) out.set(i.depositAccount, rentPerAccount);
  }
  return out;
}

/**
 * The ledger legs of a landed sweep. A wrapped-SOL sweep closes its deposit accounts, so the pool gains
 * every lamport they held: the recorded amounts, their rent reserves, and anything that arrived after
 * the sweep read the balances. That last part came from a sender and is owed back, so it is booked from
 * `external:senders` and returned as `unattributed` for an alert, never taken as rent income.
 */
export function sweepLegs(
  items: readonly SweepItemRecord[],
  opts: { assetId: string; pool: string; native: boolean; poolLamportDelta: bigint; rentPerAccount: bigint },
): { legs: LedgerLeg[]; unattributed: bigint } {
  const { assetId } = opts;
  const total = items.reduce((s, i) => s + BigInt(i.amount), 0n);
  // A late deposit was never on the ledger: it comes straight from the sender into the pool.
  const legs: LedgerLeg[] = items.map((i) => ({ account: i.late ? 'external:senders' : `deposit:${i.depositAccount}`, assetId, amount: -BigInt(i.amount) }));
  if (!opts.native) {
    legs.push({ account: `pool:${opts.pool}`, assetId, amount: total });
    return { legs, unattributed: 0n };
  }
  const rent = [...reserves(items, opts.rentPerAccount).values()].reduce((a, b) => a + b, 0n);
  const unattributed = opts.poolLamportDelta - total - rent;
  legs.push({ account: `pool:${opts.pool}`, assetId, amount: opts.poolLamportDelta });
  if (unattributed > 0n) {
    legs.push({ account: 'income:rent', assetId, amount: -rent });
    legs.push({ account: 'external:senders', assetId, amount: -unattributed });
    return { legs, unattributed };
  }
  // Closing wrapped-SOL deposits sends their rent to the pool as well.
  legs.push({ account: 'income:rent', assetId, amount: total - opts.poolLamportDelta });
  return { legs, unattributed: 0n };
}

/**
 * A landed wrapped-SOL sweep's items with what reached each deposit account between the sweep's balance
 * read and its landing: the account's lamports just before the sweep, less what the sweep recorded for it
 * and its rent reserve (as the sweep read it). That part came from the order's sender after the deposit,
 * so it is a late item of the account's order (added to the account's late item when it already has one,
 * so one refund carries one network fee). Null when nothing arrived, or when a balance before the sweep
 * is unknown.
 */
export function withLateArrivals(items: readonly SweepItemRecord[], lamportsBefore: ReadonlyMap<string, bigint>, rentPerAccount: bigint): SweepItemRecord[] | null {
  const out = items.map((i) => ({ ...i }));
  let changed = false;
  for (const [account, reserve] of reserves(items, rentPerAccount)) {
    const before = lamportsBefore.get(account);
    if (before === undefined) continue;
    const mine = out.filter((i) => i.depositAccount === account);
    const arrived = before - mine.reduce((s, i) => s + BigInt(i.amount), 0n) - reserve;
    if (arrived <= 0n) continue;
    changed = true;
    const late = mine.find((i) => i.late);
    if (late) late.amount = (BigInt(late.amount) + arrived).toString();
    else out.push({ orderId: mine[0]!.orderId, depositAccount: account, amount: arrived.toString(), late: true });
  }
  return changed ? out : null;
}
