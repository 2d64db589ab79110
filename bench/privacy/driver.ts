/**
 * The bench's partner: starts a Hush, places the planned orders at their times through the public API,
 * signs and submits each deposit as a wallet would, and keeps the ground truth (which deposit paid which
 * recipient) to itself. The adversary code never imports this file.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import {
  decompileTransactionMessage,
  generateKeyPairSigner,
  getBase64EncodedWireTransaction,
  getBase64Encoder,
  getCompiledTransactionMessageDecoder,
  getSignatureFromTransaction,
  getTransactionDecoder,
  signTransaction,
  type KeyPairSigner,
} from '@solana/kit';
import { ASSOCIATED_TOKEN_PROGRAM_ADDRESS } from '@solana-program/token';
import pLimit from 'p-limit';
import type { Asset } from '../../src/config/assets.ts';
import { JsonRpc } from './adversary/observe-chain.ts';
import type { ReleasePolicy } from './adversary/timing-model.ts';
import { HushApi } from './hush-api.ts';
import type { PlannedOrder } from './workloads.ts';

export interface BenchServer {
  hushUrl: string;
  rpcUrl: string;
  partnerKey: string;
  adversaryKey: string;
  feeRecipient: string;
  /** The partner accounts (the first is partnerKey's), each with its own fee recipient. */
  partners: { apiKey: string; feeRecipient: string }[];
  feePayer: string;
  pools: string[];
  slotMs: number;
  policy: ReleasePolicy;
  close(): Promise<void>;
}

