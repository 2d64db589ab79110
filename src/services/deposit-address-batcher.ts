import type { Queryable } from '../store/db.ts';
import { depositAddressesAmong } from '../store/deposit-addresses.ts';
import { GroupCommit, type Queued } from '../support/group-commit.ts';

/**
 * Order creation's deposit-address lookup (address-rules.ts refuseDepositAddresses), one statement for the
 * orders that arrive together instead of one per order (issue 56). Under load it was the order path's most
 * frequent statement (one per order, ~1.2 ms each on PGlite, which runs one statement at a time): the
 * orders of one event-loop turn now share one `unnest` lookup of all their addresses, and each order is
 * judged on its own addresses only, so the rule is the one it was. In-flight lookups stay bounded (as the
 * order insert batcher's); a failed lookup fails every order of its batch, as it failed the one before.
 */
export class DepositAddressBatcher extends GroupCommit<string[], Set<string>> {
  constructor(
    private readonly db: Queryable,
    maxInFlight: number,
    /** Addresses per statement: a bound on one lookup's size (three per order at most). */
    private readonly maxAddresses = 1024,
  ) {
    super(maxInFlight);
  }

  /** Which of `addresses` is some order's deposit owner or deposit account. */
  among(addresses: string[]): Promise<Set<string>> {
    if (addresses.length === 0) return Promise.resolve(new Set());
    return this.submit(addresses);
  }

  protected take(): Queued<string[], Set<string>>[] {
    const batch: Queued<string[], Set<string>>[] = [];
    let size = 0;
    while (this.queue.length > 0 && (batch.length === 0 || size + this.queue[0]!.item.length <= this.maxAddresses)) {
      const p = this.queue.shift()!;
      size += p.item.length;
      batch.push(p);
    }
    return batch;
  }

  protected async run(batch: Queued<string[], Set<string>>[]): Promise<void> {
    try {
      const found = await depositAddressesAmong(this.db, [...new Set(batch.flatMap((p) => p.item))]);
      for (const p of batch) p.resolve(found);
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }
}
