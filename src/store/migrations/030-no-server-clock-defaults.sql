-- No column takes the database server's clock by default: the store's time is the clock port's, bound into
-- each statement's now() (src/store/clocked-db.ts), and a default is evaluated by the server with its own
-- clock. Every insert now names these columns (now() in its text, or a time it was given).
ALTER TABLE accounts ALTER COLUMN created_at DROP DEFAULT, ALTER COLUMN updated_at DROP DEFAULT;
ALTER TABLE api_keys ALTER COLUMN created_at DROP DEFAULT;
ALTER TABLE fee_recipients ALTER COLUMN created_at DROP DEFAULT;
ALTER TABLE idempotency_keys ALTER COLUMN locked_at DROP DEFAULT, ALTER COLUMN created_at DROP DEFAULT;
ALTER TABLE deposit_hints ALTER COLUMN created_at DROP DEFAULT;
ALTER TABLE orders ALTER COLUMN next_run_at DROP DEFAULT;
ALTER TABLE chain_txs ALTER COLUMN created_at DROP DEFAULT, ALTER COLUMN updated_at DROP DEFAULT;
ALTER TABLE ledger_entries ALTER COLUMN created_at DROP DEFAULT;
ALTER TABLE webhook_events ALTER COLUMN next_attempt_at DROP DEFAULT;
ALTER TABLE funding_airdrops ALTER COLUMN created_at DROP DEFAULT;
ALTER TABLE deposit_identities ALTER COLUMN created_at DROP DEFAULT;
ALTER TABLE treasury_wallets ALTER COLUMN published_at DROP DEFAULT;
ALTER TABLE screening_log ALTER COLUMN at DROP DEFAULT;
ALTER TABLE receipt_keys ALTER COLUMN first_published_at DROP DEFAULT;
ALTER TABLE order_receipts ALTER COLUMN signed_at DROP DEFAULT;
ALTER TABLE screening_holds ALTER COLUMN created_at DROP DEFAULT;
-- Bookkeeping of the migrations themselves: migrate.ts stamps it (the wall time of the deployment).
ALTER TABLE schema_migrations ALTER COLUMN applied_at DROP DEFAULT;

-- As in 022, with each event due at its transition's time (the history row's, written by the statement on
-- the clock) instead of the server's now().
CREATE OR REPLACE FUNCTION hush_enqueue_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM accounts WHERE webhook_url IS NOT NULL) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_events (account_id, order_id, history_id, status, at, type, next_attempt_at)
  SELECT o.account_id, o.id, n.id, n.status, n.at, e.type, n.at
  FROM new_history n JOIN orders o ON o.id = n.order_id JOIN accounts a ON a.id = o.account_id
  CROSS JOIN (VALUES (1, 'order.status_changed'), (2, 'order.released'), (3, 'order.held'), (4, 'order.frozen')) AS e (rank, type)
  WHERE a.webhook_url IS NOT NULL
    AND (e.rank = 1
         OR (e.rank = 2 AND n.status = 'sending' AND o.class_released_at IS NOT NULL)
         OR (e.rank = 3 AND n.status = 'held')
         OR (e.rank = 4 AND n.status = 'frozen'))
  ORDER BY n.id, e.rank;
  RETURN NULL;
END
$$;
