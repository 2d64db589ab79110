import { address, type Address } from '@solana/kit';

/** Tokens the local chain creates at first start, at their mainnet mint addresses so mainnet code works unchanged. */
export interface SeedToken {
  readonly symbol: string;
  readonly mint: Address;
  readonly decimals: number;
}

export const SEED_TOKENS: readonly SeedToken[] = [
  { symbol: 'USDC', mint: address('EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v'), decimals: 6 },
  { symbol: 'USDT', mint: address('Es9vMFrzaCERmJfrF4H2FYD4KCoNkY11McCe8BenwNYB'), decimals: 6 },
  { symbol: 'BONK', mint: address('DezXAZ8z7PnrnRJjz3wXBoRgixCa6xjnB7YaB1pPB263'), decimals: 5 },
];

/** Lamports the faucet starts with: enough for any local workload (500 million SOL). */
export const FAUCET_LAMPORTS = 500_000_000n * 1_000_000_000n;
