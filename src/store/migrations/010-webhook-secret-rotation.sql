-- Standard Webhooks secret rotation: the secret replaced last keeps signing beside the new one until
-- webhook_previous_until (24 h), so a partner can deploy the new secret without dropping events.
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS webhook_previous_secret text;
ALTER TABLE accounts ADD COLUMN IF NOT EXISTS webhook_previous_until timestamptz;
