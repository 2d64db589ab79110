-- docs/spec.md §12, issue 49: every flow of funds is screened. The log gains the stages of the flows it did
-- not see: `refund` (before a refund is sent), `late` (funds that reached a deposit account outside its
-- order, and where their refund would go) and `fee` (a partner fee payout's recipient).
ALTER TABLE screening_log DROP CONSTRAINT screening_log_stage_check;
ALTER TABLE screening_log ADD CONSTRAINT screening_log_stage_check CHECK (stage IN ('quote', 'deposit', 'payout', 'refund', 'late', 'fee', 'resolution'));
-- Holds that are not an order's status: late funds held instead of refunded (`late`: the order they reached,
-- the sweep that took them into a pool, the amount, booked on the ledger account `held:screening`), and a
-- partner's fee recipient held (`fee`: the payable account; its fees keep accruing). An operator resolves
-- each (`refund` | `freeze` for late funds, `release` for either); a fee hold also ends when its address
-- screens clear again (`cleared`). One open hold per subject.
CREATE TABLE screening_holds (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('late', 'fee')),
  -- late: `<sweep signature>:<order id>`; fee: the payable account.
  subject text NOT NULL,
  tracking_id text,
  order_id bigint REFERENCES orders (id),
  asset_id text NOT NULL,
  amount numeric NOT NULL,
  status text NOT NULL CHECK (status IN ('held', 'refund_due', 'refunded', 'released', 'frozen', 'cleared')),
  stage text NOT NULL,
  result text NOT NULL,
  field text,
  address text,
  list text,
  version text,
  reason text,
  created_at timestamptz NOT NULL DEFAULT now(),
  resolved_at timestamptz,
  resolved_by text,
  note text
);
CREATE UNIQUE INDEX screening_holds_open ON screening_holds (kind, subject) WHERE status IN ('held', 'refund_due');
CREATE UNIQUE INDEX screening_holds_late ON screening_holds (subject) WHERE kind = 'late';
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('deposit', 'sweep', 'payout', 'refund', 'fee_income', 'network_cost', 'rent', 'partner_payout', 'funding', 'swap', 'rebalance', 'frozen', 'held'));
