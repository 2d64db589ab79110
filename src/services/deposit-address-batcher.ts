import type { Queryable } from '../store/db.ts';
import { depositAddressesAmong } from '../store/deposit-addresses.ts';

interface Pending {
  addresses: string[];
  resolve(found: Set<string>): void;
  reject(e: unknown): void;
}

/**
 * Order creation's deposit-address lookup (address-rules.ts refuseDepositAddresses), one statement for the
 * orders that arrive together instead of one per order (issue 56). Under load it was the order path's most
 * frequent statement (one per order, ~1.2 ms each on PGlite, which runs one statement at a time): the
 * orders of one event-loop turn now share one `unnest` lookup of all their addresses, and each order is
 * judged on its own addresses only, so the rule is the one it was. In-flight lookups stay bounded (as the
 * order insert batcher's); a failed lookup fails every order of its batch, as it failed the one before.
 */
export class DepositAddressBatcher {
  private queue: Pending[] = [];
  private running = 0;
  private scheduled = false;

  constructor(
    private readonly db: Queryable,
    private readonly maxInFlight: number,
    /** Addresses per statement: a bound on one lookup's size (three per order at most). */
    private readonly maxAddresses = 1024,
  ) {}

  /** Which of `addresses` is some order's deposit owner or deposit account. */
  among(addresses: string[]): Promise<Set<string>> {
    if (addresses.length === 0) return Promise.resolve(new Set());
    return new Promise((resolve, reject) => {
      this.queue.push({ addresses, resolve, reject });
      if (this.scheduled) return;
      this.scheduled = true;
      // After the current I/O phase, like OrderInsertBatcher.schedule: the orders that arrived together share a lookup.
      setImmediate(() => {
        this.scheduled = false;
        this.pump();
      });
    });
  }

  private pump(): void {
    while (this.running < this.maxInFlight && this.queue.length > 0) {
      const batch: Pending[] = [];
      let size = 0;
      while (this.queue.length > 0 && (batch.length === 0 || size + this.queue[0]!.addresses.length <= this.maxAddresses)) {
        const p = this.queue.shift()!;
        size += p.addresses.length;
        batch.push(p);
      }
      this.running++;
      void this.run(batch).finally(() => {
        this.running--;
        this.pump();
      });
    }
  }

  private async run(batch: Pending[]): Promise<void> {
    try {
      const found = await depositAddressesAmong(this.db, [...new Set(batch.flatMap((p) => p.addresses))]);
      for (const p of batch) p.resolve(found);
    } catch (e) {
      for (const p of batch) p.reject(e);
    }
  }
}
