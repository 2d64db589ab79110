/**
 * Worker thread of DepositIdentities: derives deposit identities (trackingId, one-time owner, its token
 * account) off the request thread. The owner's public key and the token account's PDA search are most of
 * an order's CPU; here they run on another core ahead of demand.
 */
import { parentPort } from 'node:worker_threads';
import type { Address } from '@solana/kit';
import { deriveDepositIdentity, type DepositIdentityRequest } from './deposit-identity.ts';

// One thread per process, shared by its DepositIdentities: each request carries its owner's number and master
// key. The tracking ids come drawn from the parent's generator: the thread derives, it draws nothing.
parentPort!.on('message', (req: DepositIdentityRequest & { owner: number; master: Uint8Array; trackingIds: string[] }) => {
  const identities = req.trackingIds.map((id) => deriveDepositIdentity(req.master, req.mint as Address, req.tokenProgram as Address, id));
  parentPort!.postMessage({ owner: req.owner, key: req.key, identities });
});
