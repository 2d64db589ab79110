-- Partner accounts, their API keys (hash only) and registered fee recipients.
CREATE TABLE accounts (
  id text PRIMARY KEY,
  name text NOT NULL UNIQUE,
  fee_cap_bps integer NOT NULL DEFAULT 100 CHECK (fee_cap_bps BETWEEN 0 AND 1000),
  status text NOT NULL DEFAULT 'active' CHECK (status IN ('active', 'suspended')),
  rate_limits jsonb,
  webhook_url text,
  webhook_secret text,
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);

CREATE TABLE api_keys (
  id text PRIMARY KEY CHECK (id ~ '^[a-z2-7]{12}$'),
  account_id text NOT NULL REFERENCES accounts (id),
  secret_hash bytea NOT NULL CHECK (length(secret_hash) = 32),
  created_at timestamptz NOT NULL DEFAULT now(),
  expires_at timestamptz,
  revoked_at timestamptz
);
CREATE INDEX api_keys_account ON api_keys (account_id);

CREATE TABLE fee_recipients (
  account_id text NOT NULL REFERENCES accounts (id),
  address text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, address)
);

-- Orders. Amounts are u64 base units; the quote they were made from is kept as issued.
CREATE TABLE orders (
  id bigserial PRIMARY KEY,
  tracking_id text NOT NULL UNIQUE CHECK (tracking_id ~ '^trk_[1-9A-HJ-NP-Za-km-z]{22}$'),
  account_id text NOT NULL REFERENCES accounts (id),
  quote_key text NOT NULL,
  quote jsonb NOT NULL,
  status text NOT NULL CHECK (status IN ('awaiting_deposit', 'deposit_detected', 'deposit_confirmed', 'swapping', 'sending', 'completed', 'expired', 'refunding', 'refunded', 'failed')),
  source_asset_id text NOT NULL,
  destination_asset_id text NOT NULL,
  mode text NOT NULL CHECK (mode IN ('exact_in', 'exact_out')),
  amount_in numeric(20, 0) NOT NULL CHECK (amount_in > 0 AND amount_in < 18446744073709551616),
  amount_out numeric(20, 0) NOT NULL CHECK (amount_out > 0 AND amount_out < 18446744073709551616),
  service_fee numeric(20, 0) NOT NULL CHECK (service_fee >= 0),
  partner_fee numeric(20, 0) NOT NULL CHECK (partner_fee >= 0),
  network_fee numeric(20, 0) NOT NULL CHECK (network_fee >= 0),
  fee_bps integer NOT NULL CHECK (fee_bps BETWEEN 0 AND 1000),
  fee_recipient text,
  sender text NOT NULL,
  recipient text NOT NULL,
  deposit_owner text NOT NULL,
  deposit_account text NOT NULL UNIQUE,
  expiration timestamptz NOT NULL,
  tx_blockhash text NOT NULL,
  tx_last_valid_block_height bigint NOT NULL,
  tx_expires_at_slot bigint NOT NULL,
  deposit jsonb,
  payouts jsonb NOT NULL DEFAULT '[]',
  refund jsonb,
  failure_reason text,
  created_at timestamptz NOT NULL,
  updated_at timestamptz NOT NULL,
  CONSTRAINT orders_quote_key_unique UNIQUE (quote_key),
  CHECK (fee_bps = 0 OR fee_recipient IS NOT NULL)
);
CREATE INDEX orders_account ON orders (account_id, created_at);
CREATE INDEX orders_open ON orders (status) WHERE status NOT IN ('completed', 'expired', 'refunded', 'failed');

CREATE TABLE order_history (
  id bigserial PRIMARY KEY,
  order_id bigint NOT NULL REFERENCES orders (id),
  status text NOT NULL,
  at timestamptz NOT NULL
);
CREATE INDEX order_history_order ON order_history (order_id, id);

-- Idempotency records, per account; kept at least 24 h.
CREATE TABLE idempotency_keys (
  account_id text NOT NULL REFERENCES accounts (id),
  key text NOT NULL CHECK (length(key) BETWEEN 1 AND 255),
  request_hash text NOT NULL,
  state text NOT NULL CHECK (state IN ('in_progress', 'done')),
  response_status integer,
  response_body jsonb,
  locked_at timestamptz NOT NULL DEFAULT now(),
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (account_id, key)
);
CREATE INDEX idempotency_keys_created ON idempotency_keys (created_at);

-- Deposit signatures partners told us about; watched until their blockhash expires.
CREATE TABLE deposit_hints (
  order_id bigint NOT NULL REFERENCES orders (id),
  signature text NOT NULL,
  created_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (order_id, signature)
);
