-- Class release (docs/spec.md §9): how many payouts of its class went out in the order's release, for the
-- status record's privacy.releasedWith. NULL while it waits, and for payouts that are not released by class.
ALTER TABLE orders ADD COLUMN class_release_size integer;
