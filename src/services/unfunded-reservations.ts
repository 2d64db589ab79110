/** One order's promise, taken in memory when it is created and given up if it is never stored. */
export interface Reservation {
  readonly assetId: string;
  readonly accountId: string;
  readonly amount: bigint;
}

export interface ReservationsSnapshot {
  /** Per asset, per account: amountOut of unfunded orders in their reservation window. */
  reserved: Map<string, Map<string, bigint>>;
  /** Per account: open unfunded orders and when the first of them expires. */
  open: Map<string, { count: number; firstExpiration: Date }>;
}

/**
 * What unfunded orders promise, per account: the store's snapshot (read by the inventory refresh) plus
 * the reservations it may not show yet. A reservation counts from the moment its order is accepted, so
 * the next order of the same account sees it at once; until the order is stored, every refresh counts it
 * itself (its store read may not see the order), and one given up is taken back exactly once.
 */
export class UnfundedReservations {
  private reserved = new Map<string, Map<string, bigint>>();
  private open = new Map<string, { count: number; firstExpiration: Date | null }>();
  /** Reservations whose order is neither stored nor given up yet. */
  private readonly unstored = new Set<Reservation>();
  /** One per store read in flight: the reservations it may not see (unstored at its start, or taken since). */
  private readonly reading = new Set<Set<Reservation>>();

  /** Before a refresh reads the store; pass the result to `replace` or `endRead`. */
  beginRead(): Set<Reservation> {
    const taken = new Set(this.unstored);
    this.reading.add(taken);
    return taken;
  }

  endRead(taken: Set<Reservation>): void {
    this.reading.delete(taken);
  }

  /** The store's snapshot, plus what its read may have missed (counted twice at worst, until the next read). */
  replace(snapshot: ReservationsSnapshot, taken: Set<Reservation>): void {
    this.endRead(taken);
    this.reserved = new Map([...snapshot.reserved].map(([asset, byAccount]) => [asset, new Map(byAccount)]));
    this.open = new Map([...snapshot.open].map(([account, o]) => [account, { ...o }]));
    for (const r of taken) this.apply(r, 1);
  }

  add(r: Reservation): void {
    this.apply(r, 1);
    this.unstored.add(r);
    for (const taken of this.reading) taken.add(r);
  }

  /** The order was not created: its promise goes, once. */
  release(r: Reservation): void {
    if (!this.unstored.delete(r)) return;
    this.apply(r, -1);
    for (const taken of this.reading) taken.delete(r);
  }

  /** The order is in the store: reads starting from now see it there. */
  stored(r: Reservation): void {
    this.unstored.delete(r);
  }

  /** Per account, what its unfunded orders reserve of an asset. */
  reservedOf(assetId: string): ReadonlyMap<string, bigint> {
    return this.reserved.get(assetId) ?? new Map();
  }

  openOrders(accountId: string): { count: number; firstExpiration: Date | null } {
    return this.open.get(accountId) ?? { count: 0, firstExpiration: null };
  }

  private apply(r: Reservation, sign: 1 | -1): void {
    const byAccount = this.reserved.get(r.assetId) ?? new Map<string, bigint>();
    const amount = (byAccount.get(r.accountId) ?? 0n) + BigInt(sign) * r.amount;
    if (amount > 0n) byAccount.set(r.accountId, amount);
    else byAccount.delete(r.accountId);
    this.reserved.set(r.assetId, byAccount);
    const o = this.open.get(r.accountId) ?? { count: 0, firstExpiration: null };
    const count = o.count + sign;
    if (count > 0) this.open.set(r.accountId, { count, firstExpiration: o.firstExpiration });
    else this.open.delete(r.accountId);
  }
}
