import { NONCE_BYTES } from '../domain/quote-mac.ts';
import type { Random } from '../support/random.ts';

/** Drawn this many at a time: one call to the generator per 512 quotes instead of per quote. */
const POOL_BYTES = 4096;

/** The quotes' nonces (issueQuote), cut from a pool refilled from `random`. */
export class QuoteNonces {
  private pool: Buffer = Buffer.alloc(0);
  private at = 0;

  constructor(private readonly random: Random) {}

  next(): Uint8Array {
    if (this.at + NONCE_BYTES > this.pool.length) {
      this.pool = this.random.bytes(POOL_BYTES);
      this.at = 0;
    }
    const out = Uint8Array.prototype.slice.call(this.pool, this.at, this.at + NONCE_BYTES);
    this.at += NONCE_BYTES;
    return out;
  }
}
