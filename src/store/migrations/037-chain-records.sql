-- docs/decisions.md "The chain is the record": what the chain check has read of each wallet's history, whether
-- payouts are paused for an operator, and the transactions of Hush's it found that the store had forgotten.

-- The newest signature of a wallet's history the check has read (the fee payer: it signs every Hush transaction).
CREATE TABLE chain_watermarks (
  wallet text PRIMARY KEY,
  signature text NOT NULL,
  slot bigint NOT NULL,
  updated_at timestamptz NOT NULL
);

-- One row: paused while a transaction of Hush's on chain could not be attributed, until an operator acts.
CREATE TABLE chain_truth (
  id integer PRIMARY KEY CHECK (id = 1),
  paused boolean NOT NULL,
  reason text,
  since timestamptz,
  checked_at timestamptz,
  -- Set when the check first read a seed's history into a store that held nothing (a lost store): once what it
  -- adopted has settled, what the wallets hold beyond the ledger is booked as their opening balance.
  opening_due boolean NOT NULL DEFAULT false,
  -- The fee payer as the worker last read it: its balance, the hours it lasts at the last hour's spending
  -- (NULL: nothing spent), and ok / low / empty (docs/operations.md "fee_payer_low").
  fee_payer_lamports numeric(20, 0),
  fee_payer_runway_hours double precision,
  fee_payer_state text CHECK (fee_payer_state IN ('ok', 'low', 'empty')),
  -- The last periodic reconcile that read a still moment (nothing booked meanwhile, nothing pending).
  reconcile_ok boolean,
  reconcile_at timestamptz,
  reconcile_differences jsonb
);

-- Transactions of Hush's found on chain and attributed to an order the store knows (adopted: used as its payout,
-- refund or sweep instead of a new one), and those the check could not attribute.
CREATE TABLE chain_found (
  signature text PRIMARY KEY,
  slot bigint NOT NULL,
  kind text NOT NULL CHECK (kind IN ('payout', 'refund', 'partner_payout', 'sweep', 'stray_return', 'unattributed')),
  order_id bigint REFERENCES orders (id),
  part integer NOT NULL DEFAULT 0,
  asset_id text,
  amount numeric(20, 0),
  source text,
  destination text,
  wire text NOT NULL,
  detail jsonb NOT NULL DEFAULT '{}',
  found_at timestamptz NOT NULL,
  -- When it took its place in chain_txs (adopted), or an operator acknowledged it (unattributed).
  settled_at timestamptz,
  settled_by text
);
CREATE INDEX chain_found_open ON chain_found (order_id) WHERE settled_at IS NULL;
