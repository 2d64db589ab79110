-- Issue 72: a landed payout completes its order before its costs are read (src/settlement/steps/book-costs.ts);
-- until they are booked its fee_lamports is NULL. The costs pass and the books' mark find those by this index.
CREATE INDEX IF NOT EXISTS chain_txs_uncosted ON chain_txs (id) WHERE status = 'confirmed' AND fee_lamports IS NULL;
