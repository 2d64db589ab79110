/**
 * Rebalancing through Jupiter's Swap API v1:
 *   1. GET  {base}/swap/v1/quote?inputMint&outputMint&amount&slippageBps  → quoteResponse
 *   2. POST {base}/swap/v1/swap  { quoteResponse, userPublicKey, … }     → { swapTransaction: base64, lastValidBlockHeight, … }
 *   3. decode the v0 transaction with @solana/kit, check it, sign it with the pool's KeyPairSigner,
 *   4. submit through the injected RPC `sendTransaction`.
 *
 * Nothing is signed blindly. Before signing we require: the quote is for exactly our mints, amount and
 * ExactIn, and its worst case (`otherAmountThreshold`) is at least the plan's minAmountOut; the
 * transaction is legacy or v0, its fee payer is our signer and our signer is its only required
 * signature; every top-level program is on an allowlist (Jupiter's aggregator plus the system,
 * token, associated-token and compute-budget programs) and Jupiter's aggregator is invoked; Jupiter
 * reports no simulation error. Jupiter's program enforces `otherAmountThreshold` on chain, so the
 * swap cannot deliver less than minAmountOut.
 *
 * `amountOut` in the result is Jupiter's quoted outAmount (≥ minAmountOut); the executed amount is
 * known once the transaction is confirmed and the ledger reconciles it.
 */
import {
  type Address,
  type KeyPairSigner,
  type Transaction,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  signTransaction,
} from '@solana/kit';
import type { FetchLike } from '../prices/http.ts';
import { joinUrl, requestText } from '../prices/http.ts';
import { type RebalanceRequest, RebalanceError, type RebalanceResult, type Rebalancer } from './rebalancer.ts';

export const JUPITER_AGGREGATOR_V6 = 'JUP6LkbZbjS1jKKwapdHNy74zcZ3tLUZoi5QNyVTaV4';

/** Top-level programs a Jupiter swap transaction may invoke. */
export const DEFAULT_ALLOWED_PROGRAMS: readonly string[] = [
  JUPITER_AGGREGATOR_V6,
  'ComputeBudget111111111111111111111111111111',
  '11111111111111111111111111111111',
  'TokenkegQfeZyiNwAJbNbGKPFXCWuBvf9Ss623VQ5DA',
  'TokenzQdBNbLqP5VEhdkAS6EPFLC1PHnBqCXEpPxuEb',
  'ATokenGPvbdGVxr1b2hvZbsiqW5xWH25efTNsLJA8knL',
];

export interface JupiterSwapOptions {
  /** API base (default https://lite-api.jup.ag; https://api.jup.ag with an API key). */
  baseUrl?: string;
  apiKey?: string;
  fetch?: FetchLike;
  timeoutMs?: number;
  /** Mints per asset id (config/assets.json). */
  mints: ReadonlyMap<string, string>;
  /** The wallet that holds the source asset and signs (and pays for) the swap. */
  signer: KeyPairSigner | ((fromAssetId: string) => KeyPairSigner);
  /** Submits a signed base64 wire transaction and returns its signature (e.g. kit's rpc.sendTransaction). */
  sendTransaction: (wireTransactionBase64: string) => Promise<string>;
  /** Slippage sent to Jupiter; the plan's minAmountOut is checked independently. Default 100. */
  slippageBps?: number;
  /** Where the output goes (default: the signer's own associated token account / wallet). */
  destinationFor?: (toAssetId: string) => { destinationTokenAccount?: string; nativeDestinationAccount?: string } | undefined;
  allowedPrograms?: readonly string[];
  /**
   * Called with the signed transaction before it is sent, so the caller can store the signature first
   * (SPEC §10: a transaction's signature is stored before it is sent). A throw aborts the send.
   */
  beforeSend?: (signed: { signature: string; wireTransactionBase64: string; lastValidBlockHeight: bigint | null }) => Promise<void>;
}

/** The fields of a Jupiter quote Hush checks; the object itself is passed back to /swap untouched. */
export interface JupiterQuote {
  inputMint: string;
  inAmount: string;
  outputMint: string;
  outAmount: string;
  otherAmountThreshold: string;
  swapMode: string;
  slippageBps: number;
  [key: string]: unknown;
}

const U64 = /^(0|[1-9][0-9]{0,19})$/;

function fail(message: string, code: string, cause?: unknown): never {
  throw new RebalanceError(message, code, cause === undefined ? undefined : { cause });
}

const rebalanceError = (message: string, cause?: unknown) => new RebalanceError(message, 'JUPITER_HTTP', cause === undefined ? undefined : { cause });

