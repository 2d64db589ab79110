-- Faucet airdrops a worker asked for (local chain only), kept from the moment their signature is known
-- until their ledger entry is written in the same transaction that deletes them: a crash while they
-- confirm no longer leaves funded wallets off the ledger (the next start settles them from the chain).
CREATE TABLE funding_airdrops (
  signature text PRIMARY KEY,
  account text NOT NULL,
  asset_id text NOT NULL,
  amount numeric(20, 0) NOT NULL CHECK (amount > 0),
  created_at timestamptz NOT NULL DEFAULT now()
);
