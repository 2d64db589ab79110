-- Webhooks (docs/spec.md §5: every transition is emitted as a webhook event). The event is written by the
-- statement that records the transition (a trigger on order_history), so no code path can change an
-- order without its event, and an event exists only if its transition committed.
CREATE TABLE webhook_events (
  id bigserial PRIMARY KEY,
  account_id text NOT NULL REFERENCES accounts (id),
  order_id bigint NOT NULL REFERENCES orders (id),
  history_id bigint NOT NULL UNIQUE REFERENCES order_history (id),
  status text NOT NULL,
  at timestamptz NOT NULL,
  attempts integer NOT NULL DEFAULT 0,
  next_attempt_at timestamptz NOT NULL DEFAULT now(),
  locked_until timestamptz,
  delivered_at timestamptz,
  given_up_at timestamptz,
  last_error text
);
CREATE INDEX webhook_events_due ON webhook_events (next_attempt_at, id) WHERE delivered_at IS NULL AND given_up_at IS NULL;
-- An order's pending events, for the claim's "no earlier event of this order is pending" test.
CREATE INDEX webhook_events_order_pending ON webhook_events (order_id, id) WHERE delivered_at IS NULL AND given_up_at IS NULL;

CREATE INDEX accounts_with_webhook ON accounts (id) WHERE webhook_url IS NOT NULL;

-- One statement-level trigger: a batch of transitions costs one insert, and a deployment where no account
-- has a webhook one index probe. Events are numbered in the order of their transitions.
CREATE FUNCTION hush_enqueue_webhook_events() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF NOT EXISTS (SELECT 1 FROM accounts WHERE webhook_url IS NOT NULL) THEN
    RETURN NULL;
  END IF;
  INSERT INTO webhook_events (account_id, order_id, history_id, status, at)
  SELECT o.account_id, o.id, n.id, n.status, n.at
  FROM new_history n JOIN orders o ON o.id = n.order_id JOIN accounts a ON a.id = o.account_id
  WHERE a.webhook_url IS NOT NULL
  ORDER BY n.id;
  RETURN NULL;
END
$$;
CREATE TRIGGER order_history_webhook_events AFTER INSERT ON order_history
  REFERENCING NEW TABLE AS new_history FOR EACH STATEMENT EXECUTE FUNCTION hush_enqueue_webhook_events();
