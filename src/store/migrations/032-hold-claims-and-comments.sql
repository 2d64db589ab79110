-- docs/spec.md §12 "Claims, comments, history": an operator claims an open hold so colleagues see who is on it,
-- and notes on it without resolving. A hold is one time an order was held (the order_history row of its move to
-- `held`: an order released and held again is a new hold, with its own claim and comments) or one fund hold
-- (`screening_holds`). Every claim, take-over, unclaim and comment is a row of `hold_notes`, append-only; the
-- current claim is the one row of `hold_claims` per hold, so two operators claiming at once meet on its unique
-- key and only one wins (a claim is advisory: it stops nobody resolving).
CREATE TABLE hold_claims (
  id bigserial PRIMARY KEY,
  held_history_id bigint UNIQUE REFERENCES order_history (id),
  screening_hold_id bigint UNIQUE REFERENCES screening_holds (id),
  -- Who holds it, as the screening log names an actor (`operator:<name>`), and the named operator's id if any.
  claimed_by text NOT NULL,
  operator_id text,
  claimed_at timestamptz NOT NULL,
  CHECK ((held_history_id IS NULL) <> (screening_hold_id IS NULL))
);
CREATE TABLE hold_notes (
  id bigserial PRIMARY KEY,
  held_history_id bigint REFERENCES order_history (id),
  screening_hold_id bigint REFERENCES screening_holds (id),
  kind text NOT NULL CHECK (kind IN ('claim', 'take_over', 'unclaim', 'comment')),
  actor text NOT NULL,
  operator_id text,
  -- A comment's words; for a take-over or an unclaim, whose claim ended.
  text text,
  at timestamptz NOT NULL,
  CHECK ((held_history_id IS NULL) <> (screening_hold_id IS NULL)),
  CHECK (kind <> 'comment' OR text IS NOT NULL)
);
CREATE INDEX hold_notes_order_hold ON hold_notes (held_history_id, id) WHERE held_history_id IS NOT NULL;
CREATE INDEX hold_notes_fund_hold ON hold_notes (screening_hold_id, id) WHERE screening_hold_id IS NOT NULL;
-- A fund hold's resolution names its hold, so the history tells it from the resolution of the order the late
-- funds reached (both carry that order's tracking id). Rows written before this carried the hold only in their
-- note's prefix, `<kind> hold <id>: `.
ALTER TABLE screening_log ADD COLUMN hold_id bigint REFERENCES screening_holds (id);
UPDATE screening_log s SET hold_id = h.id FROM screening_holds h
  WHERE s.stage = 'resolution' AND s.tracking_id IS NOT DISTINCT FROM h.tracking_id AND s.note LIKE h.kind || ' hold ' || h.id || ': %';
-- The history, newest first: resolutions, and fee recipients' holds that ended by screening clear again.
CREATE INDEX screening_log_resolutions ON screening_log (at, id) WHERE stage = 'resolution';
CREATE INDEX screening_holds_cleared ON screening_holds (resolved_at, id) WHERE status = 'cleared';
