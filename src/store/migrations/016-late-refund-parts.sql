-- A late refund's part was one string, 'late:<sweep signature>:<n>', taken apart again where read. It is
-- now two keys of meta, as every other part: `part` (the number) and `lateOf` (the sweep whose late
-- funds it returns). Rows written before are rewritten to that shape.
UPDATE chain_txs
   SET meta = meta || jsonb_build_object('lateOf', split_part(meta ->> 'part', ':', 2), 'part', split_part(meta ->> 'part', ':', 3)::int)
 WHERE kind = 'refund' AND meta ->> 'part' LIKE 'late:%';
-- Never paid twice: at most one live payout (and one refund) per order, late sweep (none: the order's
-- own) and part.
DROP INDEX IF EXISTS chain_txs_one_live;
CREATE UNIQUE INDEX chain_txs_one_live ON chain_txs (order_id, kind, (coalesce(meta ->> 'lateOf', '')), (meta ->> 'part'))
  WHERE status IN ('pending', 'confirmed') AND kind IN ('payout', 'refund');
DROP INDEX IF EXISTS chain_txs_late_refunds;
DROP INDEX IF EXISTS chain_txs_late_refund_parts;
CREATE INDEX IF NOT EXISTS chain_txs_late_refunds ON chain_txs (created_at) WHERE kind = 'refund' AND meta ? 'lateOf';
-- A sweep's late refunds, by the sweep's signature.
CREATE INDEX IF NOT EXISTS chain_txs_late_refunds_of ON chain_txs ((meta ->> 'lateOf')) WHERE kind = 'refund' AND meta ? 'lateOf';