function parseJsonObject(what: string, text: string): Record<string, unknown> {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch (e) {
    fail(`${what}: not JSON`, 'JUPITER_MALFORMED', e);
  }
  if (typeof v !== 'object' || v === null || Array.isArray(v)) fail(`${what}: not an object`, 'JUPITER_MALFORMED');
  return v as Record<string, unknown>;
}

function u64Field(obj: Record<string, unknown>, field: string): bigint {
  const v = obj[field];
  if (typeof v !== 'string' || !U64.test(v)) fail(`jupiter quote: ${field} is not an amount string`, 'JUPITER_MALFORMED');
  return BigInt(v);
}

/** Validates a quote against the plan; returns the typed quote. Exported for tests. */
export function checkQuote(raw: Record<string, unknown>, plan: RebalanceRequest, inputMint: string, outputMint: string): JupiterQuote {
  if (typeof raw.error === 'string') fail(`jupiter quote refused: ${raw.error}`, typeof raw.errorCode === 'string' ? raw.errorCode : 'JUPITER_QUOTE_ERROR');
  if (raw.inputMint !== inputMint || raw.outputMint !== outputMint) fail('jupiter quote is for other mints', 'JUPITER_QUOTE_MISMATCH');
  const inAmount = u64Field(raw, 'inAmount');
  const outAmount = u64Field(raw, 'outAmount');
  const threshold = u64Field(raw, 'otherAmountThreshold');
  if (raw.swapMode !== undefined && raw.swapMode !== 'ExactIn') fail('jupiter quote is not ExactIn', 'JUPITER_QUOTE_MISMATCH');
  if (inAmount !== plan.amountIn) fail(`jupiter quote is for ${inAmount}, not ${plan.amountIn}`, 'JUPITER_QUOTE_MISMATCH');
  if (threshold > outAmount) fail('jupiter quote: threshold above outAmount', 'JUPITER_MALFORMED');
  if (threshold < plan.minAmountOut) fail(`jupiter quote's worst case ${threshold} is below the plan's minimum ${plan.minAmountOut}`, 'JUPITER_QUOTE_TOO_LOW');
  return raw as JupiterQuote;
}

/**
 * Decodes a base64 wire transaction and checks it is safe for `signer` to sign (see the module
 * comment). Exported for tests.
 */
export function decodeAndCheckSwapTransaction(base64: string, signer: Address, allowedPrograms: readonly string[] = DEFAULT_ALLOWED_PROGRAMS): Transaction {
  if (typeof base64 !== 'string' || base64.length === 0 || !/^[A-Za-z0-9+/]+={0,2}$/.test(base64)) fail('swapTransaction is not base64', 'JUPITER_MALFORMED');
  let tx: Transaction;
  let message: ReturnType<ReturnType<typeof getCompiledTransactionMessageDecoder>['decode']>;
  try {
    const bytes = getBase64Encoder().encode(base64);
    tx = getTransactionDecoder().decode(bytes);
    message = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
  } catch (e) {
    fail('swapTransaction does not decode as a Solana transaction', 'JUPITER_MALFORMED', e);
  }
  if (message.version !== 0 && message.version !== 'legacy') fail(`unsupported transaction version ${String(message.version)}`, 'JUPITER_UNSAFE_TX');
  const accounts = message.staticAccounts;
  if (accounts[0] !== signer) fail('the swap transaction is not paid by our signer', 'JUPITER_UNSAFE_TX');
  if (message.header.numSignerAccounts !== 1) fail('the swap transaction needs other signatures', 'JUPITER_UNSAFE_TX');
  const signerKeys = Object.keys(tx.signatures);
  if (signerKeys.length !== 1 || signerKeys[0] !== signer) fail('the swap transaction expects other signers', 'JUPITER_UNSAFE_TX');
  const allowed = new Set(allowedPrograms);
  let invokesJupiter = false;
  for (const ix of message.instructions) {
    const program = accounts[ix.programAddressIndex];
    if (program === undefined || !allowed.has(program)) fail(`the swap transaction invokes an unexpected program ${program ?? '(lookup)'}`, 'JUPITER_UNSAFE_TX');
    if (program === JUPITER_AGGREGATOR_V6) invokesJupiter = true;
  }
  if (!invokesJupiter) fail('the swap transaction does not invoke Jupiter', 'JUPITER_UNSAFE_TX');
  return tx;
}

export class JupiterSwapRebalancer implements Rebalancer {
  private readonly baseUrl: string;

