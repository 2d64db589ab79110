-- Funds sent to a deposit owner outside its deposit account, returned by an operator (admin return-stray):
-- recorded before they are sent like every Hush transaction, at most one in flight per holding account.
ALTER TABLE chain_txs DROP CONSTRAINT chain_txs_kind_check;
ALTER TABLE chain_txs ADD CONSTRAINT chain_txs_kind_check
  CHECK (kind IN ('sweep', 'payout', 'refund', 'partner_payout', 'funding', 'stray_return'));
CREATE UNIQUE INDEX chain_txs_one_stray_return ON chain_txs (source) WHERE status = 'pending' AND kind = 'stray_return';