export async function startServer(env: Record<string, string>): Promise<BenchServer> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hush-privacy-'));
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'bench/support/privacy-bench-server.ts'], {
    env: { ...process.env, DATA_DIR: dataDir, LOG_LEVEL: 'warn', ...env },
    // Its stdin is a pipe from this process: it closes when this process dies however it dies, and the
    // server stops then (a bench stopped mid-run left three servers polling their chains, half a core).
    stdio: ['pipe', 'pipe', 'inherit'],
  });
  const line = await new Promise<string>((resolve, reject) => {
    const rl = createInterface({ input: child.stdout! });
    rl.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`bench server exited (${code}) before it started`)));
  });
  const info = JSON.parse(line) as Omit<BenchServer, 'close'>;
  return {
    ...info,
    close: async () => {
      const exited = new Promise((r) => child.once('exit', r));
      child.kill('SIGTERM');
      await Promise.race([exited, new Promise((r) => setTimeout(r, 10_000))]);
      child.kill('SIGKILL');
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** What only the driver knows: the order, its deposit and its recipient. */
export interface TruthRecord {
  plan: PlannedOrder;
  trackingId: string;
  depositSignature: string;
  depositAccount: string;
  recipient: string;
  status: string;
  /** Deposit confirmed → last payout confirmed, milliseconds (compressed time). */
  delayMs: number | null;
  /** What the quote promised (docs/spec.md §4 `privacy`, and its `duration`: seconds to delivery, the wait included). */
  quoted: { standard: boolean; anonymitySet: number; anonymitySetLikely: number; delaySeconds: number; duration: number } | null;
  /** Counted in the row's figures; padding orders (after the scored span) are observed, not scored. */
  scored: boolean;
  /** The status record's privacy.releasedWith once final (null: not released by class). */
  releasedWith?: number | null;
  /** Deposit confirmed and payout confirmed (the last), ms since epoch, as the status says. */
  confirmedAtMs?: number;
  paidAtMs?: number;
  /** The `completed` entry of the status's history, ms since epoch. */
  completedAtMs?: number;
  /** When the driver first read a releasedWith (its clock, ms since epoch), and whether the first read showing `completed` had it. */
  releasedWithSeenMs?: number;
  releasedWithWithCompleted?: boolean;
  /** At that first read showing `completed` without releasedWith: the reason the status gave (null: none given). */
  releasedWithPendingAtCompleted?: string | null;
}

export class Driver {
  readonly rpc: JsonRpc;
  private next = 0;
  constructor(
    readonly server: BenchServer,
    private readonly assets: Map<string, Asset>,
    readonly senders: KeyPairSigner[],
  ) {
    this.rpc = new JsonRpc(server.rpcUrl);
  }

  static async fund(server: BenchServer, assets: Map<string, Asset>, count: number): Promise<Driver> {
    const rpc = new JsonRpc(server.rpcUrl);
    const senders = await Promise.all(Array.from({ length: count }, () => generateKeyPairSigner()));
    const limit = pLimit(8);
    await Promise.all(
      senders.flatMap((s) => [
        limit(() => rpc.call('requestAirdrop', [s.address, 2000n * 10n ** 9n, { commitment: 'confirmed' }])),
        ...[...assets.values()]
          .filter((a) => !a.native)
          .map((a) => limit(() => rpc.call('localnet_requestTokenAirdrop', [s.address, a.mint, (10_000_000n * 10n ** BigInt(a.decimals) * 100_000n) / BigInt(Math.round(Number(a.referencePriceUsd) * 100_000))]))),
      ]),
    );
    return new Driver(server, assets, senders);
  }

  /** A recipient wallet; when `holds`, it gets a token account of `assetId` first (as ~30 % of real ones have). */
  async recipient(assetId: string, holds: boolean): Promise<string> {
    const r = (await generateKeyPairSigner()).address;
    if (holds) await this.rpc.call('localnet_requestTokenAirdrop', [r, this.assets.get(assetId)!.mint, 1]);
    return r;
  }

  /** quote → order → sign → send → deposit hint, as the partner app and its user's wallet do. */
  async place(api: HushApi, plan: PlannedOrder, recipient: string, sender = this.senders[this.next++ % this.senders.length]!): Promise<TruthRecord> {
    const feeRecipient = this.server.partners[plan.partner ?? 0]?.feeRecipient ?? this.server.feeRecipient;
    const terms = {
      senderAddress: sender.address,
      recipientAddress: recipient,
      feeBps: plan.feeBps,
      ...(plan.feeBps > 0 ? { feeRecipientAddress: feeRecipient } : {}),
    };
    if (plan.followSuggestion) plan.amount = await this.suggested(api, plan, terms);
    let quoted: TruthRecord['quoted'] = null;
    const quoteAndOrder = async () => {
      const { quote } = await api.call<{ quote: { duration: number; privacy?: { standard: boolean; anonymitySet: number; anonymitySetLikely: number; delaySeconds: number } } }>('POST', '/quote', {
        sourceAssetId: plan.sourceAssetId,
        destinationAssetId: plan.destinationAssetId,
        amount: plan.amount.toString(),
        mode: plan.mode,
        ...terms,
        ...(plan.privacy ? { privacy: plan.privacy } : {}),
      });
      const p = quote.privacy;
      quoted = p ? { standard: p.standard, anonymitySet: p.anonymitySet, anonymitySetLikely: p.anonymitySetLikely, delaySeconds: p.delaySeconds, duration: quote.duration } : null;
      return api.call<{ order: { trackingId: string; transaction: string } }>('POST', '/order', { quote, ...terms }, { 'x-idempotency-key': crypto.randomUUID() });
    };
    // A quote that expired on the way (a loaded machine) is quoted again, as a partner app does.
    const { order } = await quoteAndOrder().catch((e: Error) => (/QUOTE_EXPIRED/.test(e.message) ? quoteAndOrder() : Promise.reject(e)));
    const tx = getTransactionDecoder().decode(getBase64Encoder().encode(order.transaction));
    // A user's wallet takes its time to sign (bench:privacy --sign-delay): the deposit follows the order by that.
    if (plan.signDelayMs) await new Promise((r) => setTimeout(r, plan.signDelayMs));
    const signed = await signTransaction([sender.keyPair], tx);
    const signature = getSignatureFromTransaction(signed);
    await this.rpc.call('sendTransaction', [getBase64EncodedWireTransaction(signed), { encoding: 'base64', preflightCommitment: 'confirmed' }]);
    await api.call('POST', '/deposit', { trackingId: order.trackingId, signature }).catch(() => undefined); // a hint only
    const compiled = getCompiledTransactionMessageDecoder().decode(tx.messageBytes);
    const msg = decompileTransactionMessage(compiled as Parameters<typeof decompileTransactionMessage>[0]);
    const create = msg.instructions.find((ix) => ix.programAddress === ASSOCIATED_TOKEN_PROGRAM_ADDRESS);
    return { plan, trackingId: order.trackingId, depositSignature: signature, depositAccount: create!.accounts![1]!.address, recipient, status: 'awaiting_deposit', delayMs: null, quoted, scored: true };
  }

  /**
   * What a user who typed `plan.amount` sends after reading the quote: its suggested standard amount nearest
   * by ratio (nearestStandard's own measure; the list comes ascending, so its first is the smallest, not the
   * nearest), or the amount itself when none is suggested.
   */
  private async suggested(api: HushApi, plan: PlannedOrder, terms: Record<string, unknown>): Promise<bigint> {
    const { quote } = await api.call<{ quote: { privacy?: { suggestedAmounts?: string[] } } }>('POST', '/quote', {
      sourceAssetId: plan.sourceAssetId,
      destinationAssetId: plan.destinationAssetId,
      amount: plan.amount.toString(),
      mode: plan.mode,
      ...terms,
    });
    const far = (d: bigint) => Math.abs(Math.log(Number(d)) - Math.log(Number(plan.amount)));
    const offered = (quote.privacy?.suggestedAmounts ?? []).map(BigInt);
    return offered.reduce((best, d) => (far(d) < far(best) ? d : best), offered[0] ?? plan.amount);
  }

  /** Polls every order's status until it is final (and a private one's releasedWith counted); fills in status and delivery delay. */
  async settle(apiOf: HushApi | ((r: TruthRecord) => HushApi), records: TruthRecord[], timeoutMs: number): Promise<void> {
    const api = (r: TruthRecord) => (typeof apiOf === 'function' ? apiOf(r) : apiOf);
    const deadline = Date.now() + timeoutMs;
    const limit = pLimit(16);
    let open = records;
    const uncounted = new Map<TruthRecord, number>();
    while (open.length > 0 && Date.now() < deadline) {
      await Promise.all(
        open.map((r) =>
          limit(async () => {
            const { order: s } = await api(r).call<{ order: { status: string; deposit: { confirmedAt: string | null } | null; payouts: { confirmedAt: string | null }[]; history: { status: string; at: string }[]; privacy: { releasedWith: number | null; releasedWithPending?: string | null } } }>('GET', `/status/${r.trackingId}`);
            const readAt = Date.now();
            r.status = s.status;
            r.releasedWith = s.privacy.releasedWith;
            if (r.releasedWith !== null && r.releasedWithSeenMs === undefined) r.releasedWithSeenMs = readAt;
            if (s.status === 'completed' && r.releasedWithWithCompleted === undefined) {
              r.releasedWithWithCompleted = r.releasedWith !== null;
              if (r.releasedWith === null) r.releasedWithPendingAtCompleted = s.privacy.releasedWithPending ?? null;
            }
            const completed = s.history.find((h) => h.status === 'completed');
            if (completed) r.completedAtMs = Date.parse(completed.at);
            const paid = s.payouts.map((p) => (p.confirmedAt ? Date.parse(p.confirmedAt) : NaN));
            if (s.deposit?.confirmedAt) r.confirmedAtMs = Date.parse(s.deposit.confirmedAt);
            if (s.status === 'completed' && s.deposit?.confirmedAt) {
              r.paidAtMs = Math.max(...paid);
              r.delayMs = r.paidAtMs - Date.parse(s.deposit.confirmedAt);
            }
          }),
        ),
      );
      // A completed private order's releasedWith comes once its whole release has landed (issue 54): keep
      // reading it for up to a minute (one paid without a class release never gets one).
      open = open.filter((r) => {
        if (!['completed', 'refunded', 'failed', 'expired'].includes(r.status)) return true;
        if (r.status !== 'completed' || !r.quoted?.standard || r.releasedWith !== null) return false;
        uncounted.set(r, (uncounted.get(r) ?? 0) + 1);
        return uncounted.get(r)! <= 60;
      });
      if (open.length > 0) await new Promise((r) => setTimeout(r, 1000));
    }
  }

  /** Waits until Hush has swept (closed) every deposit account: only then can an outsider see all deposits. */
  async swept(records: TruthRecord[], timeoutMs: number): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    let open = records.map((r) => r.depositAccount);
    while (open.length > 0 && Date.now() < deadline) {
      const still: string[] = [];
      for (let i = 0; i < open.length; i += 100) {
        const batch = open.slice(i, i + 100);
        const res = await this.rpc.call<{ value: (unknown | null)[] }>('getMultipleAccounts', [batch, { encoding: 'base64', commitment: 'confirmed' }]);
        res.value.forEach((v, j) => v !== null && still.push(batch[j]!));
      }
      open = still;
      if (open.length > 0) await new Promise((r) => setTimeout(r, 1000));
    }
    return open.length;
  }
}
