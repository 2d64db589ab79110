import bs58 from 'bs58';
import { address, type Address, type Signature } from '@solana/kit';
import { ChainUnavailableError, FIRST_SIGNATURE_LOOKBACK, JsonRpcError, earliestSuccessful, type ChainCalls, type SolanaChain } from './solana-chain.ts';
import { asWireTransaction } from './base64-wire.ts';

export interface AccountBalance {
  exists: boolean;
  lamports: bigint;
  /**
   * Token amount for token accounts, null otherwise. For a wrapped-SOL account, its lamports above the
   * rent reserve: what SyncNative would record, so SOL sent to it without SyncNative still counts.
   */
  tokenAmount: bigint | null;
}

const TOKEN_ACCOUNT_MIN = 165;
/** The SPL Token program and Token-2022: where an owner's token accounts can live. */
export const TOKEN_PROGRAMS: Address[] = [address('TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA'), address('TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb')];

/** A token account found by its owner. */
export interface OwnedTokenAccount {
  account: string;
  mint: string;
  /** As AccountBalance.tokenAmount (wrapped SOL: the lamports above its rent reserve). */
  amount: bigint;
}

/** What a landed transaction cost the fee payer, moved for one watched account, and what some accounts held before it. */
export interface TxCosts {
  fee: bigint;
  /** Who paid the fee: the current seed's fee payer, or a retired one's for a transaction signed before a rotation. */
  feePayer: string;
  feePayerDelta: bigint;
  watchDelta: bigint;
  lamportsBefore: Map<string, bigint>;
}

/** A landed transaction as getTransaction's JSON encoding gives it (the parts Hush reads). */
export interface LandedTransaction {
  transaction: { message: { accountKeys: string[]; header: { numRequiredSignatures: number } } };
  meta: {
    err: unknown;
    preBalances: number[];
    postBalances: number[];
    preTokenBalances?: { accountIndex: number; owner?: string; uiTokenAmount: { amount: string } }[] | null;
    postTokenBalances?: { accountIndex: number; owner?: string; uiTokenAmount: { amount: string } }[] | null;
    loadedAddresses?: { writable: string[]; readonly: string[] } | null;
  } | null;
}

/** SPL token account layout: amount u64 at 64; is_native COption<u64> (u32 tag, then the reserve) at 109. */
const AMOUNT_OFFSET = 64;
const IS_NATIVE_OFFSET = 109;

function tokenAmountOf(data: Uint8Array, lamports: bigint): bigint | null {
  if (data.length < TOKEN_ACCOUNT_MIN) return null;
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (view.getUint32(IS_NATIVE_OFFSET, true) === 1) {
    const reserve = view.getBigUint64(IS_NATIVE_OFFSET + 4, true);
    return lamports > reserve ? lamports - reserve : 0n;
  }
  return view.getBigUint64(AMOUNT_OFFSET, true);
}

/** An account as a PubSub notification carries it (null: gone), as the balance a read would give. */
export function balanceOfAccount(account: { lamports: bigint; data: Uint8Array } | null): AccountBalance {
  if (!account) return { exists: false, lamports: 0n, tokenAmount: null };
  return { exists: true, lamports: account.lamports, tokenAmount: tokenAmountOf(account.data, account.lamports) };
}

/** Request bodies stay under the RPC's body limit (50 KiB, as Agave's). */
const BATCH_BODY_MAX = 45_000;

/** Batched reads the worker needs, at an explicit commitment. */
export class ChainView<C extends ChainCalls = SolanaChain> {
  /** `chain`: a SolanaChain (the worker's, settlement lane) or its calls in a request's lane (SolanaChain.inLane). */
  constructor(readonly chain: C) {}

