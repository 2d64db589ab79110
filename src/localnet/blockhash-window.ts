import { createHash } from 'node:crypto';
import { getBase58Decoder } from '@solana/kit';
import { BLOCKHASH_VALID_BLOCKS } from './local-chain-types.ts';

const base58Decoder = getBase58Decoder();

/** Blockhashes are derived from the genesis hash and the slot, so they are stable across restarts. */
export function blockhashAt(genesisHash: string, slot: bigint): string {
  const h = createHash('sha256').update(genesisHash).update(slot.toString()).digest();
  return base58Decoder.decode(h);
}

/**
 * Blockhash → slot for the last 151 slots, kept up to date as slots advance: the 150-block window that
 * blockhash checks and duplicate detection use (LiteSVM only knows its latest blockhash).
 */
export class BlockhashWindow {
  private readonly slots = new Map<string, bigint>();

  fill(genesisHash: string, tip: bigint): void {
    this.slots.clear();
    const from = tip > BLOCKHASH_VALID_BLOCKS ? tip - BLOCKHASH_VALID_BLOCKS : 0n;
    for (let x = from; x <= tip; x++) this.slots.set(blockhashAt(genesisHash, x), x);
  }

  /** The chain moved to `tip`: its blockhash enters the window, the one that aged out leaves. */
  advance(genesisHash: string, tip: bigint): void {
    this.slots.set(blockhashAt(genesisHash, tip), tip);
    if (tip > BLOCKHASH_VALID_BLOCKS) this.slots.delete(blockhashAt(genesisHash, tip - BLOCKHASH_VALID_BLOCKS - 1n));
  }

  /** The slot a recent blockhash was produced in, or null when it is unknown or too old. */
  slotOf(blockhash: string, tip: bigint): bigint | null {
    const s = this.slots.get(blockhash);
    return s !== undefined && tip - s <= BLOCKHASH_VALID_BLOCKS ? s : null;
  }
}
