import type { Address, Instruction } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenInstruction, getSyncNativeInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { compileMessage, wireTransaction } from '../src/chain/fast-transaction.ts';
import { associatedTokenAddress } from '../src/domain/associated-token-address.ts';
import { sign } from 'node:crypto';
import bs58 from 'bs58';
import type { Clock } from '../src/support/clock.ts';
import type { ChainWire } from './chain-wire.ts';
import type { SimWallet } from './wallets.ts';

export const TOKEN_PROGRAM = 'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA' as Address;
export const MINTS = { sol: 'So11111111111111111111111111111111111111112', usdc: 'EPjFWdd5AufqSSqeM2qN1xzybapC8G4wEGGkZwyTDt1v' } as const;
export const DECIMALS = { sol: 9, usdc: 6 } as const;

/** A JSON-RPC error the chain answered (not a transport failure: users reach the chain without faults). */
export class ChainRefused extends Error {}

/**
 * What users do on the chain, without Hush: fund a wallet from the faucet, send a signed transaction, read a
 * balance. They reach the chain directly (their own RPC provider is not Hush's, and the fault plan is Hush's).
 */
export class ChainUsers {
  private ids = 0;

  constructor(private readonly wire: ChainWire) {}

  async call<T>(method: string, params: unknown[]): Promise<T> {
    const answer = (await this.wire.direct(JSON.stringify({ jsonrpc: '2.0', id: ++this.ids, method, params }))) as { result?: T; error?: { message: string } };
    if (answer.error) throw new ChainRefused(`${method}: ${answer.error.message}`);
    return answer.result as T;
  }

  airdrop(to: string, lamports: bigint): Promise<string> {
    return this.call('requestAirdrop', [to, Number(lamports), { commitment: 'confirmed' }]);
  }

  tokenAirdrop(owner: string, mint: string, amount: bigint): Promise<string> {
    return this.call('localnet_requestTokenAirdrop', [owner, mint, amount.toString()]);
  }

  send(wire: string): Promise<string> {
    return this.call('sendTransaction', [wire, { encoding: 'base64', preflightCommitment: 'processed' }]);
  }

  /** Waits (simulated time) until the transaction is confirmed, a minute at most. */
  async confirmed(signature: string, clock: Pick<Clock, 'sleep'>): Promise<boolean> {
    for (let i = 0; i < 150; i++) {
      const { value } = await this.call<{ value: ({ confirmationStatus: string } | null)[] }>('getSignatureStatuses', [[signature]]);
      if (value[0] && value[0].confirmationStatus !== 'processed') return true;
      await clock.sleep(400);
    }
    return false;
  }

  async blockhash(): Promise<string> {
    return (await this.call<{ value: { blockhash: string } }>('getLatestBlockhash', [{ commitment: 'confirmed' }])).value.blockhash;
  }

  async lamports(address: string): Promise<bigint> {
    return BigInt((await this.call<{ value: number }>('getBalance', [address, { commitment: 'confirmed' }])).value);
  }

  /** A token account's balance (0 when it does not exist). */
  async tokens(account: string): Promise<bigint> {
    try {
      return BigInt((await this.call<{ value: { amount: string } }>('getTokenAccountBalance', [account, { commitment: 'confirmed' }])).value.amount);
    } catch (e) {
      if (e instanceof ChainRefused) return 0n;
      throw e;
    }
  }

  /** What a wallet holds of an asset: lamports for SOL, its associated token account's balance otherwise. */
  async holding(owner: string, asset: 'sol' | 'usdc'): Promise<bigint> {
    return asset === 'sol' ? this.lamports(owner) : this.tokens(associatedTokenAddress(owner as Address, MINTS.usdc as Address, TOKEN_PROGRAM));
  }

  /**
   * What a wallet held of an asset right after a transaction of its landed (the transaction's own post
   * balances): a reading taken later would include what happened since, a refund that came in the next slot.
   */
  async holdingAfter(signature: string, owner: string, asset: 'sol' | 'usdc'): Promise<bigint> {
    type Tx = {
      transaction: { message: { accountKeys: string[] } };
      meta: { postBalances: number[]; postTokenBalances: { owner?: string; mint: string; uiTokenAmount: { amount: string } }[] };
    };
    const tx = await this.call<Tx | null>('getTransaction', [signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }]);
    // Not confirmed within the wait (a fault): the reading of now is the best there is.
    if (!tx) return this.holding(owner, asset);
    if (asset === 'sol') {
      const i = tx.transaction.message.accountKeys.indexOf(owner);
      if (i < 0) throw new Error(`${owner} is not an account of transaction ${signature}`);
      return BigInt(tx.meta.postBalances[i]!);
    }
    const b = tx.meta.postTokenBalances.find((x) => x.owner === owner && x.mint === MINTS.usdc);
    return b ? BigInt(b.uiTokenAmount.amount) : 0n;
  }

  /**
   * The wallet's own transfer of `amount` into an order's deposit account: the account created with the
   * non-idempotent instruction as Hush's transaction does (`create`), then the transfer (SOL: lamports and
   * SyncNative). Signed synchronously and sent; returns its signature.
   */
  async transferToDeposit(from: SimWallet, to: { account: string; owner: string }, asset: 'sol' | 'usdc', amount: bigint, create: boolean): Promise<string> {
    const payer = signerOf(from.address);
    const mint = MINTS[asset] as Address;
    const ixs: Instruction[] = [];
    if (create) ixs.push(getCreateAssociatedTokenInstruction({ payer, ata: to.account as Address, owner: to.owner as Address, mint, tokenProgram: TOKEN_PROGRAM }));
    if (asset === 'sol') ixs.push(getTransferSolInstruction({ source: payer, destination: to.account as Address, amount }), getSyncNativeInstruction({ account: to.account as Address }));
    else {
      const source = associatedTokenAddress(from.address as Address, mint, TOKEN_PROGRAM);
      ixs.push(getTransferCheckedInstruction({ source, mint, destination: to.account as Address, authority: payer, amount, decimals: DECIMALS[asset] }));
    }
    const compiled = compileMessage(from.address as Address, ixs, await this.blockhash());
    if (!compiled) throw new Error('the deposit transaction did not compile');
    const signature = sign(null, compiled.message, from.privateKey);
    const wire = wireTransaction(compiled, [signature]).toString('base64');
    await this.send(wire);
    return bs58.encode(signature);
  }
}

/** kit's builders want a signer for a signing account; only its address reaches the compiled message. */
function signerOf(address: string) {
  return { address: address as Address, signTransactions: async () => [] } as never;
}
