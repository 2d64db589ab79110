import type { Address, KeyPairSigner } from '@solana/kit';
import type { Asset, AssetRegistry } from '../config/assets.ts';
import { associatedTokenAddress } from '../domain/associated-token-address.ts';
import { TreasuryKeys } from './treasury-keys.ts';
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
  private constructor(
    readonly keys: TreasuryKeys,
    readonly feePayer: KeyPairSigner,
    private readonly poolsByAsset: Map<string, PoolWallet[]>,
  ) {}

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

  depositSigner(trackingId: string): Promise<KeyPairSigner> {
    return TreasuryKeys.signer(this.keys.depositOwnerSeed(trackingId));
  }
}

export async function holdingOf(wallet: Address, asset: Asset): Promise<Address> {
  return asset.native ? wallet : associatedTokenAddress(wallet, asset.mint, asset.tokenProgram);
}
