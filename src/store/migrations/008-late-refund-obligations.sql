-- Late refunds are owed by the pools from the moment late funds are swept until their refund is live:
-- the inventory refresh of every API process reads them (every 2 s), as the worker's late pass does.
-- IF NOT EXISTS: on a large store an operator may build these CONCURRENTLY first.
CREATE INDEX IF NOT EXISTS chain_txs_late_unrefunded ON chain_txs (id)
  WHERE kind = 'sweep' AND NOT (meta ? 'lateRefunded') AND meta -> 'items' @> '[{"late": true}]'::jsonb;
CREATE INDEX IF NOT EXISTS chain_txs_late_refunds ON chain_txs (created_at)
  WHERE kind = 'refund' AND meta ->> 'part' LIKE 'late:%';
-- A sweep's late refunds by their part name ('late:<sweep signature>:<n>'), looked up by prefix.
CREATE INDEX IF NOT EXISTS chain_txs_late_refund_parts ON chain_txs ((meta ->> 'part') text_pattern_ops)
  WHERE kind = 'refund' AND meta ->> 'part' LIKE 'late:%';
