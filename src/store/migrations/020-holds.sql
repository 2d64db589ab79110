-- docs/spec.md §12 holds: `held` (non-final: screening stopped the order before anything was sent) and
-- `frozen` (final: an operator kept the funds). The partial indexes of open orders list the final statuses
-- exactly as the queries do (src/store/settlement/final-statuses.ts), so they are rebuilt with `frozen`.
ALTER TABLE orders DROP CONSTRAINT orders_status_check;
ALTER TABLE orders ADD CONSTRAINT orders_status_check CHECK (status IN ('awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'swapping', 'sending', 'completed', 'expired', 'refunding', 'refunded', 'failed', 'held', 'frozen'));
DROP INDEX orders_open;
CREATE INDEX orders_open ON orders (status) WHERE status NOT IN ('completed', 'expired', 'refunded', 'failed', 'frozen');
DROP INDEX orders_due;
CREATE INDEX orders_due ON orders (next_run_at) WHERE status NOT IN ('completed', 'expired', 'refunded', 'failed', 'frozen');
-- The operator's queue: held orders, oldest first.
CREATE INDEX orders_held ON orders (updated_at) WHERE status = 'held';
-- A frozen order's deposit is booked on an account of its own (frozen:funds), a movement of kind `frozen`.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('deposit', 'sweep', 'payout', 'refund', 'fee_income', 'network_cost', 'rent', 'partner_payout', 'funding', 'swap', 'rebalance', 'frozen'));
