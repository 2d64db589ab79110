-- Issue 56: the worker's refill asked how many identities each asset has left by counting them (a scan of the
-- pool, 12–16 ms on PGlite, on the loop that also serves requests when one process runs both roles). Each
-- identity now carries its place in its asset's numbering (the refill numbers a batch on from the asset's
-- highest), and claims take the lowest first: what is left of an asset is the span from its lowest to its
-- highest, two index probes.
ALTER TABLE deposit_identities ADD COLUMN seq bigint NOT NULL DEFAULT 0;
UPDATE deposit_identities d SET seq = n.rn
  FROM (SELECT tracking_id, row_number() OVER (PARTITION BY mint, token_program ORDER BY created_at, tracking_id) AS rn FROM deposit_identities) n
 WHERE d.tracking_id = n.tracking_id;
ALTER TABLE deposit_identities ALTER COLUMN seq DROP DEFAULT;
CREATE INDEX deposit_identities_by_seq ON deposit_identities (mint, token_program, seq);
DROP INDEX deposit_identities_by_asset;
