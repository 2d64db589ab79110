-- Class release (docs/spec.md §9): each pass reads the latest release of every class from the last minutes,
-- so a new release of a class waits until the one before has cleared on the chain (the status's
-- releasedWith is what an outside reader counts). Released orders are a small share of a long history.
CREATE INDEX orders_class_released_at ON orders (class_released_at) WHERE class_released_at IS NOT NULL;
