import { storeId } from './hold-answer.ts';
import { MAX_ID } from './query-words.ts';
import { HushError } from '../domain/errors.ts';
import { STATUS_TRAITS, type OrderStatus } from '../domain/order-state.ts';
import type { Db } from '../store/db.ts';
import { claimHold, claimState, unclaimHold, type ClaimState, type HoldClaim } from '../store/holds/hold-claims.ts';
import { commentOnHold } from '../store/holds/hold-comments.ts';
import { listHoldHistory, type HistoryCursor, type HistoryItem } from '../store/holds/hold-history.ts';
import { fundHoldNotes, orderHoldNotes, type OrderHoldNotes } from '../store/holds/hold-notes-view.ts';
import type { HoldComment, HoldNotes, HoldRef } from '../store/holds/hold-ref.ts';

export type { HoldRef } from '../store/holds/hold-ref.ts';

/** Who writes a claim or comment: the screening log's actor form, and the named operator's id if any. */
export interface NoteAuthor {
  by: string;
  operatorId: string | null;
}

export const MAX_COMMENT = 500;
export const HISTORY_PAGE = { default: 20, max: 100 } as const;
/** A bigint column's largest id: a longer one names nothing (and would fail the cast in SQL). */
/** A UTF-16 half of a pair without its other half: PostgreSQL's text cannot hold it. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** A hold named by a fund hold's id: an id no bigint can be is no hold (404, like any unknown id). */
export function fundHoldRef(holdId: string): HoldRef {
  return { kind: 'fund', holdId: storeId(holdId, 'hold') };
}

export const orderHoldRef = (trackingId: string): HoldRef => ({ kind: 'order', trackingId });

/**
 * A comment's words as kept: trimmed, 1–500 characters (code points: an emoji is one), any script, but no
 * control character (a line break, a tab, NUL, an escape: a comment is one line, shown as written) and no
 * broken UTF-16.
 */
export function commentText(raw: unknown): string {
  const text = typeof raw === 'string' ? raw.trim() : '';
  if (LONE_SURROGATE.test(text)) throw new HushError('INVALID_REQUEST', 'text holds a broken character (half of a UTF-16 pair)', { field: 'text', reason: 'broken character' });
  if (/\p{Cc}/u.test(text)) throw new HushError('INVALID_REQUEST', 'text may not hold control characters (line breaks, tabs, NUL): one line of words', { field: 'text', reason: 'control character' });
  const length = [...text].length;
  if (length < 1 || length > MAX_COMMENT) throw new HushError('INVALID_REQUEST', `text is required: 1–${MAX_COMMENT} characters once trimmed`, { field: 'text', reason: `${length} characters` });
  return text;
}

/** A history cursor as the API takes it (`r<id>` or `c<id>`, an item's `historyId`). */
export function historyCursor(before: string): HistoryCursor {
  const m = /^([rc])([1-9][0-9]{0,18})$/.exec(before);
  if (!m || BigInt(m[2]!) > MAX_ID) throw new HushError('INVALID_REQUEST', 'before must be an item\'s historyId (r… or c…)', { field: 'before' });
  return { source: m[1] === 'r' ? 1 : 0, id: m[2]! };
}

const claimedError = (c: HoldClaim) => new HushError('HOLD_CLAIMED', `${c.by} claimed this hold; send takeOver: true to take it over`, { claimedBy: c.by, claimedAt: c.at });

/**
 * docs/spec.md §12 "Claims, comments, history": an operator claims an open hold so colleagues see who is on it,
 * comments on it without resolving, and reads the holds resolved before. A claim is advisory: it stops nobody
 * resolving (a resolution is the decision, and a hold must never wait on someone who went home); it only tells a
 * second operator that a first is on it, and taking it over is an explicit, logged act. Every write is one
 * compare-and-set statement with its note; a lost race is read again and decided on what is there now.
 */
export class HoldNotesService {
  constructor(private readonly db: Db) {}

