import { classKey } from '../domain/class-release.ts';
import type { Queryable } from './db.ts';
import { statusesSql } from './settlement/final-statuses.ts';

export interface ClassCount {
  sourceAssetId: string;
  destinationAssetId: string;
  mode: 'exact_in' | 'exact_out';
  pinnedAmount: bigint;
  deposits: number;
  /** The same deposits by age: byAge[i] were confirmed i buckets before `now` (when asked for by bucket; ageBucketSql). */
  byAge: number[];
  /**
   * The same by sender (when asked for): every sender's in a class with fewer than SENDER_DETAIL_MAX deposits,
   * and in a larger one each sender with more than one, so a quote can leave out the quoting sender's
   * (recentClassTraffic).
   */
  bySender?: Map<string, number[]>;
}

/** Buckets of a count by age (issue 51: how clustered a class's arrivals are, class-forecast.ts). */
export interface AgeBuckets {
  now: Date;
  bucketMs: number;
}

/**
 * In a class with this many deposits in the window or more, a sender's single deposit moves no decision: the
 * store returns it sender by sender only for senders with more than one (a wallet repeating a send), so the rows
 * stay about per class and age however busy the class.
 */
export const SENDER_DETAIL_MAX = 64;

type CountRow = { source_asset_id: string; destination_asset_id: string; mode: 'exact_in' | 'exact_out'; pinned: string; age: number | string; n: string; sender?: string | null };

/**
 * The age bucket of an order's deposit, as SQL over the parameters $now and $bucketMs: from the deposit's
 * confirmation, when Hush can first count it (its creation where none is recorded). Aged from the order's
 * creation, the newest buckets lacked every order whose deposit was still on its way (a wallet's seconds to
 * sign, Hush's to confirm), and the forecast read that lag as the class's silence: a busy class was taken
 * for stopped and released short of its target (docs/privacy.md, "The λ = 1 gap to the ideal"). The window
 * itself still starts at the order's creation (the funded orders' index): an order created before it whose
 * deposit was confirmed within it is not counted, at the window's oldest end, which weighs least.
 */
const ageBucketSql = (now: string, bucketMs: string) =>
  `greatest(0, floor(extract(epoch from (${now}::timestamptz - coalesce((deposit ->> 'confirmedAt')::timestamptz, created_at))) * 1000 / ${bucketMs}))::int`;

/** The amount an order pins (docs/spec.md §9), as SQL over the orders' columns. */
const PINNED = `CASE mode WHEN 'exact_in' THEN amount_in ELSE amount_out END`;

/** An order whose exact deposit was taken into its class (docs/spec.md §9 "Traffic"), as SQL over the orders' columns. */
const TAKEN = `status IN ${statusesSql('classTraffic')} AND (deposit ->> 'amount')::numeric = amount_in`;

function add(byAge: number[], age: number, n: number): void {
  while (byAge.length <= age) byAge.push(0);
  byAge[age]! += n;
}

/** Rows of (class, age bucket, count[, sender]) gathered per class. */
function gatherByClass(rows: readonly CountRow[]): ClassCount[] {
  const out = new Map<string, ClassCount>();
  for (const r of rows) {
    const cls = { sourceAssetId: r.source_asset_id, destinationAssetId: r.destination_asset_id, mode: r.mode, pinnedAmount: BigInt(r.pinned) };
    const key = classKey(cls);
    const c = out.get(key) ?? { ...cls, deposits: 0, byAge: [] };
    const age = Number(r.age);
    const n = Number(r.n);
    c.deposits += n;
    add(c.byAge, age, n);
    if (r.sender !== undefined) {
      c.bySender ??= new Map();
      if (r.sender !== null) {
        const own = c.bySender.get(r.sender) ?? [];
        add(own, age, n);
        c.bySender.set(r.sender, own);
      }
    }
    out.set(key, c);
  }
  return [...out.values()];
}

/**
 * Orders created since `since` whose deposit was taken into their class, per class (source, destination,
 * mode, pinned amount), among the given pinned amounts only (the standard ones: a free amount is a class of
 * one anyway), by age bucket when `buckets` is given.
 *
 * Taken (docs/spec.md §9, "Traffic"): the exact amount, in a status that pays it out (STATUS_TRAITS'
 * classTraffic). A short, over, refunded, expired, held or frozen deposit, and an order never funded, is no
 * company for anybody and moves no quote: otherwise two wrong-amount deposits, refunded for about 0.2 USDC of
 * fees each, stretched a class's promised wait from a second to thirteen minutes (issue 71).
 *
 * `except` names orders (the release's openers) left out together with every other deposit their sender made
 * in their class: a sender's own deposits are no company for it. On the chain they all name that sender, so a
 * release of them hides none of its recipients from it; and a partner repeating a test send from one wallet
 * would otherwise be held for the crowd its own sends seemed to be (issue 71).
 */
