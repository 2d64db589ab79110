-- Address rules (docs/spec.md §4): an order may not name another order's deposit owner; order creation
-- looks the address up here.
CREATE INDEX IF NOT EXISTS orders_deposit_owner ON orders (deposit_owner);
