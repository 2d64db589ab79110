-- Issue 73: the compute-unit price (micro-lamports) the order's networkFee was priced at, from its quote: the fee
-- grid's rung for that quote (src/domain/fee-grid-shared.ts). The ledger splits each of the order's transactions'
-- fees into what this rung priced and what Hush absorbed; the grid may have moved by then. Null: an order from
-- before this column (the ledger then takes the rung in effect at settlement, as it did).
ALTER TABLE orders ADD COLUMN network_fee_price numeric;