export async function recentClassCounts(db: Queryable, since: Date, pinnedAmounts: readonly bigint[], buckets?: AgeBuckets, except: readonly string[] = []): Promise<ClassCount[]> {
  if (pinnedAmounts.length === 0) return [];
  const { rows } = await db.query<CountRow>(
    `SELECT source_asset_id, destination_asset_id, mode, pinned::text AS pinned, age, count(*) AS n
       FROM (SELECT source_asset_id, destination_asset_id, mode, ${PINNED} AS pinned, sender,
                    ${buckets ? ageBucketSql('$4', '$5') : '0'} AS age
               FROM orders o
              WHERE created_at >= $1 AND deposit IS NOT NULL AND ${TAKEN}
                AND NOT EXISTS (SELECT 1 FROM orders x
                                 WHERE x.id = ANY($3::bigint[]) AND x.sender = o.sender AND x.mode = o.mode
                                   AND x.source_asset_id = o.source_asset_id AND x.destination_asset_id = o.destination_asset_id
                                   AND (CASE x.mode WHEN 'exact_in' THEN x.amount_in ELSE x.amount_out END) = (CASE o.mode WHEN 'exact_in' THEN o.amount_in ELSE o.amount_out END))) o
      WHERE pinned = ANY($2::numeric[])
      GROUP BY 1, 2, 3, 4, 5`,
    [since.toISOString(), pinnedAmounts.map(String), except, ...(buckets ? [buckets.now.toISOString(), buckets.bucketMs] : [])],
  );
  return gatherByClass(rows);
}

/**
 * recentClassCounts by age bucket with no exceptions, and the same by sender (ClassCount.bySender: every sender
 * in a class with fewer than SENDER_DETAIL_MAX deposits, the repeating ones in a larger class): what the quotes
 * are read from, so a quote can leave its own sender's deposits out without a query of its own.
 */
export async function recentClassTraffic(db: Queryable, since: Date, pinnedAmounts: readonly bigint[], buckets: AgeBuckets): Promise<ClassCount[]> {
  if (pinnedAmounts.length === 0) return [];
  const { rows } = await db.query<CountRow>(
    `SELECT source_asset_id, destination_asset_id, mode, pinned, age, sender, sum(n)::text AS n
       FROM (SELECT source_asset_id, destination_asset_id, mode, pinned, age,
                    CASE WHEN sum(count(*)) OVER (PARTITION BY source_asset_id, destination_asset_id, mode, pinned) < $5
                           OR sum(count(*)) OVER (PARTITION BY source_asset_id, destination_asset_id, mode, pinned, sender) > 1 THEN sender END AS sender,
                    count(*) AS n
               FROM (SELECT source_asset_id, destination_asset_id, mode, (${PINNED})::text AS pinned, sender, ${ageBucketSql('$3', '$4')} AS age
                       FROM orders
                      WHERE created_at >= $1 AND deposit IS NOT NULL AND ${TAKEN}) o
              WHERE pinned::numeric = ANY($2::numeric[])
              GROUP BY source_asset_id, destination_asset_id, mode, pinned, sender, age) s
      GROUP BY 1, 2, 3, 4, 5, 6`,
    [since.toISOString(), pinnedAmounts.map(String), buckets.now.toISOString(), buckets.bucketMs, SENDER_DETAIL_MAX],
  );
  return gatherByClass(rows);
}

/**
 * When the first order whose deposit was taken was created (how long Hush has been seeing traffic); null with
 * none yet. Only taken ones, as for the counts: an unfunded order, free to place, would otherwise age a fresh
 * Hush at will and so move its quotes.
 */
export async function firstOrderAt(db: Queryable): Promise<Date | null> {
  // deposit IS NOT NULL: the funded orders' index by creation (migration 029), so a Hush with many unfunded
  // orders and none taken yet (its young reads ask every second) reads only funded ones.
  const { rows } = await db.query<{ at: Date | null }>(`SELECT min(created_at) AS at FROM orders WHERE deposit IS NOT NULL AND ${TAKEN}`);
  return rows[0]?.at ?? null;
}
