-- Issue 56: the worker's refill asked how many identities each asset has left by counting them (a scan of the
-- pool, 12–16 ms on PGlite, on the loop that also serves requests when one process runs both roles). Each
-- identity now carries its place in one sequence, and claims take the lowest first: what is left of an asset
-- is the span from its lowest to its highest, two index probes.
ALTER TABLE deposit_identities ADD COLUMN seq bigserial;
CREATE INDEX deposit_identities_by_seq ON deposit_identities (mint, token_program, seq);
DROP INDEX deposit_identities_by_asset;
