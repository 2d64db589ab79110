/**
 * Embedded-mode rebalancing: there is no market on the local chain, so the under-target asset is
 * refilled from the local faucet (`requestAirdrop` for SOL, `localnet_requestTokenAirdrop` for SPL
 * tokens) into a pool wallet. Nothing is sold, so `amountIn` is 0; the amount minted is the plan's
 * `minAmountOut` (what a market swap would at least have delivered), so embedded inventory is never
 * credited more than a real swap would have brought.
 */
import type { AssetRegistry } from '../config/assets.ts';
import type { FetchLike } from '../prices/http.ts';
import { type RebalanceRequest, RebalanceError, type RebalanceResult, type Rebalancer } from './rebalancer.ts';
import type { Clock } from '../support/clock.ts';

export interface LocalFaucetRebalancerOptions {
  /** JSON-RPC URL of the embedded chain. */
  rpcUrl: string;
  /** Where the wait for a refill's confirmation is timed. */
  clock: Clock;
  assets: AssetRegistry;
  /** The wallet (owner) that receives the refill of an asset, e.g. one of its pool wallets. */
  destination: (assetId: string) => string | Promise<string>;
  /** Wait until the refill is confirmed (default true). */
  confirm?: boolean;
  confirmTimeoutMs?: number;
  fetch?: FetchLike;
  /** Sends one JSON-RPC body and returns the parsed reply (the chain's shared path: status checked, request budget); used instead of fetch when given. */
  post?: (body: string, methods: readonly string[]) => Promise<unknown>;
}

type Commitment = 'processed' | 'confirmed' | 'finalized';

export class LocalFaucetRebalancer implements Rebalancer {
  constructor(private readonly opts: LocalFaucetRebalancerOptions) {}

  private async rpc<T>(method: string, paramsJson: string): Promise<T> {
    const doFetch = this.opts.fetch ?? ((u: string, i?: RequestInit) => fetch(u, i));
    // Built by hand so that u64 amounts go out as exact JSON integers (never through a double).
    const body = `{"jsonrpc":"2.0","id":1,"method":${JSON.stringify(method)},"params":${paramsJson}}`;
    let parsed: { result?: T; error?: { message?: string } };
    try {
      if (this.opts.post) parsed = (await this.opts.post(body, [method])) as typeof parsed;
      else {
        const res = await doFetch(this.opts.rpcUrl, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
        if (!res.ok) throw new Error(`HTTP ${res.status}`);
        parsed = (await res.json()) as typeof parsed;
      }
    } catch (e) {
      throw new RebalanceError(`${method}: local chain unreachable`, 'RPC_FAILED', { cause: e });
    }
    if (parsed.error || parsed.result === undefined) throw new RebalanceError(`${method}: ${parsed.error?.message ?? 'no result'}`, 'FAUCET_REFUSED');
    return parsed.result;
  }

  private async waitConfirmed(signature: string): Promise<void> {
    const deadline = this.opts.clock.now() + (this.opts.confirmTimeoutMs ?? 30_000);
    const rank: Record<Commitment, number> = { processed: 0, confirmed: 1, finalized: 2 };
    for (;;) {
      const r = await this.rpc<{ value: ({ confirmationStatus?: Commitment; err: unknown } | null)[] }>('getSignatureStatuses', `[[${JSON.stringify(signature)}]]`);
      const st = r.value[0];
      if (st?.err) throw new RebalanceError(`faucet transaction ${signature} failed`, 'FAUCET_FAILED');
      if (st?.confirmationStatus && rank[st.confirmationStatus] >= rank.confirmed) return;
      if (this.opts.clock.now() > deadline) throw new RebalanceError(`faucet transaction ${signature} not confirmed in time`, 'CONFIRM_TIMEOUT');
      await this.opts.clock.sleep(50);
    }
  }

  async rebalance(plan: RebalanceRequest): Promise<RebalanceResult> {
    const to = this.opts.assets.get(plan.toAssetId);
    if (!to) throw new RebalanceError(`unknown asset ${plan.toAssetId}`, 'UNKNOWN_ASSET');
    if (!this.opts.assets.get(plan.fromAssetId)) throw new RebalanceError(`unknown asset ${plan.fromAssetId}`, 'UNKNOWN_ASSET');
    const amount = plan.minAmountOut;
    if (amount <= 0n) throw new RebalanceError('nothing to refill: minAmountOut must be positive', 'BAD_PLAN');
    const owner = await this.opts.destination(plan.toAssetId);
    const signature = to.native
      ? await this.rpc<string>('requestAirdrop', `[${JSON.stringify(owner)},${amount.toString()}]`)
      : await this.rpc<string>('localnet_requestTokenAirdrop', `[${JSON.stringify(owner)},${JSON.stringify(to.mint)},${JSON.stringify(amount.toString())}]`);
    if (this.opts.confirm ?? true) await this.waitConfirmed(signature);
    return { signature, amountIn: 0n, amountOut: amount };
  }
}
