-- Key custody by role (docs/spec.md §10): a process with role `api` holds no treasury seed, so a worker
-- (which does) derives deposit identities ahead of orders and the API claims one per order; and it
-- publishes the public addresses of Hush's own wallets, which the API reads instead of deriving them.
CREATE TABLE deposit_identities (
  tracking_id text PRIMARY KEY,
  mint text NOT NULL,
  token_program text NOT NULL,
  deposit_owner text NOT NULL,
  deposit_account text NOT NULL,
  extra_bump_tries integer NOT NULL CHECK (extra_bump_tries BETWEEN 0 AND 255),
  created_at timestamptz NOT NULL DEFAULT now()
);
CREATE INDEX deposit_identities_by_asset ON deposit_identities (mint, token_program, created_at);
CREATE TABLE treasury_wallets (
  role text NOT NULL CHECK (role IN ('feepayer', 'pool')),
  asset_id text NOT NULL,
  wallet_index integer NOT NULL,
  address text NOT NULL,
  holding text NOT NULL,
  published_at timestamptz NOT NULL DEFAULT now(),
  PRIMARY KEY (role, asset_id, wallet_index)
);
