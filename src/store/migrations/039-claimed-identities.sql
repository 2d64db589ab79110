-- docs/decisions.md "The deposit carries its order's record": a claimed identity is remembered until its order is in
-- the store, so a store restored from before an order was created still names the deposit account an API handed out
-- (APIs claim identities in batches ahead of orders). The worker forgets each once its order exists. Its own
-- migration: 038 had landed without it, and a migration that has run is never edited.
CREATE TABLE claimed_identities (
  deposit_account text PRIMARY KEY,
  tracking_id text NOT NULL,
  claimed_at timestamptz NOT NULL
);
