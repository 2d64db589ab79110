import { Account, LiteSvm } from 'litesvm/dist/internal.js';
import { address, getAddressEncoder, type Address } from '@solana/kit';
import { FAUCET_LAMPORTS, SEED_TOKENS } from './seed-tokens.ts';
import { encodeMint, MINT_SIZE, TOKEN_PROGRAM } from './token-accounts.ts';

const addressEncoder = getAddressEncoder();
const bytesOf = (a: Address) => addressEncoder.encode(a) as Uint8Array;

/** A new chain's runtime: the default programs, the faucet's SOL, and the seeded mints with the faucet as their authority. */
export function genesisRuntime(faucet: Address): LiteSvm {
  const svm = new LiteSvm();
  svm.setDefaultPrograms();
  svm.withNativeMints();
  svm.setAccount(bytesOf(faucet), new Account(FAUCET_LAMPORTS, new Uint8Array(0), bytesOf(address('11111111111111111111111111111111')), false, 0n));
  const rent = svm.minimumBalanceForRentExemption(BigInt(MINT_SIZE));
  for (const t of SEED_TOKENS) {
    const data = encodeMint({ mintAuthority: faucet, supply: 0n, decimals: t.decimals, freezeAuthority: null }, bytesOf);
    svm.setAccount(bytesOf(t.mint), new Account(rent, data, bytesOf(TOKEN_PROGRAM), false, 0n));
  }
  return svm;
}
