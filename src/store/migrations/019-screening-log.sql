-- docs/spec.md §12: every screening decision and operator resolution, append-only. An order's rows say what
-- its deposit and payout screened as (the disclosure receipt reads the latest); a quote refused at screening
-- has no order (tracking_id NULL). `list` and `version` name the list file and its content hash@loaded-at, or
-- the HTTP provider; `actor` is the process that decided or the operator who resolved.
CREATE TABLE screening_log (
  id bigserial PRIMARY KEY,
  at timestamptz NOT NULL DEFAULT now(),
  tracking_id text,
  stage text NOT NULL CHECK (stage IN ('quote', 'deposit', 'payout', 'resolution')),
  field text,
  address text,
  result text NOT NULL CHECK (result IN ('clear', 'blocked', 'error', 'release', 'refund', 'freeze')),
  list text,
  version text,
  reason text,
  actor text NOT NULL,
  note text
);
CREATE INDEX screening_log_by_order ON screening_log (tracking_id, id) WHERE tracking_id IS NOT NULL;