  /** Claims the hold for `author`: theirs already is no change; another's is HOLD_CLAIMED unless `takeOver`. */
  async claim(ref: HoldRef, author: NoteAuthor, takeOver: boolean): Promise<HoldClaim> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const { claim } = await this.openHold(ref);
      if (claim?.by === author.by) return claim;
      if (claim && !takeOver) throw claimedError(claim);
      const won = await claimHold(this.db, ref, author.by, author.operatorId, claim?.by ?? null);
      if (won) return won;
    }
    return this.settled(ref, author);
  }

  /** Ends the claim on the hold: the author's own, or another's with `takeOver`; none is no change. */
  async unclaim(ref: HoldRef, author: NoteAuthor, takeOver: boolean): Promise<null> {
    for (let attempt = 0; attempt < 3; attempt++) {
      const { claim } = await this.openHold(ref);
      if (!claim) return null;
      if (claim.by !== author.by && !takeOver) throw claimedError(claim);
      if (await unclaimHold(this.db, ref, claim.by, author.by, author.operatorId)) return null;
    }
    const { claim } = await this.openHold(ref);
    if (!claim) return null;
    throw claimedError(claim);
  }

  async comment(ref: HoldRef, author: NoteAuthor, raw: unknown): Promise<HoldComment> {
    const text = commentText(raw);
    const written = await commentOnHold(this.db, ref, author.by, author.operatorId, text);
    if (written) return written;
    await this.openHold(ref); // says why: no such hold, or not held any more
    throw new HushError('ORDER_NOT_HELD', 'The hold was resolved meanwhile', { status: 'resolved' });
  }

  /** Resolved holds, newest first, `limit` a page; `next` is the cursor of the page after, null at the end. */
  async history(limit: number = HISTORY_PAGE.default, before?: string): Promise<{ items: HistoryItem[]; next: string | null }> {
    if (!Number.isInteger(limit) || limit < 1 || limit > HISTORY_PAGE.max) throw new HushError('INVALID_REQUEST', `limit must be 1–${HISTORY_PAGE.max}`, { field: 'limit' });
    const items = await listHoldHistory(this.db, limit, before === undefined ? null : historyCursor(before));
    return { items, next: items.length === limit ? items[items.length - 1]!.historyId : null };
  }

  /** The hold's status and claim, refused unless it is open: 404 unknown, 409 ORDER_NOT_HELD resolved. */
  private async openHold(ref: HoldRef): Promise<ClaimState> {
    const state = await claimState(this.db, ref);
    if (!state) throw new HushError('NOT_FOUND', ref.kind === 'order' ? `No order ${ref.trackingId}` : `No hold ${ref.holdId}`);
    const open = ref.kind === 'order' ? STATUS_TRAITS[state.status as OrderStatus]?.operatorHold === true : state.status === 'held';
    if (!open) throw new HushError('ORDER_NOT_HELD', `The ${ref.kind === 'order' ? 'order' : 'hold'} is ${state.status}, not held`, { status: state.status });
    return state;
  }

  /** After three lost races in a row: what stands now, the author's claim or another's refusal. */
  private async settled(ref: HoldRef, author: NoteAuthor): Promise<HoldClaim> {
    const { claim } = await this.openHold(ref);
    if (claim?.by === author.by) return claim;
    if (claim) throw claimedError(claim);
    throw new HushError('SERVICE_UNAVAILABLE', 'The claim on this hold kept changing while it was written; try again');
  }
}

/** Held orders as the queue lists them, each with its hold's claim, claims and comments, and its deposit's transaction. */
export async function withOrderNotes<T extends { trackingId: string }>(db: Db, holds: T[]): Promise<(T & HoldNotes & { depositSignature: string | null })[]> {
  const notes = await orderHoldNotes(db, holds.map((h) => h.trackingId));
  return holds.map((h) => {
    const n: Partial<OrderHoldNotes> = notes.get(h.trackingId) ?? {};
    return { ...h, depositSignature: n.depositSignature ?? null, claim: n.claim ?? null, claims: n.claims ?? [], comments: n.comments ?? [] };
  });
}

/** Fund holds as the queue lists them, each with its claim, claims and comments. */
export async function withFundNotes<T extends { holdId: string }>(db: Db, holds: T[]): Promise<(T & HoldNotes)[]> {
  const notes = await fundHoldNotes(db, holds.map((h) => h.holdId));
  return holds.map((h) => {
    const n: Partial<HoldNotes> = notes.get(h.holdId) ?? {};
    return { ...h, claim: n.claim ?? null, claims: n.claims ?? [], comments: n.comments ?? [] };
  });
}
