-- A faucet top-up is recorded before it is asked for (intent first): a row without a signature is an
-- airdrop whose answer may have been lost after it executed. The next settling finds it in the wallet's
-- history and books it, or forgets it once long past; signed rows settle as before.
ALTER TABLE funding_airdrops DROP CONSTRAINT funding_airdrops_pkey;
ALTER TABLE funding_airdrops ADD COLUMN id bigserial PRIMARY KEY;
ALTER TABLE funding_airdrops ALTER COLUMN signature DROP NOT NULL;
CREATE UNIQUE INDEX funding_airdrops_signature ON funding_airdrops (signature) WHERE signature IS NOT NULL;