  /**
   * JSON-RPC 2.0 batches (one POST carries many calls): per call its result or error, in call order.
   * Used where the worker makes the same call for a whole batch of orders at once, so a burst costs a few
   * requests rather than one per order (plain JSON: callers only read strings and small integers).
   */
  private async batch<T>(calls: { method: string; params: unknown[] }[]): Promise<{ result?: T; error?: { message: string } }[]> {
    const bodies: { calls: string[]; methods: string[] }[] = [];
    let size = Infinity;
    calls.forEach((c, id) => {
      const one = JSON.stringify({ jsonrpc: '2.0', id, ...c });
      if (size + one.length > BATCH_BODY_MAX) (bodies.push({ calls: [], methods: [] }), (size = 0));
      bodies[bodies.length - 1]!.calls.push(one);
      bodies[bodies.length - 1]!.methods.push(c.method);
      size += one.length + 1;
    });
    const replies = await Promise.all(
      bodies.map(async (b) => {
        // Through the chain's one plain-JSON path: HTTP status checked first, the request budget applied.
        const body = (await this.chain.post(`[${b.calls.join(',')}]`, b.methods)) as { id: number; result?: T; error?: { message: string } }[];
        if (!Array.isArray(body)) throw new ChainUnavailableError(`RPC batch rejected: ${JSON.stringify(body).slice(0, 200)}`);
        return body;
      }),
    );
    const out: { result?: T; error?: { message: string } }[] = new Array(calls.length);
    for (const r of replies.flat()) out[r.id] = r;
    return out.map((r) => r ?? { error: { message: 'missing from the batch reply' } });
  }

  /** firstSignature of many accounts in one batch: null where there is none, undefined where the call failed. */
  async firstSignatures(addresses: string[]): Promise<(string | null | undefined)[]> {
    if (addresses.length === 0) return [];
    const replies = await this.batch<{ signature: string; err: unknown }[]>(
      addresses.map((a) => ({ method: 'getSignaturesForAddress', params: [a, { limit: FIRST_SIGNATURE_LOOKBACK, commitment: 'confirmed' }] })),
    );
    return replies.map((r) => (r.error || !r.result ? undefined : earliestSuccessful(r.result)));
  }

  /** Each account's recent history at `confirmed` (newest first, as the RPC gives it) in one batch; undefined where the call failed. */
  async signatureHistories(addresses: string[]): Promise<(readonly { signature: string; err: unknown }[] | undefined)[]> {
    if (addresses.length === 0) return [];
    const replies = await this.batch<{ signature: string; err: unknown }[]>(
      addresses.map((a) => ({ method: 'getSignaturesForAddress', params: [a, { limit: FIRST_SIGNATURE_LOOKBACK, commitment: 'confirmed' }] })),
    );
    return replies.map((r) => (r.error || !Array.isArray(r.result) ? undefined : r.result));
  }

  /**
   * One page of an address's history at `confirmed`, newest first: what landed after `until` (exclusive) and
   * before `before`, at most `limit` (1,000, the RPC's cap).
   */
  async signaturePage(address: string, opts: { until?: string; before?: string; limit?: number }): Promise<{ signature: string; slot: bigint; err: unknown }[]> {
    const [reply] = await this.batch<{ signature: string; slot: number | bigint; err: unknown }[]>([
      { method: 'getSignaturesForAddress', params: [address, { commitment: 'confirmed', limit: opts.limit ?? 1000, ...(opts.until ? { until: opts.until } : {}), ...(opts.before ? { before: opts.before } : {}) }] },
    ]);
    if (!reply || reply.error || !Array.isArray(reply.result)) throw new ChainUnavailableError(`getSignaturesForAddress failed: ${reply?.error?.message ?? 'no reply'}`);
    return reply.result.map((r) => ({ signature: r.signature, slot: BigInt(r.slot), err: r.err }));
  }

  /** Landed transactions at `confirmed` as their wire bytes (base64) and meta, in one batch: null where not visible, undefined where the call failed. */
  async wireTransactionsMany(signatures: string[]): Promise<({ slot: bigint; blockTime: number | null; wire: string; meta: LandedTransaction['meta'] } | null | undefined)[]> {
    if (signatures.length === 0) return [];
    const replies = await this.batch<{ slot: number; blockTime: number | null; transaction: [string, string]; meta: LandedTransaction['meta'] } | null>(
      signatures.map((s) => ({ method: 'getTransaction', params: [s, { commitment: 'confirmed', encoding: 'base64', maxSupportedTransactionVersion: 0 }] })),
    );
    return replies.map((r) => (r.error ? undefined : r.result ? { slot: BigInt(r.result.slot), blockTime: r.result.blockTime ?? null, wire: r.result.transaction[0], meta: r.result.meta } : null));
  }

