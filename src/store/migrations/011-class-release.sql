-- Class release (docs/spec.md §9): when a standard payout's class was released (its due time brought forward
-- from the class's cap). NULL while it waits for its class; never set for other payouts.
ALTER TABLE orders ADD COLUMN class_released_at timestamptz;
