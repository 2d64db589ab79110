-- Issue 53: every replaced webhook secret keeps signing beside the current one until the end it was promised
-- (24 h after its replacement), not only the one replaced last: a second rotation no longer cuts the first
-- one's promise short. A list of {secret, until}, newest last; ended entries are dropped at the next rotation.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS webhook_previous_secrets jsonb NOT NULL DEFAULT '[]'::jsonb;
UPDATE accounts SET webhook_previous_secrets = jsonb_build_array(jsonb_build_object('secret', webhook_previous_secret, 'until', webhook_previous_until))
  WHERE webhook_previous_secret IS NOT NULL AND webhook_previous_until > now();
ALTER TABLE accounts DROP COLUMN IF EXISTS webhook_previous_secret;
ALTER TABLE accounts DROP COLUMN IF EXISTS webhook_previous_until;
