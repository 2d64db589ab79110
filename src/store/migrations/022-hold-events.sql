-- docs/spec.md §12: order.held and order.frozen, told to the partner as events of their own, each right
-- after the order.status_changed of its transition (same trigger, same statement: exactly once).
CREATE OR REPLACE FUNCTION hush_enqueue_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM accounts WHERE webhook_url IS NOT NULL) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_events (account_id, order_id, history_id, status, at, type)
  SELECT o.account_id, o.id, n.id, n.status, n.at, e.type
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
