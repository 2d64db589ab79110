/** The settlement tests' ground: assets, a chain client, funded wallets, and the shapes of a placed order. */
import {
  createSolanaRpc, generateKeyPairSigner, lamports, type Address, type KeyPairSigner, type Signature,
} from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { pollUntil, requestTokenAirdrop, type LocalRpc } from './localnet.ts';


export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address;
export const COMPUTE_BUDGET_PROGRAM = 'ComputeBudget111111111111111111111111111111';
export const MEMO_PROGRAMS = ['MemoSq4gqABAXKb96qnH8TysNcWxMyWCqXgDLGmfcHr', 'Memo1UhkJRfHyvLMcVucJwxXeuD728EqVDDwQDxFMNo'];
export const TOKEN_ACCOUNT_SIZE = 165n;
export const SOL = 1_000_000_000n;
export const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

export type AssetId = 'sol' | 'usdc' | 'bonk';

export interface AssetInfo {
  assetId: AssetId;
  mint: Address;
  decimals: number;
  native: boolean;
}

/** Transcribed from config/assets.json (the local chain seeds these mints). */
export const ASSETS: Readonly<Record<AssetId, AssetInfo>> = {
  sol: { assetId: 'sol', mint: 'So11111111111111111111111111111111111111112' as Address, decimals: 9, native: true },
  usdc: { assetId: 'usdc', mint: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' as Address, decimals: 6, native: false },
  bonk: { assetId: 'bonk', mint: 'DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263' as Address, decimals: 5, native: false },
};

/** A chain endpoint as the tests use it: kit RPC plus the URL (for the local faucet's custom method). */
export interface Chain {
  url: string;
  rpc: LocalRpc;
}

export function chainAt(url: string): Chain {
  return { url, rpc: createSolanaRpc(url) };
}

// ------------------------------------------------------------------------------------------ chain reads

export async function ataOf(owner: Address, mint: Address): Promise<Address> {
  const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM });
  return ata;
}

export async function lamportsOf(chain: Chain, address: Address): Promise<bigint> {
  return BigInt((await chain.rpc.getBalance(address, { commitment: 'confirmed' }).send()).value);
}

export async function accountExists(chain: Chain, address: Address): Promise<boolean> {
  const { value } = await chain.rpc.getAccountInfo(address, { commitment: 'confirmed', encoding: 'base64' }).send();
  return value !== null;
}

/** The owner's balance of an asset at `confirmed`: lamports for SOL, its associated token account's amount (null when it has none) otherwise. */
export async function balanceOf(chain: Chain, owner: Address, asset: AssetInfo): Promise<bigint | null> {
  if (asset.native) return lamportsOf(chain, owner);
  const ata = await ataOf(owner, asset.mint);
  const { value } = await chain.rpc.getAccountInfo(ata, { commitment: 'confirmed', encoding: 'base64' }).send();
  if (!value) return null;
  const data = Buffer.from(value.data[0], 'base64');
  return data.readBigUInt64LE(64);
}

export async function rentExempt(chain: Chain, size: bigint): Promise<bigint> {
  return BigInt(await chain.rpc.getMinimumBalanceForRentExemption(size).send());
}

// ------------------------------------------------------------------------------------------ wallets

/** A new wallet holding `sol` lamports and the given token amounts (through the local faucet), all confirmed. */
export async function newWallet(chain: Chain, opts: { sol?: bigint; tokens?: Partial<Record<AssetId, bigint>> } = {}): Promise<KeyPairSigner> {
  const w = await generateKeyPairSigner();
  const sigs: Signature[] = [];
  if (opts.sol) sigs.push(await chain.rpc.requestAirdrop(w.address, lamports(opts.sol)).send());
  for (const [id, amount] of Object.entries(opts.tokens ?? {})) {
    if (amount) sigs.push(await requestTokenAirdrop(chain.url, w.address, ASSETS[id as AssetId].mint, amount));
  }
  await waitForConfirmed(chain, sigs);
  return w;
}

/** Waits until every signature is confirmed (one getSignatureStatuses per 100 ms, not a tight loop). */
export async function waitForConfirmed(chain: Chain, signatures: string[], timeoutMs = 60_000): Promise<void> {
  await pollUntil(
    async () => {
      const { value } = await chain.rpc.getSignatureStatuses(signatures as Signature[]).send();
      return value.every((st) => st !== null && st.confirmationStatus !== 'processed' && st.err === null);
    },
    { timeoutMs, intervalMs: 100, what: `${signatures.length} transaction(s) confirmed` },
  );
}

// ------------------------------------------------------------------------------------------ orders

export interface QuoteReq {
  amount: string;
  sourceAssetId: AssetId;
  destinationAssetId: AssetId;
  senderAddress: Address;
  recipientAddress: Address;
  mode?: 'exact_in' | 'exact_out';
  /** The partner's privacy choice (docs/spec.md §9); it travels inside the quote, not in the order request. */
  privacy?: { minAnonymitySet: number } | { maxDelaySeconds: number };
}

export interface PlacedOrder {
  req: QuoteReq;
  quote: any;
  order: any;
  trackingId: string;
  amountIn: bigint;
  amountOut: bigint;
  networkFee: bigint;
  depositAccount: Address;
  depositOwner: Address;
}

/** USD per whole token, transcribed from config/assets.json, as exact fractions [numerator, denominator]. */
export const PRICE: Record<AssetId, [bigint, bigint]> = { sol: [150n, 1n], usdc: [1n, 1n], bonk: [2n, 100_000n] };

/** Lamports converted to base units of `asset`, rounded up (how networkFee is priced). */
export function lamportsIn(asset: AssetId, l: bigint): bigint {
  const [pn, pd] = PRICE[asset];
  const num = l * PRICE.sol[0] * pd * 10n ** BigInt(ASSETS[asset].decimals);
  const den = PRICE.sol[1] * pn * 10n ** 9n;
  return (num + den - 1n) / den;
}

/** The recipient's holding of the asset: the wallet for SOL, its associated token account otherwise. */
export async function holdingOf(recipient: Address, asset: AssetId): Promise<Address> {
  return ASSETS[asset].native ? recipient : ataOf(recipient, ASSETS[asset].mint);
}

/** A sender holding twice `amount` of the asset, and SOL for its fees. */
export async function fundSender(chain: Chain, asset: AssetId, amount: bigint): Promise<KeyPairSigner> {
  return asset === 'sol' ? newWallet(chain, { sol: amount * 2n + SOL }) : newWallet(chain, { sol: SOL, tokens: { [asset]: amount * 2n } });
}
