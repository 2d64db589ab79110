-- order.released: a held private payout's release, told to the partner as an event of its own. It rides on
-- the transition that sends the payout (to `sending`) of an order released with its class (class_released_at
-- set: privacy on, a private amount), written by the same trigger as that transition's order.status_changed,
-- so it exists exactly when the transition committed, once (unique per transition and type).
ALTER TABLE webhook_events ADD COLUMN type text NOT NULL DEFAULT 'order.status_changed';
ALTER TABLE webhook_events DROP CONSTRAINT webhook_events_history_id_key;
ALTER TABLE webhook_events ADD CONSTRAINT webhook_events_history_type_key UNIQUE (history_id, type);

-- As in 004, plus the release event right after its transition's status event (ids in that order, so
-- the per-order claim sends them in that order).
CREATE OR REPLACE FUNCTION hush_enqueue_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM accounts WHERE webhook_url IS NOT NULL) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_events (account_id, order_id, history_id, status, at, type)
  SELECT o.account_id, o.id, n.id, n.status, n.at, e.type
  FROM new_history n JOIN orders o ON o.id = n.order_id JOIN accounts a ON a.id = o.account_id
  CROSS JOIN (VALUES (1, 'order.status_changed'), (2, 'order.released')) AS e (rank, type)
  WHERE a.webhook_url IS NOT NULL
    AND (e.rank = 1 OR (n.status = 'sending' AND o.class_released_at IS NOT NULL))
  ORDER BY n.id, e.rank;
  RETURN NULL;
END
$$;
