-- Issue 54: privacy.releasedWith is what an outside reader counts on the chain, so it is computed from where
-- a release's payouts landed (docs/spec.md §9). landed_slot: the slot a transaction Hush signed landed in,
-- from the chain's signature status when settle-fates settles it (NULL before, and for rows settled earlier).
ALTER TABLE chain_txs ADD COLUMN landed_slot bigint;
-- The burst the order's payout landed in, counted by the adversary's burst rule over its release's payouts
-- once every member of the release is final; NULL until then (the status record says null).
ALTER TABLE orders ADD COLUMN class_landed_size integer;
-- Releases still to count: few at any time, read by every receipt pass.
CREATE INDEX orders_release_uncounted ON orders (class_released_at) WHERE class_released_at IS NOT NULL AND class_landed_size IS NULL;
-- Orders already final keep the count they were told (their payouts' slots were not recorded).
UPDATE orders SET class_landed_size = coalesce(class_release_size, 0) WHERE class_released_at IS NOT NULL AND status IN ('completed', 'refunded', 'failed', 'frozen', 'expired');
