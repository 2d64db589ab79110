-- Issue 54: releasedWith counts every payout of the class that landed in the order's burst, whichever release
-- sent it (an outside reader cannot tell two releases apart when their payouts land within a span): the
-- count reads the class's payouts landed near the release's slots.
CREATE INDEX chain_txs_payout_landed_slot ON chain_txs (landed_slot) WHERE kind = 'payout' AND status = 'confirmed' AND landed_slot IS NOT NULL;
