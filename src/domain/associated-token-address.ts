import type { Address } from '@solana/kit';
import { associatedTokenAddressSync } from './program-derived-address.ts';

/** Memoized ATA derivation: a PDA search runs curve math, and the same wallets come back all the time. */
const MAX = 50_000;
const atas = new Map<string, Address>();

export function associatedTokenAddress(owner: Address, mint: Address, tokenProgram: Address): Address {
  const key = `${owner}:${mint}:${tokenProgram}`;
  const hit = atas.get(key);
  if (hit) return hit;
  const ata = associatedTokenAddressSync(owner, mint, tokenProgram);
  if (atas.size >= MAX) atas.clear();
  atas.set(key, ata);
  return ata;
}
