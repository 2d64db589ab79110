import { HushSdkError } from './errors.ts';
import { getBase64Encoder, type Address, type GetAccountInfoApi, type GetBalanceApi, type GetMinimumBalanceForRentExemptionApi, type Rpc } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import type { Quote, Token } from './types.ts';
import { DEFAULT_MAX_COMPUTE_UNIT_LIMIT, DEFAULT_MAX_COMPUTE_UNIT_PRICE } from './verify-deposit.ts';

/** One signature's base fee, lamports (the deposit has one signer, the sender). */
export const BASE_FEE_LAMPORTS = 5_000n;
/**
 * The most priority fee a deposit the SDK signs can cost: the verifier's caps (compute unit limit × price),
 * so the bound holds for every transaction signAndSend accepts, whatever Hush asks for.
 */
export const MAX_PRIORITY_FEE_LAMPORTS = (BigInt(DEFAULT_MAX_COMPUTE_UNIT_LIMIT) * DEFAULT_MAX_COMPUTE_UNIT_PRICE + 999_999n) / 1_000_000n;

const TOKEN_2022 = 'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb';
/** The deposit account the sender creates and pays rent for: a token account (Token-2022's ATA adds ImmutableOwner). */
const depositAccountBytes = (tokenProgram: string) => (tokenProgram === TOKEN_2022 ? 170n : 165n);

export type FundsRpc = Rpc<GetBalanceApi & GetAccountInfoApi & GetMinimumBalanceForRentExemptionApi>;

/** What the sender must hold for one deposit, what it holds, and what is short (empty when it can pay). */
export interface SenderFunds {
  /** Lamports: fees (bound) + the deposit account's rent, + the amount when the asset is SOL. */
  needLamports: bigint;
  haveLamports: bigint;
  /** Base units of the source token (null for SOL: counted in lamports). */
  needTokens: bigint | null;
  haveTokens: bigint | null;
  /** Each of those fees and rent, for the message. */
  feesLamports: bigint;
  rentLamports: bigint;
  shortfalls: string[];
}

/** The sender cannot pay for the deposit (`code` INSUFFICIENT_FUNDS); `funds` says what is missing. */
export class InsufficientFundsError extends HushSdkError {
  override readonly name = 'InsufficientFundsError';
  constructor(
    readonly sender: string,
    readonly funds: SenderFunds,
    options?: { cause?: unknown },
  ) {
    super('INSUFFICIENT_FUNDS', `the sender ${sender} cannot pay for this deposit: ${funds.shortfalls.join('; ')}`, options);
  }
}

/**
 * Whether `sender` can pay a deposit of `quote.amountIn` of `asset`, read off the chain before an order
 * exists: the tokens (its associated token account) and the SOL for the fee (the base fee plus the
 * priority fee bound, MAX_PRIORITY_FEE_LAMPORTS) and the rent of the one-time deposit account it creates.
 * A conservative bound: it may ask for up to about 0.0002 SOL more than the transaction Hush issues costs.
 */
export async function senderFunds(rpc: FundsRpc, sender: string, quote: Pick<Quote, 'amountIn'>, asset: Pick<Token, 'assetId' | 'symbol' | 'mint' | 'tokenProgram' | 'native'>): Promise<SenderFunds> {
  const amount = BigInt(quote.amountIn);
  const [{ value: haveLamports }, rentLamports, haveTokens] = await Promise.all([
    rpc.getBalance(sender as Address, { commitment: 'confirmed' }).send(),
    rpc.getMinimumBalanceForRentExemption(depositAccountBytes(asset.tokenProgram)).send(),
    asset.native ? Promise.resolve(null) : tokenBalance(rpc, sender, asset),
  ]);
  const feesLamports = BASE_FEE_LAMPORTS + MAX_PRIORITY_FEE_LAMPORTS;
  const needLamports = feesLamports + rentLamports + (asset.native ? amount : 0n);
  const needTokens = asset.native ? null : amount;
  const shortfalls: string[] = [];
  if (needTokens !== null && haveTokens !== null && haveTokens < needTokens) {
    shortfalls.push(`it holds ${haveTokens} base units of ${asset.symbol}, the deposit is ${needTokens}`);
  }
  if (haveLamports < needLamports) {
    const parts = `${asset.native ? `the amount ${amount} + ` : ''}fees ≤ ${feesLamports} + the deposit account's rent ${rentLamports}`;
    shortfalls.push(`it holds ${haveLamports} lamports of SOL, the deposit needs up to ${needLamports} (${parts})`);
  }
  return { needLamports, haveLamports, needTokens, haveTokens, feesLamports, rentLamports, shortfalls };
}

/** senderFunds, throwing InsufficientFundsError when anything is short. */
export async function assertSenderCanPay(rpc: FundsRpc, sender: string, quote: Pick<Quote, 'amountIn'>, asset: Pick<Token, 'assetId' | 'symbol' | 'mint' | 'tokenProgram' | 'native'>): Promise<SenderFunds> {
  const funds = await senderFunds(rpc, sender, quote, asset);
  if (funds.shortfalls.length > 0) throw new InsufficientFundsError(sender, funds);
  return funds;
}

/** The sender's associated token account's amount (bytes 64..72 of the account, both token programs); 0 without one. */
async function tokenBalance(rpc: FundsRpc, owner: string, asset: Pick<Token, 'mint' | 'tokenProgram'>): Promise<bigint> {
  const [ata] = await findAssociatedTokenPda({ owner: owner as Address, mint: asset.mint as Address, tokenProgram: asset.tokenProgram as Address });
  const { value } = await rpc.getAccountInfo(ata, { encoding: 'base64', commitment: 'confirmed' }).send();
  if (!value) return 0n;
  const bytes = getBase64Encoder().encode(value.data[0]);
  if (bytes.length < 72) return 0n;
  return new DataView(bytes.buffer, bytes.byteOffset + 64, 8).getBigUint64(0, true);
}
