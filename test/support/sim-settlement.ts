/**
 * The settlement tests' chain and store reads on a simulated Hush (test/support/sim-hush.ts), in place of
 * test/support/settlement.ts's wall-clock polling: the same reads (settlement-chain.ts, settlement-landed.ts,
 * through kit's RPC client on the chain, without faults), each awaited while the simulated clock runs, and
 * every wait a state reached in simulated time (`h.until`), never a sleep.
 *
 * Users' transactions are compiled and signed on the event loop (src/chain/fast-transaction.ts, node:crypto):
 * kit's signers sign on WebCrypto's thread pool, whose completions land in an order no seed decides.
 */
import assert from 'node:assert/strict';
import { KeyObject, sign } from 'node:crypto';
import bs58 from 'bs58';
import type { Address, Instruction, KeyPairSigner } from '@solana/kit';
import { getTransferSolInstruction } from '@solana-program/system';
import { getCreateAssociatedTokenInstruction, getSyncNativeInstruction, getTransferCheckedInstruction } from '@solana-program/token';
import { compileMessage, wireTransaction } from '../../src/chain/fast-transaction.ts';
import { associatedTokenAddress } from '../../src/domain/associated-token-address.ts';
import { expectOk } from './api-responses.ts';
import {
  accountExists, ASSETS, lamportsOf, rentExempt, TOKEN_ACCOUNT_SIZE, TOKEN_PROGRAM, type AssetId, type AssetInfo, type Chain, type PlacedOrder,
} from './settlement-chain.ts';
import { fetchLanded, hushBudget, successfulSignatures, type HushBudget, type LandedTx } from './settlement-landed.ts';
import { stream } from '../../sim/world.ts';
import { SOL, SimWallet, startSimHush, type SimAccount, type SimHush } from './sim-hush.ts';

/** The owner's associated token account of `mint` (derived on the event loop, not WebCrypto's thread pool). */
export function ata(owner: string, mint: string): Address {
  return associatedTokenAddress(owner as Address, mint as Address, TOKEN_PROGRAM);
}

/** The recipient's holding of the asset: the wallet for SOL, its associated token account otherwise. */
export function holding(owner: string, asset: AssetId): Address {
  return ASSETS[asset].native ? (owner as Address) : ata(owner, ASSETS[asset].mint);
}

/** A payout must leave from a Hush pool: none of the sender's or the deposit's accounts may appear in it (settlement-landed.ts's check). */
export function assertPayoutUnlinked(tx: LandedTx, placed: PlacedOrder, sender: string): void {
  const forbidden = [sender, placed.depositAccount, placed.depositOwner, ...Object.values(ASSETS).map((a) => ata(sender, a.mint))];
  for (const f of forbidden) assert.ok(!tx.accountKeys.includes(f), `${tx.signature}: payout names ${f} (sender/deposit account)`);
}

/** Something that can sign a user's transaction here: a simulated wallet, or one of Hush's own signers (a pool's key). */
export type SimSigner = SimWallet | KeyPairSigner;

/** kit's instruction builders want a signer for a signing account; only its address reaches the compiled message. */
export function signerAt(address: string): KeyPairSigner {
  return { address: address as Address, signTransactions: async () => [] } as never;
}

function keyOf(s: SimSigner): KeyObject {
  if (s instanceof SimWallet) return s.privateKey;
  return KeyObject.from(s.keyPair.privateKey);
}

export interface SignedTx {
  wire: string;
  signature: string;
}

interface RpcAnswer {
  id: number;
  result?: unknown;
  error?: { message: string; data?: unknown };
}

/** The chain as the settlement tests read and use it, on simulated time. */
export class SimChain {
  /** kit's RPC client on the chain (settlement-chain.ts's reads take it). */
  readonly chain: Chain;

  private readonly keys;

  constructor(readonly h: SimHush) {
    this.chain = { url: 'http://chain.sim', rpc: h.rpc };
    this.keys = stream(h.world.opts.seed, 'settlement keys');
  }

  /** A new key pair, its address holding nothing (a new account's key, a wallet to fund by hand). */
  keypair(): SimWallet {
    return SimWallet.draw(this.keys);
  }

  lamports(address: string): Promise<bigint> {
    return this.h.drive(lamportsOf(this.chain, address as Address));
  }

  /** Lamports for SOL, the owner's associated token account's amount (null: none) otherwise. */
  async balance(owner: string, asset: AssetInfo): Promise<bigint | null> {
    if (asset.native) return this.lamports(owner);
    const { value } = await this.h.drive(this.chain.rpc.getAccountInfo(ata(owner, asset.mint), { commitment: 'confirmed', encoding: 'base64' }).send());
    return value ? Buffer.from(value.data[0], 'base64').readBigUInt64LE(64) : null;
  }

