/**
 * The queue of holds' query (docs/spec.md §12, `GET /admin/v1/holds`, issue 70): its parameters, the filter they
 * make, and the cursors of its two listings (held orders, held funds), each oldest first.
 */
import { Type, type Static } from 'typebox';
import type { HeldAfter } from '../store/holds/list-holds.ts';
import type { HoldFilter } from '../store/holds/hold-filter.ts';
import { Base58Prefix, IdParam, IsoTime, limitParam, limitWords, Literals, QUERY_WORDS, defined, timeRange } from './query-words.ts';

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
    fundsAfter: q.fundsAfter,
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

export const heldOrderCursor = (h: { heldAt: string; trackingId: string }) => `${h.heldAt}~${h.trackingId}`;
export const fundHoldCursor = (h: { holdId: string }) => h.holdId;
