-- Swaps move inventory between assets in the ledger; rebalancing moves inventory in aggregate.
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('deposit', 'sweep', 'payout', 'refund', 'fee_income', 'network_cost', 'rent', 'partner_payout', 'funding', 'swap', 'rebalance'));
