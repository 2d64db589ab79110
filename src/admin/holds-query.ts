/**
 * The queue of holds' query (docs/spec.md §12, `GET /admin/v1/holds`, issue 70): its parameters, the filter they
 * make, and the cursors of its two listings (held orders, held funds), each oldest first.
 */
import { Type, type Static } from 'typebox';
import type { HeldAfter } from '../store/holds/list-holds.ts';
import type { HoldFilter } from '../store/holds/hold-filter.ts';
import { HushError } from '../domain/errors.ts';
import { Base58Prefix, cursorId, IdParam, IsoTime, limitParam, limitWords, Literals, QUERY_WORDS, defined, timeRange } from './query-words.ts';

/** The stages a finding holds at: an order's (deposit, payout, refund) or held funds' (late, fee). */
export const HOLD_STAGES = ['deposit', 'payout', 'refund', 'late', 'fee'] as const;

export const HoldsQuery = Type.Object(
  {
    limit: Type.Optional(limitParam(1000)),
    stage: Type.Optional(Literals(HOLD_STAGES)),
    result: Type.Optional(Literals(['blocked', 'error'] as const)),
    accountId: Type.Optional(IdParam),
    /** Held at or after (inclusive), and before (exclusive). */
    from: Type.Optional(IsoTime),
    to: Type.Optional(IsoTime),
    addressPrefix: Type.Optional(Base58Prefix),
    /** The held orders after this one: the `next.holds` of the page before. */
    after: Type.Optional(Type.String({ pattern: '^[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\\.[0-9]{3}Z~trk_[1-9A-HJ-NP-Za-km-z]{22}$' })),
    /** The held funds after this hold: the `next.fundHolds` of the page before. */
    fundsAfter: Type.Optional(Type.String({ pattern: '^[1-9][0-9]{0,18}$' })),
  },
  { additionalProperties: false },
);
export type HoldsQuery = Static<typeof HoldsQuery>;

export const HOLDS_WORDS = { ...QUERY_WORDS, limit: limitWords(1000) };

export interface HoldsPageQuery {
  limit: number;
  filter: HoldFilter;
  /** Whether anything narrows the queue (else what matches is what is open). */
  filtered: boolean;
  after?: HeldAfter;
  fundsAfter?: string;
}

/** The query as the listings take it; a time off the calendar, or a reversed range, is a 400. */
export function holdsPageOf(q: HoldsQuery): HoldsPageQuery {
  const filter: HoldFilter = defined({ stage: q.stage, result: q.result, accountId: q.accountId, addressPrefix: q.addressPrefix, ...timeRange(q.from, q.to) });
  const [heldAt, trackingId] = q.after?.split('~') ?? [];
  return defined({
    limit: Number(q.limit ?? 100),
    filter,
    filtered: Object.keys(filter).length > 0,
    after: heldAt && trackingId ? { heldAt, trackingId } : undefined,
    fundsAfter: cursorId('fundsAfter', q.fundsAfter),
  });
}

/**
 * A page of `limit` from `rows` (read with `limit + 1`) and the cursor of the next page, made by `cursor` from
 * the last one shown; null when nothing more matches.
 */
export function queuePage<T>(rows: T[], limit: number, cursor: (last: T) => string): { shown: T[]; next: string | null } {
  const shown = rows.slice(0, limit);
  return { shown, next: rows.length > limit ? cursor(shown.at(-1)!) : null };
}

const heldOrderCursor = (h: { heldAt: string; trackingId: string }) => `${h.heldAt}~${h.trackingId}`;
const fundHoldCursor = (h: { holdId: string }) => h.holdId;

/** Where the queue is read: the admin API's operations (src/api/deps.ts), or the admin CLI's over the store. */
export interface QueueReader<H extends { heldAt: string; trackingId: string }, F extends { holdId: string }> {
  holds?(limit: number, filter: HoldFilter, after?: HeldAfter): Promise<H[]>;
  fundHolds?(limit: number, filter: HoldFilter, afterId?: string): Promise<F[]>;
  holdCounts?(filter?: HoldFilter): Promise<{ holds: number; fundHolds: number }>;
}

/**
 * The queue's answer (`GET /admin/v1/holds`, the CLI's `holds`): held orders, then (issue 49) held late funds and
 * fee recipients, each with the order it reached, oldest first, at most `limit` of each, narrowed by the filter
 * (issue 70). `counts` says how many are open in all — a listing shorter than its count stopped at the limit (the
 * console showed 100 as all) — and, under `matching` when a filter is given, how many it leaves; `next` is where each listing's
 * next page starts (null: nothing more matches).
 */
export async function holdsAnswer<H extends { heldAt: string; trackingId: string }, F extends { holdId: string }>(r: QueueReader<H, F>, q: HoldsPageQuery) {
  if (!r.holds) throw new HushError('SERVICE_UNAVAILABLE', 'Holds are not available on this deployment');
  // One more than shown of each: whether it has a next page.
  const [orders, funds, counts, matching] = await Promise.all([
    r.holds(q.limit + 1, q.filter, q.after),
    r.fundHolds?.(q.limit + 1, q.filter, q.fundsAfter) ?? [],
    r.holdCounts?.(),
    q.filtered ? r.holdCounts?.(q.filter) : undefined,
  ]);
  const holds = queuePage(orders, q.limit, heldOrderCursor);
  const fundHolds = queuePage(funds, q.limit, fundHoldCursor);
  const all = counts ?? { holds: holds.shown.length, fundHolds: fundHolds.shown.length };
  // `matching` only beside a filter: unfiltered, what matches is what is open, and the answer keeps its shape.
  return { holds: holds.shown, fundHolds: fundHolds.shown, counts: matching ? { ...all, matching } : all, next: { holds: holds.next, fundHolds: fundHolds.next } };
}