  exists(address: string): Promise<boolean> {
    return this.h.drive(accountExists(this.chain, address as Address));
  }

  rent(size: bigint): Promise<bigint> {
    return this.h.drive(rentExempt(this.chain, size));
  }

  /** The successful transactions that touched an account. */
  signatures(address: string): Promise<string[]> {
    return this.h.drive(successfulSignatures(this.chain, address as Address));
  }

  slot(commitment: 'processed' | 'confirmed' | 'finalized' = 'confirmed'): Promise<bigint> {
    return this.h.drive(this.chain.rpc.getSlot({ commitment }).send());
  }

  async blockhash(): Promise<string> {
    return (await this.h.drive(this.chain.rpc.getLatestBlockhash({ commitment: 'confirmed' }).send())).value.blockhash;
  }

  /** Whether the blockhash can still land a transaction. */
  async live(blockhash: string): Promise<boolean> {
    return (await this.h.drive(this.chain.rpc.isBlockhashValid(blockhash as never, { commitment: 'processed' }).send())).value;
  }

  /** Each signature's status once it is confirmed (succeeded or failed): its error, null when it succeeded. */
  async confirmed(signatures: readonly string[], maxMs = 60_000): Promise<unknown[]> {
    return this.h.until(`${signatures.length} transaction(s) confirmed`, async () => {
      const { value } = await this.chain.rpc.getSignatureStatuses(signatures as never, { searchTransactionHistory: true }).send();
      return value.every((st) => st !== null && st.confirmationStatus !== 'processed') ? value.map((st) => st!.err) : null;
    }, maxMs, 400);
  }

  /** Confirmed and succeeded, every one. */
  async succeeded(signatures: readonly string[], maxMs?: number): Promise<void> {
    const errs = await this.confirmed(signatures, maxMs);
    errs.forEach((e, i) => {
      if (e !== null) throw new Error(`${signatures[i]} failed on chain: ${JSON.stringify(e)}`);
    });
  }

  /** The transaction as it landed (settlement-landed.ts's view), once it is confirmed. */
  async landed(signature: string, maxMs = 60_000): Promise<LandedTx> {
    await this.confirmed([signature], maxMs);
    return this.h.drive(fetchLanded(this.chain, signature));
  }

  /** One JSON-RPC call on the chain; a refusal is thrown with its message. */
  call<T>(method: string, params: unknown[]): Promise<T> {
    return this.h.drive(this.h.chain.call<T>(method, params));
  }

  /**
   * Transactions in one JSON-RPC batch: the chain runs them one after the other in the slot it is in. Each
   * answer: its signature, or the refusal's message.
   */
  async sendBatch(wires: readonly string[], opts: { skipPreflight?: boolean } = {}): Promise<RpcAnswer[]> {
    const body = wires.map((w, id) => ({ jsonrpc: '2.0', id, method: 'sendTransaction', params: [w, { encoding: 'base64', skipPreflight: opts.skipPreflight ?? false, preflightCommitment: 'processed' }] }));
    const answers = (await this.h.drive(this.h.world.wire.direct(JSON.stringify(body)))) as RpcAnswer[];
    return [...answers].sort((a, b) => a.id - b.id);
  }

  /** Sends one transaction; its signature (a refusal throws). */
  async send(wire: string, opts: { skipPreflight?: boolean } = {}): Promise<string> {
    const [answer] = await this.sendBatch([wire], opts);
    if (answer!.error) throw new Error(`sendTransaction: ${answer!.error.message} ${JSON.stringify(answer!.error.data ?? {})}`);
    return answer!.result as string;
  }

  /** A transaction of `ixs` paid by `payer`, signed by it and `others`, on the latest blockhash (or `blockhash`). */
  async tx(payer: SimSigner, ixs: readonly Instruction[], others: readonly SimSigner[] = [], blockhash?: string): Promise<SignedTx> {
    const compiled = compileMessage(payer.address as Address, ixs, blockhash ?? (await this.blockhash()));
    if (!compiled) throw new Error('the transaction did not compile');
    const keys = new Map<string, KeyObject>([payer, ...others].map((s) => [s.address, keyOf(s)]));
    const sigs = compiled.signers.map((a) => {
      const k = keys.get(a);
      if (!k) throw new Error(`no key for signer ${a}`);
      return sign(null, compiled.message, k);
    });
    return { wire: wireTransaction(compiled, sigs).toString('base64'), signature: bs58.encode(sigs[0]!) };
  }

  /** Builds, sends and waits for a transaction to succeed; its signature. */
  async run(payer: SimSigner, ixs: readonly Instruction[], others: readonly SimSigner[] = []): Promise<string> {
    const { wire, signature } = await this.tx(payer, ixs, others);
    await this.send(wire);
    await this.succeeded([signature]);
    return signature;
  }

