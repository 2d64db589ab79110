-- The late-deposit pass reads the most recently finished orders and rotates through the rest of its
-- 7-day window by id; a rotation starts again at the first order created in the window.
CREATE INDEX orders_finished_recent ON orders (updated_at) WHERE status IN ('completed', 'expired', 'refunded', 'failed');
CREATE INDEX orders_created ON orders (created_at, id);
