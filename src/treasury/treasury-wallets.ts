import type { Address } from '@solana/kit';
import type { Queryable } from '../store/db.ts';
import { readDepositRecordKey, readTreasuryWallets, type PublishedWallet } from '../store/treasury-wallets-store.ts';

/** A pool wallet as anyone may know it: its address and where its funds sit, never its key. */
export interface PublicPool {
  assetId: string;
  index: number;
  address: Address;
  holding: Address;
}

/**
 * The addresses of Hush's own wallets, which quotes, inventory, reconciliation and the address rules need.
 * The signing Treasury (roles worker and all) is one; role api reads the set a worker published.
 */
export interface TreasuryWallets {
  readonly feePayer: { readonly address: Address };
  /** The public key each deposit's record is sealed to (deposit-record-box.ts): its secret is the seed's. */
  readonly depositRecordKey: Uint8Array;
  pools(assetId: string): PublicPool[];
  allPools(): PublicPool[];
  poolByHolding(holding: string): PublicPool | undefined;
  /** Resolves once the addresses are known (at once for a Treasury holding the keys). */
  loaded(): Promise<void>;
}

/** The wallets as published (src/store/treasury-wallets-store.ts), for a worker to write. */
export function publishedWalletsOf(t: Pick<TreasuryWallets, 'feePayer' | 'allPools'>): PublishedWallet[] {
  const fp = t.feePayer.address;
  return [
    { role: 'feepayer', assetId: 'sol', index: 0, address: fp, holding: fp },
    ...t.allPools().map((p) => ({ role: 'pool' as const, assetId: p.assetId, index: p.index, address: p.address, holding: p.holding })),
  ];
}

export class WalletsNotPublishedError extends Error {
  constructor() {
    super("no worker has published the treasury's addresses to the store yet");
  }
}

/**
 * Role api: the addresses a worker published to the store, read until they are there (every `loaded()`
 * asks the store again until then; Inventory calls it on each refresh). The API never derives them: it
 * holds no seed. A worker that starts with another seed publishes a new set; APIs read theirs at start.
 */
export class PublishedTreasuryWallets implements TreasuryWallets {
  private fp: Address | null = null;
  private recordKey: Uint8Array | null = null;
  private byAsset = new Map<string, PublicPool[]>();
  private readonly onLoad: (() => void)[] = [];

  constructor(private readonly db: Queryable) {}

  /** Runs `f` once the addresses are known (at once if they are). */
  whenLoaded(f: () => void): void {
    if (this.fp) f();
    else this.onLoad.push(f);
  }

  async loaded(): Promise<void> {
    if (this.fp) return;
    const [rows, recordKey] = await Promise.all([readTreasuryWallets(this.db), readDepositRecordKey(this.db)]);
    const fp = rows.find((r) => r.role === 'feepayer');
    if (!fp || !recordKey) throw new WalletsNotPublishedError();
    this.recordKey = recordKey;
    const byAsset = new Map<string, PublicPool[]>();
    for (const r of rows) {
      if (r.role !== 'pool') continue;
      const list = byAsset.get(r.assetId) ?? [];
      list.push({ assetId: r.assetId, index: r.index, address: r.address, holding: r.holding });
      byAsset.set(r.assetId, list);
    }
    this.byAsset = byAsset;
    this.fp = fp.address;
    for (const f of this.onLoad.splice(0)) f();
  }

  get feePayer(): { address: Address } {
    if (!this.fp) throw new WalletsNotPublishedError();
    return { address: this.fp };
  }

  get depositRecordKey(): Uint8Array {
    if (!this.recordKey) throw new WalletsNotPublishedError();
    return this.recordKey;
  }

  pools(assetId: string): PublicPool[] {
    return this.byAsset.get(assetId) ?? [];
  }

  allPools(): PublicPool[] {
    return [...this.byAsset.values()].flat();
  }

  poolByHolding(holding: string): PublicPool | undefined {
    return this.allPools().find((p) => p.holding === holding);
  }
}
