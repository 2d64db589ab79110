-- docs/spec.md §12 disclosure receipts. A worker signs each final order's receipt once (the document as
-- signed, canonical JSON, and its Ed25519 signature); the API serves it. receipt_keys publishes every key
-- that ever signed, so receipts signed before a rotation still verify.
CREATE TABLE receipt_keys (
  key_id text PRIMARY KEY,
  algorithm text NOT NULL DEFAULT 'ed25519' CHECK (algorithm = 'ed25519'),
  first_published_at timestamptz NOT NULL DEFAULT now()
);
CREATE TABLE order_receipts (
  order_id bigint PRIMARY KEY REFERENCES orders (id),
  key_id text NOT NULL REFERENCES receipt_keys (key_id),
  document text NOT NULL,
  signature text NOT NULL,
  signed_at timestamptz NOT NULL DEFAULT now()
);
ALTER TABLE orders ADD COLUMN receipt_signed_at timestamptz;
-- What the signer looks for: final orders with something to prove (a deposit) and no receipt yet.
CREATE INDEX orders_unreceipted ON orders (id)
  WHERE receipt_signed_at IS NULL AND status IN ('completed', 'refunded', 'failed', 'frozen');
-- Orders already final when this runs are signed too, oldest first, a batch per pass.
