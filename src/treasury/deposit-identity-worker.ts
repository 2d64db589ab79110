/**
 * Worker thread of DepositIdentities: derives deposit identities (trackingId, one-time owner, its token
 * account) off the request thread. The owner's public key and the token account's PDA search are most of
 * an order's CPU; here they run on another core ahead of demand.
 */
import { parentPort, workerData } from 'node:worker_threads';
import type { Address } from '@solana/kit';
import { deriveDepositIdentity, type DepositIdentityRequest } from './deposit-identity.ts';

const master = new Uint8Array(workerData.depositMaster as Uint8Array);
// The tracking ids come drawn from the parent's generator: the thread derives, it draws nothing.
parentPort!.on('message', (req: DepositIdentityRequest & { trackingIds: string[] }) => {
  const identities = req.trackingIds.map((id) => deriveDepositIdentity(master, req.mint as Address, req.tokenProgram as Address, id));
  parentPort!.postMessage({ key: req.key, identities });
});
