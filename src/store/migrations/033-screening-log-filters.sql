-- docs/spec.md §12 (issue 70): the operator reads the screening log filtered and paged, newest first by id,
-- and a partner must not be able to bury what it does not want seen. A quote refused at screening has no order,
-- so the log now keeps the partner account that asked (`account_id`; null on an order's rows, whose account is
-- the order's): without it a partner's refused quotes could not be told from another's. No foreign key: the log
-- is a record of what happened, written beside a 403 that must not wait on it.
ALTER TABLE screening_log ADD COLUMN account_id text;
-- Each filter an index, so that a filtered page reads about as many rows as it shows however many rows a
-- partner's refused quotes added: by stage (the operator's decisions are `resolution`), by the partner of a
-- quote refusal, by address and by actor (exact or a prefix: text_pattern_ops compares bytes, so a prefix is
-- a range whatever the collation), and by time.
CREATE INDEX screening_log_by_stage ON screening_log (stage, id);
CREATE INDEX screening_log_by_account ON screening_log (account_id, id) WHERE account_id IS NOT NULL;
CREATE INDEX screening_log_by_address ON screening_log (address text_pattern_ops, id) WHERE address IS NOT NULL;
CREATE INDEX screening_log_by_actor ON screening_log (actor text_pattern_ops, id);
CREATE INDEX screening_log_by_time ON screening_log (at, id);