  /** Landed transactions at `confirmed` (JSON encoding) in one batch: null where not visible, undefined where the call failed. */
  async transactionsMany(signatures: string[]): Promise<(LandedTransaction | null | undefined)[]> {
    if (signatures.length === 0) return [];
    const replies = await this.batch<LandedTransaction | null>(
      signatures.map((s) => ({ method: 'getTransaction', params: [s, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }] })),
    );
    return replies.map((r) => (r.error ? undefined : (r.result ?? null)));
  }

  /** send for many transactions in one batch; per transaction the error message, or null when accepted. */
  async sendMany(wires: string[]): Promise<(string | null)[]> {
    if (wires.length === 0) return [];
    const replies = await this.batch<string>(wires.map((w) => ({ method: 'sendTransaction', params: [w, { encoding: 'base64', skipPreflight: true, maxRetries: 0 }] })));
    return replies.map((r) => (r.error ? r.error.message : null));
  }

  /**
   * costs of many landed transactions in one batch; null where not visible at `confirmed` yet (or where
   * a lamport figure is beyond exact JSON numbers: the caller then asks costs() for that one).
   */
  async costsMany(items: { signature: string; watch?: string; before?: readonly string[] }[]): Promise<(TxCosts | null)[]> {
    if (items.length === 0) return [];
    const replies = await this.batch<{ transaction: { message: { accountKeys: string[] } }; meta: { fee: number; preBalances: number[]; postBalances: number[] } | null } | null>(
      items.map((i) => ({ method: 'getTransaction', params: [i.signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }] })),
    );
    return replies.map((r, n) => {
      const tx = r.result;
      if (!tx?.meta) return null;
      const meta = tx.meta;
      const keys = tx.transaction.message.accountKeys;
      const watchAt = items[n]!.watch ? keys.indexOf(items[n]!.watch!) : -1;
      const beforeAt = (items[n]!.before ?? []).map((a) => keys.indexOf(a)).filter((i) => i >= 0);
      const used = [meta.fee, meta.preBalances[0], meta.postBalances[0], ...(watchAt >= 0 ? [meta.preBalances[watchAt], meta.postBalances[watchAt]] : []), ...beforeAt.map((i) => meta.preBalances[i])];
      if (!used.every((x) => Number.isSafeInteger(x))) return null;
      const delta = (i: number) => (i < 0 ? 0n : BigInt(meta.postBalances[i]!) - BigInt(meta.preBalances[i]!));
      return { fee: BigInt(meta.fee), feePayer: keys[0]!, feePayerDelta: delta(0), watchDelta: delta(watchAt), lamportsBefore: new Map(beforeAt.map((i) => [keys[i]!, BigInt(meta.preBalances[i]!)])) };
    });
  }

  /**
   * Balances of many accounts, 100 per getMultipleAccounts (the RPC's limit), chunks read concurrently.
   * Plain JSON rather than kit's client: the watch reads every watched account several times a slot, and
   * kit's big-integer-safe parsing of each reply is CPU on the event loop PGlite shares. Lamports beyond
   * exact JSON numbers (never a deposit or pool account here) fall back to kit for that chunk.
   */
  async balances(addresses: string[], commitment: 'processed' | 'confirmed' | 'finalized'): Promise<Map<string, AccountBalance>> {
    const out = new Map<string, AccountBalance>();
    const chunks: Address[][] = [];
    for (let i = 0; i < addresses.length; i += 100) chunks.push(addresses.slice(i, i + 100) as Address[]);
    const replies = await Promise.all(chunks.map((chunk) => this.accounts(chunk, commitment)));
    replies.forEach((value, c) =>
      value.forEach((acc, j) => {
        const a = chunks[c]![j]!;
        if (!acc) return out.set(a, { exists: false, lamports: 0n, tokenAmount: null });
        const data = new Uint8Array(Buffer.from(acc.data[0], 'base64'));
        const lamports = BigInt(acc.lamports);
        out.set(a, { exists: true, lamports, tokenAmount: tokenAmountOf(data, lamports) });
      }),
    );
    return out;
  }

  private async accounts(chunk: Address[], commitment: 'processed' | 'confirmed' | 'finalized'): Promise<({ lamports: number | bigint; data: [string, string] } | null)[]> {
    const [reply] = await this.batch<{ value: ({ lamports: number; data: [string, string] } | null)[] }>([
      { method: 'getMultipleAccounts', params: [chunk, { commitment, encoding: 'base64' }] },
    ]);
    const value = reply?.result?.value;
    if (value && value.every((a) => !a || Number.isSafeInteger(a.lamports))) return value;
    if (reply?.error && !value) throw new JsonRpcError('getMultipleAccounts', undefined, reply.error.message);
    const accounts = (await this.chain.rpc.getMultipleAccounts(chunk, { commitment, encoding: 'base64' }).send()).value;
    return accounts.map((a) => (a ? { lamports: a.lamports, data: [a.data[0], a.data[1]] } : null));
  }

  /** Every token account of an owner under both token programs (one batch of two getTokenAccountsByOwner calls). */
  async tokenAccountsOf(owner: string): Promise<OwnedTokenAccount[]> {
    const replies = await this.batch<{ value: { pubkey: string; account: { lamports: number; data: [string, string] } }[] }>(
      TOKEN_PROGRAMS.map((programId) => ({ method: 'getTokenAccountsByOwner', params: [owner, { programId }, { commitment: 'confirmed', encoding: 'base64' }] })),
    );
    const out: OwnedTokenAccount[] = [];
    for (const r of replies) {
      if (!r.result) throw new JsonRpcError('getTokenAccountsByOwner', undefined, r.error?.message ?? 'no result');
      for (const { pubkey, account } of r.result.value) {
        const data = new Uint8Array(Buffer.from(account.data[0], 'base64'));
        const amount = tokenAmountOf(data, BigInt(account.lamports));
        if (amount !== null) out.push({ account: pubkey, mint: bs58.encode(data.subarray(0, 32)), amount });
      }
    }
    return out;
  }

  /** The current slot at a commitment (plain JSON: polled every few milliseconds by the deposit watch). */
  async slot(commitment: 'processed' | 'confirmed'): Promise<bigint> {
    const [reply] = await this.batch<number>([{ method: 'getSlot', params: [{ commitment }] }]);
    if (reply?.result === undefined) throw new JsonRpcError('getSlot', undefined, reply?.error?.message ?? 'no result');
    return BigInt(reply.result);
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
  firstSignature(address: string): Promise<string | null> {
    return this.chain.rpc.getSignaturesForAddress(address as Address, { limit: FIRST_SIGNATURE_LOOKBACK, commitment: 'confirmed' }).send().then(earliestSuccessful);
  }

  /** Fee and the fee payer's and another account's lamport deltas of a landed transaction, and the lamports some accounts held before it. */
  async costs(signature: string, watch?: string, before: readonly string[] = []): Promise<TxCosts | null> {
    const tx = await this.chain.rpc.getTransaction(signature as Signature, { commitment: 'confirmed', encoding: 'json', maxSupportedTransactionVersion: 0 }).send();
    if (!tx?.meta) return null;
    const keys = tx.transaction.message.accountKeys as readonly string[];
    const delta = (i: number) => (i < 0 ? 0n : BigInt(tx.meta!.postBalances[i]!) - BigInt(tx.meta!.preBalances[i]!));
    const lamportsBefore = new Map(before.map((a) => [a, keys.indexOf(a)] as const).filter(([, i]) => i >= 0).map(([a, i]) => [a, BigInt(tx.meta!.preBalances[i]!)]));
    return { fee: BigInt(tx.meta.fee), feePayer: keys[0]!, feePayerDelta: delta(0), watchDelta: watch ? delta(keys.indexOf(watch)) : 0n, lamportsBefore };
  }

  async send(wire: string): Promise<void> {
    await this.chain.rpc.sendTransaction(asWireTransaction(wire), { encoding: 'base64', skipPreflight: true, maxRetries: 0n }).send();
  }
}
