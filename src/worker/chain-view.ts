import type { Address, Signature } from '@solana/kit';
import type { SolanaChain } from '../chain/solana-chain.ts';

export interface AccountBalance {
  exists: boolean;
  lamports: bigint;
  /** Token amount for token accounts, null otherwise. */
  tokenAmount: bigint | null;
}

const TOKEN_ACCOUNT_MIN = 165;

function tokenAmountOf(data: Uint8Array): bigint | null {
  if (data.length < TOKEN_ACCOUNT_MIN) return null;
  return new DataView(data.buffer, data.byteOffset, data.byteLength).getBigUint64(64, true);
}

/** Batched reads the worker needs, at an explicit commitment. */
export class ChainView {
  constructor(readonly chain: SolanaChain) {}

  async balances(addresses: string[], commitment: 'processed' | 'confirmed' | 'finalized'): Promise<Map<string, AccountBalance>> {
    const out = new Map<string, AccountBalance>();
    for (let i = 0; i < addresses.length; i += 100) {
      const chunk = addresses.slice(i, i + 100) as Address[];
      const { value } = await this.chain.rpc.getMultipleAccounts(chunk, { commitment, encoding: 'base64' }).send();
      value.forEach((acc, j) => {
        const a = chunk[j]!;
        if (!acc) return out.set(a, { exists: false, lamports: 0n, tokenAmount: null });
        const data = new Uint8Array(Buffer.from(acc.data[0], 'base64'));
        out.set(a, { exists: true, lamports: BigInt(acc.lamports), tokenAmount: tokenAmountOf(data) });
      });
    }
    return out;
  }

  async blockHeight(commitment: 'confirmed' | 'finalized'): Promise<bigint> {
    return BigInt(await this.chain.rpc.getBlockHeight({ commitment }).send());
  }

  async statuses(signatures: string[]) {
    const out: (Awaited<ReturnType<SolanaChain['signatureStatus']>>)[] = [];
    for (let i = 0; i < signatures.length; i += 256) {
      const { value } = await this.chain.rpc.getSignatureStatuses(signatures.slice(i, i + 256) as Signature[], { searchTransactionHistory: true }).send();
      out.push(...value);
    }
    return out;
  }

  /** The earliest successful transaction that touched an account (the deposit that created it). */
  async firstSignature(address: string): Promise<string | null> {
    const list = await this.chain.rpc.getSignaturesForAddress(address as Address, { limit: 20, commitment: 'confirmed' }).send();
    const ok = list.filter((s) => s.err === null);
    return ok.length > 0 ? ok[ok.length - 1]!.signature : null;
  }

  /** Fee and the fee payer's and another account's lamport deltas of a landed transaction. */
  async costs(signature: string, watch?: string): Promise<{ fee: bigint; feePayerDelta: bigint; watchDelta: bigint } | null> {
    const tx = await this.chain.rpc.getTransaction(signature as Signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    if (!tx?.meta) return null;
    const keys = tx.transaction.message.accountKeys as readonly string[];
    const delta = (i: number) => (i < 0 ? 0n : BigInt(tx.meta!.postBalances[i]!) - BigInt(tx.meta!.preBalances[i]!));
    return { fee: BigInt(tx.meta.fee), feePayerDelta: delta(0), watchDelta: watch ? delta(keys.indexOf(watch)) : 0n };
  }

  async send(wire: string): Promise<void> {
    await this.chain.rpc.sendTransaction(wire as never, { encoding: 'base64', skipPreflight: true, maxRetries: 0n }).send();
  }
}
