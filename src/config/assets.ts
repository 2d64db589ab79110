import { readFileSync } from 'node:fs';
import { address, type Address } from '@solana/kit';
import { fileURLToPath } from 'node:url';
import { denominationsFor, type DenominationMenu } from '../domain/denomination-menu.ts';

/** An asset partners can send or receive (GET /tokens). Amount bounds in base units. */
export interface Asset {
  readonly assetId: string;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  readonly mint: Address;
  readonly tokenProgram: Address;
  readonly native: boolean;
  readonly swappable: boolean;
  readonly min: bigint;
  readonly max: bigint;
  /** Decimal string, USD per whole token: the embedded price source. */
  readonly referencePriceUsd: string;
  /** Standard (private) amounts under the configured menu (docs/spec.md §9), ascending, within min..max; may be empty. */
  readonly denominations: readonly bigint[];
  /** Swap payouts into this asset are rounded down to a multiple of it (docs/spec.md §4, §9); 1 = no grid. */
  readonly swapGrid: bigint;
}

export interface AssetRegistry {
  readonly list: readonly Asset[];
  get(assetId: string): Asset | undefined;
  byMint(mint: string): Asset | undefined;
}

const DEFAULT_PATH = fileURLToPath(new URL('../../config/assets.json', import.meta.url));

type RawAsset = Omit<Asset, 'mint' | 'tokenProgram' | 'min' | 'max' | 'denominations' | 'swapGrid'> & {
  mint: string;
  tokenProgram: string;
  min: string;
  max: string;
  denominations?: string[];
  swapGrid?: string;
};

function parseAsset(a: RawAsset, menu: DenominationMenu): Asset {
  const min = BigInt(a.min);
  const max = BigInt(a.max);
  const denominations = (a.denominations ?? []).map((d) => BigInt(d));
  const swapGrid = BigInt(a.swapGrid ?? '1');
  // A bad asset file is an operator's mistake: refuse to start rather than quote nonsense.
  denominations.forEach((d, i) => {
    if (d < min || d > max || (i > 0 && d <= denominations[i - 1]!)) {
      throw new Error(`config: ${a.assetId} denominations must ascend within min..max (${a.min}..${a.max}), got ${d}`);
    }
  });
  if (swapGrid < 1n) throw new Error(`config: ${a.assetId} swapGrid must be at least 1`);
  const menuAmounts = denominationsFor(menu, { min, max }, denominations);
  return Object.freeze({ ...a, mint: addressOf(a, 'mint'), tokenProgram: addressOf(a, 'tokenProgram'), min, max, denominations: Object.freeze(menuAmounts), swapGrid });
}

/** An address of the asset file, checked once here so that nothing downstream casts it. */
function addressOf(a: RawAsset, field: 'mint' | 'tokenProgram'): Address {
  try {
    return address(a[field]);
  } catch {
    throw new Error(`config: ${a.assetId} ${field} is not a Solana address, got "${a[field]}"`);
  }
}

/** The asset file, with each asset's private amounts taken from `menu` (HUSH_DENOMINATIONS; `list`: the file's own lists). */
export function loadAssets(path = DEFAULT_PATH, menu: DenominationMenu = 'decade'): AssetRegistry {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { assets: RawAsset[] };
  const list = raw.assets.map((a) => parseAsset(a, menu));
  const byId = new Map(list.map((a) => [a.assetId, a]));
  const byMint = new Map<string, Asset>(list.map((a) => [a.mint, a]));
  return { list, get: (id) => byId.get(id), byMint: (m) => byMint.get(m) };
}
