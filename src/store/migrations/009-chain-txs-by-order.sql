-- An order's payouts and refunds, dead ones included (chain_txs_one_live covers only live ones): read at
-- every step of an order that is paying or refunding, and to pace replacements of failed parts.
-- IF NOT EXISTS: on a large store an operator may build it CONCURRENTLY first.
CREATE INDEX IF NOT EXISTS chain_txs_order ON chain_txs (order_id, kind) WHERE order_id IS NOT NULL;
