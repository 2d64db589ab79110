import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

/** An asset partners can send or receive (GET /tokens). Amount bounds in base units. */
export interface Asset {
  readonly assetId: string;
  readonly symbol: string;
  readonly name: string;
  readonly decimals: number;
  readonly mint: string;
  readonly tokenProgram: string;
  readonly native: boolean;
  readonly swappable: boolean;
  readonly min: bigint;
  readonly max: bigint;
  /** Decimal string, USD per whole token: the embedded price source. */
  readonly referencePriceUsd: string;
}

export interface AssetRegistry {
  readonly list: readonly Asset[];
  get(assetId: string): Asset | undefined;
  byMint(mint: string): Asset | undefined;
}

const DEFAULT_PATH = fileURLToPath(new URL('../../config/assets.json', import.meta.url));

export function loadAssets(path = DEFAULT_PATH): AssetRegistry {
  const raw = JSON.parse(readFileSync(path, 'utf8')) as { assets: (Omit<Asset, 'min' | 'max'> & { min: string; max: string })[] };
  const list = raw.assets.map((a) => Object.freeze({ ...a, min: BigInt(a.min), max: BigInt(a.max) }));
  const byId = new Map(list.map((a) => [a.assetId, a]));
  const byMint = new Map(list.map((a) => [a.mint, a]));
  return { list, get: (id) => byId.get(id), byMint: (m) => byMint.get(m) };
}
