-- The late-deposit pass reads the most recently finished orders and rotates through the rest of its
-- 7-day window by id; a rotation starts again at the first order created in the window. Deposit hints
-- are purged by age. IF NOT EXISTS: on a large store an operator may build these CONCURRENTLY first.
CREATE INDEX IF NOT EXISTS orders_finished_recent ON orders (updated_at) WHERE status IN ('completed', 'expired', 'refunded', 'failed');
CREATE INDEX IF NOT EXISTS orders_created ON orders (created_at, id);
CREATE INDEX IF NOT EXISTS deposit_hints_created ON deposit_hints (created_at);
