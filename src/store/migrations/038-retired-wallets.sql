-- docs/operations.md "Rotate the treasury seed": the wallets of a seed the treasury rotated away from. A worker
-- holding that seed as retired (TREASURY_RETIRED_SEEDS) drains each into the current seed's wallets once nothing in
-- flight needs it; reconcile counts them until then, and after (what a drained wallet holds is still Hush's to see).
CREATE TABLE retired_wallets (
  holding text PRIMARY KEY,
  role text NOT NULL CHECK (role IN ('feepayer', 'pool')),
  asset_id text NOT NULL,
  wallet_index integer NOT NULL,
  address text NOT NULL,
  -- The retired seed's fee payer: which seed the wallet belongs to.
  fee_payer text NOT NULL,
  retired_at timestamptz NOT NULL,
  -- When the chain showed it empty with nothing of it in flight.
  drained_at timestamptz
);

-- A transfer out of a retired wallet into the current seed's (chain_txs.kind 'drain').
ALTER TABLE chain_txs DROP CONSTRAINT chain_txs_kind_check;
ALTER TABLE chain_txs ADD CONSTRAINT chain_txs_kind_check CHECK (kind IN ('sweep', 'payout', 'refund', 'partner_payout', 'funding', 'stray_return', 'drain'));
CREATE UNIQUE INDEX chain_txs_one_drain ON chain_txs (source) WHERE status = 'pending' AND kind = 'drain';
ALTER TABLE ledger_entries DROP CONSTRAINT ledger_entries_kind_check;
ALTER TABLE ledger_entries ADD CONSTRAINT ledger_entries_kind_check
  CHECK (kind IN ('deposit', 'sweep', 'payout', 'refund', 'fee_income', 'network_cost', 'rent', 'partner_payout', 'funding', 'swap', 'rebalance', 'frozen', 'held', 'drain'));
ALTER TABLE chain_found DROP CONSTRAINT chain_found_kind_check;
ALTER TABLE chain_found ADD CONSTRAINT chain_found_kind_check CHECK (kind IN ('payout', 'refund', 'partner_payout', 'sweep', 'stray_return', 'drain', 'unattributed'));

-- docs/decisions.md "The deposit carries its order's record": the public key (X25519, base64) the API seals each
-- deposit's record to, published by the worker that holds the seed; one row, replaced by a rotation.
CREATE TABLE deposit_record_key (
  id integer PRIMARY KEY CHECK (id = 1),
  public_key text NOT NULL,
  published_at timestamptz NOT NULL
);
