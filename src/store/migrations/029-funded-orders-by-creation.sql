-- The class counts (class-traffic-store.ts, read every second while Hush is young and every ten seconds after)
-- count recent orders with a deposit. Through orders_created they visited every recent order, funded or not:
-- under a flood of unfunded orders, a scan of all of them on the event loop (PGlite) each time. This index
-- holds only funded orders, which a deposit's recording adds (an update that was never a HOT one: orders_unswept
-- already reads `deposit`).
CREATE INDEX orders_funded_created ON orders (created_at) WHERE deposit IS NOT NULL;
