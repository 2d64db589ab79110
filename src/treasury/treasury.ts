import type { Address, KeyPairSigner } from '@solana/kit';
import type { Asset, AssetRegistry } from '../config/assets.ts';
import { associatedTokenAddress } from '../domain/associated-token-address.ts';
import { TreasuryKeys } from './treasury-keys.ts';
import { depositRecordPublicKey } from './deposit-record-box.ts';
import type { TreasuryWallets } from './treasury-wallets.ts';

/** Pool wallets per asset (what funding targets multiply). */
export const POOLS_PER_ASSET = 4;

export interface PoolWallet {
  assetId: string;
  index: number;
  signer: KeyPairSigner;
  address: Address;
  /** Where the pool's funds sit: the wallet itself for SOL, its associated token account otherwise. */
  holding: Address;
}

/**
 * Hush's wallets, all derived from the treasury seed: one fee payer for every Hush transaction and N
 * pool wallets per asset. Signers are created once (WebCrypto key import is slow); per-order deposit
 * owners are derived on demand.
 */
export class Treasury implements TreasuryWallets {
  /**
   * The seeds rotated away from (docs/operations.md "Rotate the treasury seed"): their orders' deposit owners still
   * sign sweeps and refunds, their records still open, and their wallets are drained into this one's.
   */
  retired: readonly Treasury[] = [];

  private constructor(
    readonly keys: TreasuryKeys,
    readonly feePayer: KeyPairSigner,
    private readonly poolsByAsset: Map<string, PoolWallet[]>,
  ) {}

  /** This seed's treasury, holding `retired` (each loaded like it) for a rotation. */
  static async withRetired(keys: TreasuryKeys, retired: readonly TreasuryKeys[], assets: AssetRegistry, poolsPerAsset = POOLS_PER_ASSET): Promise<Treasury> {
    const t = await Treasury.load(keys, assets, poolsPerAsset);
    t.retired = await Promise.all(retired.map((k) => Treasury.load(k, assets, poolsPerAsset)));
    return t;
  }

  static async load(keys: TreasuryKeys, assets: AssetRegistry, poolsPerAsset = POOLS_PER_ASSET): Promise<Treasury> {
    const feePayer = await TreasuryKeys.signer(keys.feePayerSeed());
    const pools = new Map<string, PoolWallet[]>();
    for (const [assetIndex, asset] of assets.list.entries()) {
      const list: PoolWallet[] = [];
      for (let n = 0; n < poolsPerAsset; n++) {
        const signer = await TreasuryKeys.signer(keys.poolSeed(assetIndex, n));
        list.push({ assetId: asset.assetId, index: n, signer, address: signer.address, holding: await holdingOf(signer.address, asset) });
      }
      pools.set(asset.assetId, list);
    }
    return new Treasury(keys, feePayer, pools);
  }

  private recordPublic: Uint8Array | null = null;

  get depositRecordKey(): Uint8Array {
    return (this.recordPublic ??= depositRecordPublicKey(this.keys.depositRecordSecret));
  }

  /** The keys are here, so the addresses are known. */
  async loaded(): Promise<void> {}

  pools(assetId: string): PoolWallet[] {
    return this.poolsByAsset.get(assetId) ?? [];
  }

  allPools(): PoolWallet[] {
    return [...this.poolsByAsset.values()].flat();
  }

  poolByHolding(holding: string): PoolWallet | undefined {
    return this.allPools().find((p) => p.holding === holding);
  }

  /**
   * The signer of an order's deposit owner. With a retired seed held, `depositOwner` (the order's) tells which seed
   * derived it: an order placed before the rotation keeps its owner. Without it, or matching none, this seed's.
   */
  depositSigner(trackingId: string, depositOwner?: string): Promise<KeyPairSigner> {
    const seed = depositOwner === undefined || this.retired.length === 0 ? this : (this.seeds().find((t) => t.keys.depositOwnerAddress(trackingId) === depositOwner) ?? this);
    return TreasuryKeys.signer(seed.keys.depositOwnerSeed(trackingId));
  }

  /** This seed and the retired ones, this first. */
  seeds(): Treasury[] {
    return [this, ...this.retired];
  }

  /** A pool of a retired seed by where its funds sit. */
  retiredPool(holding: string): PoolWallet | undefined {
    for (const t of this.retired) {
      const p = t.poolByHolding(holding);
      if (p) return p;
    }
    return undefined;
  }
}

export async function holdingOf(wallet: Address, asset: Asset): Promise<Address> {
  return asset.native ? wallet : associatedTokenAddress(wallet, asset.mint, asset.tokenProgram);
}