  /** A new wallet holding `sol` lamports (default 1 SOL) and the given token amounts (the local faucet), all confirmed. */
  async wallet(opts: { sol?: bigint; tokens?: Partial<Record<AssetId, bigint>> } = {}): Promise<SimWallet> {
    const w = await this.h.wallet({ sol: opts.sol ?? SOL });
    const sigs: string[] = [];
    for (const [id, amount] of Object.entries(opts.tokens ?? {})) {
      if (amount) sigs.push(await this.h.drive(this.h.chain.tokenAirdrop(w.address, ASSETS[id as AssetId].mint, amount)));
    }
    if (sigs.length > 0) await this.succeeded(sigs);
    return w;
  }

  /**
   * The sender's own transaction into the order's deposit account, carrying `amount` (settlement.ts's
   * sendOwnDeposit): the account created with the non-idempotent instruction as Hush's transaction does, then
   * the transfer (SOL: lamports, and SyncNative unless told not to; SPL: TransferChecked). Sent; its signature.
   */
  async ownDeposit(placed: PlacedOrder, sender: SimWallet, asset: AssetInfo, amount: bigint, opts: { syncNative?: boolean } = {}): Promise<string> {
    const payer = signerAt(sender.address);
    const create = getCreateAssociatedTokenInstruction({ payer, ata: placed.depositAccount, owner: placed.depositOwner, mint: asset.mint, tokenProgram: TOKEN_PROGRAM });
    const sync = opts.syncNative === false ? [] : [getSyncNativeInstruction({ account: placed.depositAccount })];
    const transfer = asset.native
      ? [getTransferSolInstruction({ source: payer, destination: placed.depositAccount, amount }), ...sync]
      : [getTransferCheckedInstruction({ source: ata(sender.address, asset.mint), mint: asset.mint, destination: placed.depositAccount, authority: payer, amount, decimals: asset.decimals })];
    const { wire } = await this.tx(sender, [create, ...transfer]);
    return this.send(wire);
  }

  /** A sender holding twice `amount` of the asset, and SOL for its fees (settlement-chain.ts's fundSender). */
  fundSender(asset: AssetId, amount: bigint): Promise<SimWallet> {
    return asset === 'sol' ? this.wallet({ sol: amount * 2n + SOL }) : this.wallet({ sol: SOL, tokens: { [asset]: amount * 2n } });
  }
}

/** GET /admin/v1/reconcile until it is clean (ok, nothing pending); fails with the last report. */
export async function cleanReconcile(h: SimHush, maxMs = 120_000): Promise<any> {
  let last: unknown = null;
  try {
    return await h.until('a clean reconcile', async () => {
      const res = await h.ops.get('/admin/v1/reconcile');
      last = res.body;
      return res.status === 200 && res.body.ok === true && res.body.pendingTransactions === 0 ? res.body : null;
    }, maxMs, 1_000);
  } catch (e) {
    throw new Error(`${(e as Error).message}; last report: ${JSON.stringify(last)}`);
  }
}

/**
 * Hush's log records from now on, each as the text line a Hush started without a record sink writes
 * (`ALERT: <message> {fields}`): the simulator keeps only an ALERT's kind in its event log.
 */
export function logLines(h: SimHush): string[] {
  const lines: string[] = [];
  h.world.recordReaders.push((fields, msg) => lines.push(`${msg} ${JSON.stringify(fields)}`));
  return lines;
}

/** The status record, once the order is in one of `statuses` (expectOk on every read). */
export async function statusOf(client: SimHush['ops'], trackingId: string): Promise<any> {
  return expectOk(await client.status(trackingId)).order;
}

/**
 * Settings these files add to the simulation's: a test places a few dozen orders at most, and deposit
 * identities are derived on the event loop in a simulated run (64 per asset, the floor, instead of 256: about
 * a second of CPU less per file).
 */
export const SETTLEMENT_ENV: Readonly<Record<string, string>> = { HUSH_DEPOSIT_IDENTITY_TARGET: '64' };

/** What a settlement file on the simulator starts with: Hush, a partner account, the chain, the fee payer, the compute budget and an ATA's rent. */
export interface SettlementSim {
  h: SimHush;
  acct: SimAccount;
  cs: SimChain;
  feePayer: string;
  budget: HushBudget;
  ataRent: bigint;
}

/** A simulated Hush on SETTLEMENT_ENV and `env`, with what a settlement file reads of it. */
export async function startSettlementSim(seed: number, env: Record<string, string>): Promise<SettlementSim> {
  const h = await startSimHush({ seed, env: { ...SETTLEMENT_ENV, ...env } });
  const cs = new SimChain(h);
  return {
    h,
    acct: await h.createAccount(),
    cs,
    feePayer: h.hush.treasury.feePayer.address,
    budget: hushBudget(h.hush.config),
    ataRent: await cs.rent(TOKEN_ACCOUNT_SIZE),
  };
}