  constructor(private readonly opts: JupiterSwapOptions) {
    this.baseUrl = opts.baseUrl ?? 'https://lite-api.jup.ag';
  }

  private headers(): Record<string, string> {
    return this.opts.apiKey ? { 'x-api-key': this.opts.apiKey } : {};
  }

  private mint(assetId: string): string {
    const m = this.opts.mints.get(assetId);
    if (!m) fail(`no mint configured for ${assetId}`, 'UNKNOWN_ASSET');
    return m;
  }

  async quote(plan: RebalanceRequest): Promise<JupiterQuote> {
    if (plan.amountIn <= 0n) fail('amountIn must be positive', 'BAD_PLAN');
    if (plan.fromAssetId === plan.toAssetId) fail('a rebalance needs two different assets', 'BAD_PLAN');
    const inputMint = this.mint(plan.fromAssetId);
    const outputMint = this.mint(plan.toAssetId);
    const q = new URLSearchParams({ inputMint, outputMint, amount: plan.amountIn.toString(), slippageBps: String(this.opts.slippageBps ?? 100), swapMode: 'ExactIn' });
    const http = { fetch: this.opts.fetch, timeoutMs: this.opts.timeoutMs, headers: this.headers() };
    const { text } = await requestText('jupiter swap quote', `${joinUrl(this.baseUrl, '/swap/v1/quote')}?${q}`, { method: 'GET' }, http, rebalanceError).catch((e: unknown) => {
      // Jupiter explains refusals in a JSON body with a 4xx status: surface its errorCode.
      const body = e instanceof Error ? /HTTP \d+: (.*)$/s.exec(e.message)?.[1] : undefined;
      if (body) {
        try {
          const parsed = JSON.parse(body) as { error?: unknown; errorCode?: unknown };
          if (typeof parsed.error === 'string') fail(`jupiter quote refused: ${parsed.error}`, typeof parsed.errorCode === 'string' ? parsed.errorCode : 'JUPITER_QUOTE_ERROR', e);
        } catch (inner) {
          if (inner instanceof RebalanceError) throw inner;
        }
      }
      throw e;
    });
    return checkQuote(parseJsonObject('jupiter quote', text), plan, inputMint, outputMint);
  }

  async rebalance(plan: RebalanceRequest): Promise<RebalanceResult> {
    const quote = await this.quote(plan);
    const signer = typeof this.opts.signer === 'function' ? this.opts.signer(plan.fromAssetId) : this.opts.signer;
    const body: Record<string, unknown> = {
      quoteResponse: quote,
      userPublicKey: signer.address,
      wrapAndUnwrapSol: true,
      dynamicComputeUnitLimit: true,
      ...this.opts.destinationFor?.(plan.toAssetId),
    };
    const http = { fetch: this.opts.fetch, timeoutMs: this.opts.timeoutMs, headers: this.headers() };
    const { text } = await requestText('jupiter swap', joinUrl(this.baseUrl, '/swap/v1/swap'), { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }, http, rebalanceError);
    const swap = parseJsonObject('jupiter swap', text);
    if (swap.simulationError !== undefined && swap.simulationError !== null) fail('jupiter reports a simulation error', 'JUPITER_SIMULATION_ERROR');
    const tx = decodeAndCheckSwapTransaction(swap.swapTransaction as string, signer.address, this.opts.allowedPrograms);
    let signed: Transaction;
    try {
      signed = await signTransaction([signer.keyPair], tx);
    } catch (e) {
      fail('signing the swap transaction failed', 'SIGNING_FAILED', e);
    }
    const expected = getSignatureFromTransaction(signed);
    const wire = getBase64EncodedWireTransaction(signed);
    const lvbh = typeof swap.lastValidBlockHeight === 'number' && Number.isSafeInteger(swap.lastValidBlockHeight) ? BigInt(swap.lastValidBlockHeight) : null;
    await this.opts.beforeSend?.({ signature: expected, wireTransactionBase64: wire, lastValidBlockHeight: lvbh });
    let signature: string;
    try {
      signature = await this.opts.sendTransaction(wire);
    } catch (e) {
      // It may still land: the caller settles `expected` on chain before trying again.
      fail(`submitting the swap transaction ${expected} failed`, 'SEND_FAILED', e);
    }
    if (signature !== expected) fail('the RPC returned a different signature than the one signed', 'SEND_MISMATCH');
    return { signature, amountIn: BigInt(quote.inAmount), amountOut: BigInt(quote.outAmount) };
  }
}
