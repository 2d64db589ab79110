import type { Address } from '@solana/kit';
import { HushError } from '../domain/errors.ts';
import type { Db } from '../store/db.ts';
import { claimDepositIdentities, type StoredDepositIdentity } from '../store/deposit-identities-store.ts';

/** Identities claimed from the store per statement: one round trip serves this many orders of an asset. */
const CLAIM_BATCH = 32;
/** Below this many in hand, the next batch is claimed in the background, off the order's path. */
const LOW_WATER = 8;

/**
 * The API's side of deposit identities (docs/spec.md §10, key custody): it holds no deposit master, so it
 * claims identities a worker derived into the store, a batch at a time (DELETE … RETURNING, rows another
 * process is claiming skipped): no two orders, in any process, get the same one. Identities in hand when
 * the process ends are simply never used. An empty pool refuses the order 503 SERVICE_UNAVAILABLE.
 */
export class DepositIdentityPool {
  private readonly inHand = new Map<string, StoredDepositIdentity[]>();
  private readonly claiming = new Map<string, Promise<number>>();
  /** Orders of an asset waiting for a claim: the next claim takes enough for all of them. */
  private readonly waiting = new Map<string, number>();

  constructor(
    private readonly db: Db,
    private readonly batch = CLAIM_BATCH,
  ) {}

  async take(mint: Address, tokenProgram: Address): Promise<StoredDepositIdentity> {
    const key = `${mint}:${tokenProgram}`;
    for (;;) {
      const q = this.inHand.get(key);
      const id = q?.pop();
      if (id) {
        if (q!.length < LOW_WATER) void this.claim(key, mint, tokenProgram).catch(() => {});
        return id;
      }
      // A burst larger than a batch waits for the next claim; only a claim that finds none refuses.
      this.waiting.set(key, (this.waiting.get(key) ?? 0) + 1);
      let got: number;
      try {
        got = await this.claim(key, mint, tokenProgram);
      } finally {
        this.waiting.set(key, this.waiting.get(key)! - 1);
      }
      if (got === 0 && !this.inHand.get(key)?.length) {
        throw new HushError('SERVICE_UNAVAILABLE', 'No deposit account is ready for this asset right now; retry shortly', undefined, { retryAfterSeconds: 1 });
      }
    }
  }

  /** One claim per asset at a time: concurrent orders wait for the same batch. Resolves to how many it got. */
  private claim(key: string, mint: Address, tokenProgram: Address): Promise<number> {
    const running = this.claiming.get(key);
    if (running) return running;
    const n = Math.max(this.batch, (this.waiting.get(key) ?? 0) + LOW_WATER);
    const p = claimDepositIdentities(this.db, mint, tokenProgram, n)
      .then((ids) => {
        const q = this.inHand.get(key) ?? [];
        q.unshift(...ids);
        this.inHand.set(key, q);
        return ids.length;
      })
      .finally(() => this.claiming.delete(key));
    this.claiming.set(key, p);
    return p;
  }
}
