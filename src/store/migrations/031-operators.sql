-- docs/spec.md §12 "Named operators" (issue 70): people, not one shared token. An operator is registered by
-- the deployment (the shared HUSH_ADMIN_TOKEN's automation) with a role; signs in to the console through
-- OpenID Connect (bound by the provider's subject, or by a verified email on first sign-in) and holds personal
-- tokens for the CLI. The screening log names the authenticated person.
CREATE TABLE operators (
  id text PRIMARY KEY,
  name text NOT NULL CHECK (char_length(name) BETWEEN 1 AND 100),
  role text NOT NULL CHECK (role IN ('viewer', 'resolver', 'approver')),
  -- The OpenID Connect subject (`sub`) of the configured issuer; null until the first sign-in binds it.
  oidc_subject text UNIQUE,
  -- Lower-cased; a first sign-in with this verified email binds the subject.
  email text UNIQUE,
  created_at timestamptz NOT NULL,
  disabled_at timestamptz
);
-- Personal tokens `hush_op_<id>_<secret>`: only the secret's sha256 is kept.
CREATE TABLE operator_tokens (
  id text PRIMARY KEY,
  operator_id text NOT NULL REFERENCES operators (id),
  secret_hash bytea NOT NULL,
  label text,
  created_at timestamptz NOT NULL,
  expires_at timestamptz,
  revoked_at timestamptz,
  last_used_at timestamptz
);
CREATE INDEX operator_tokens_by_operator ON operator_tokens (operator_id);
-- Console sessions (a cookie holding a random id; only its sha256 is kept). Ended when idle longer than the
-- idle limit, past their absolute limit, on sign-out, or when the operator is disabled.
CREATE TABLE operator_sessions (
  id_hash bytea PRIMARY KEY,
  operator_id text NOT NULL REFERENCES operators (id),
  created_at timestamptz NOT NULL,
  last_seen_at timestamptz NOT NULL,
  ended_at timestamptz
);
-- Four eyes: a freeze, and a release of a sanctions-list finding, are proposed by one operator and carried out
-- only when another, an approver, approves. One proposal awaits per hold at a time.
CREATE TABLE hold_approvals (
  id bigserial PRIMARY KEY,
  tracking_id text,
  fund_hold_id bigint REFERENCES screening_holds (id),
  action text NOT NULL CHECK (action IN ('release', 'refund', 'freeze')),
  note text NOT NULL,
  proposed_by text NOT NULL,
  proposed_by_operator text REFERENCES operators (id),
  proposed_at timestamptz NOT NULL,
  status text NOT NULL CHECK (status IN ('awaiting', 'approved', 'rejected', 'withdrawn')),
  decided_by text,
  decided_at timestamptz,
  decision_note text,
  CHECK ((tracking_id IS NULL) <> (fund_hold_id IS NULL))
);
CREATE UNIQUE INDEX hold_approvals_one_order ON hold_approvals (tracking_id) WHERE status = 'awaiting' AND tracking_id IS NOT NULL;
CREATE UNIQUE INDEX hold_approvals_one_fund ON hold_approvals (fund_hold_id) WHERE status = 'awaiting' AND fund_hold_id IS NOT NULL;
-- The second person of a four-eyes resolution, beside `actor` (who proposed it).
ALTER TABLE screening_log ADD COLUMN approved_by text;
