-- Settlement: work scheduling on orders, every signed Hush transaction recorded before it is sent,
-- and the double-entry ledger.
ALTER TABLE orders ADD COLUMN next_run_at timestamptz NOT NULL DEFAULT now();
ALTER TABLE orders ADD COLUMN locked_by text;
ALTER TABLE orders ADD COLUMN locked_until timestamptz;
ALTER TABLE orders ADD COLUMN attempts integer NOT NULL DEFAULT 0;
ALTER TABLE orders ADD COLUMN payout_due_at timestamptz;
ALTER TABLE orders ADD COLUMN sweep_tx_id bigint;
ALTER TABLE orders ADD COLUMN swept boolean NOT NULL DEFAULT false;
ALTER TABLE orders ADD COLUMN late_checked_at timestamptz;
CREATE INDEX orders_due ON orders (next_run_at) WHERE status NOT IN ('completed', 'expired', 'refunded', 'failed');
CREATE INDEX orders_unswept ON orders (source_asset_id, id) WHERE swept = false AND deposit IS NOT NULL;

CREATE TABLE chain_txs (
  id bigserial PRIMARY KEY,
  kind text NOT NULL CHECK (kind IN ('sweep', 'payout', 'refund', 'partner_payout', 'funding')),
  order_id bigint REFERENCES orders (id),
  asset_id text NOT NULL,
  amount numeric(20, 0) NOT NULL CHECK (amount >= 0),
  source text NOT NULL,
  destination text NOT NULL,
  signature text NOT NULL UNIQUE,
  wire text NOT NULL,
  last_valid_block_height bigint NOT NULL,
  status text NOT NULL CHECK (status IN ('pending', 'confirmed', 'failed', 'expired')),
  fee_lamports bigint,
  meta jsonb NOT NULL DEFAULT '{}',
  created_at timestamptz NOT NULL DEFAULT now(),
  updated_at timestamptz NOT NULL DEFAULT now()
);
-- Never paid twice: at most one payout (and one refund) per order and part that is pending or landed.
CREATE UNIQUE INDEX chain_txs_one_live ON chain_txs (order_id, kind, ((meta ->> 'part')))
  WHERE status IN ('pending', 'confirmed') AND kind IN ('payout', 'refund');
CREATE INDEX chain_txs_pending ON chain_txs (id) WHERE status = 'pending';

-- Double-entry ledger: every movement is a set of legs summing to zero per asset.
CREATE TABLE ledger_entries (
  id bigserial PRIMARY KEY,
  movement text NOT NULL,
  kind text NOT NULL CHECK (kind IN ('deposit', 'sweep', 'payout', 'refund', 'fee_income', 'network_cost', 'rent', 'partner_payout', 'funding')),
  account text NOT NULL,
  asset_id text NOT NULL,
  amount numeric(22, 0) NOT NULL,
  order_id bigint,
  created_at timestamptz NOT NULL DEFAULT now(),
  UNIQUE (movement, account, asset_id)
);
CREATE INDEX ledger_entries_account ON ledger_entries (account, asset_id);
