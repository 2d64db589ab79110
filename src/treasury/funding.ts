import type { AssetRegistry } from '../config/assets.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { Db } from '../store/db.ts';
import { recordMovement } from '../store/settlement-store.ts';
import { ChainView } from '../worker/chain-view.ts';
import type { Treasury } from './treasury.ts';

/** What each wallet should hold; the local faucet tops up to these, a real deployment reports the gap. */
export interface FundingTargets {
  feePayerLamports: bigint;
  /** Per pool wallet, in whole tokens of the asset. */
  poolTokens: Record<string, bigint>;
}

export const DEFAULT_FUNDING: FundingTargets = {
  feePayerLamports: 1_000n * 1_000_000_000n,
  poolTokens: { sol: 500n, usdc: 250_000n, usdt: 250_000n, bonk: 5_000_000_000n },
};

export interface WalletReport {
  role: 'feepayer' | 'pool';
  wallet: string;
  holding: string;
  assetId: string;
  balance: string;
  target: string;
  missing: string;
}

/** Balances of the fee payer and every pool against their targets (`npm run admin -- treasury`). */
export async function treasuryReport(chain: SolanaChain, treasury: Treasury, assets: AssetRegistry, targets = DEFAULT_FUNDING): Promise<WalletReport[]> {
  const view = new ChainView(chain);
  const pools = treasury.allPools();
  const balances = await view.balances([treasury.feePayer.address, ...pools.map((p) => p.holding)], 'confirmed');
  const rows: WalletReport[] = [];
  const fp = balances.get(treasury.feePayer.address)?.lamports ?? 0n;
  rows.push(row('feepayer', treasury.feePayer.address, treasury.feePayer.address, 'sol', fp, targets.feePayerLamports));
  for (const p of pools) {
    const asset = assets.get(p.assetId)!;
    const b = balances.get(p.holding);
    const held = asset.native ? (b?.lamports ?? 0n) : (b?.tokenAmount ?? 0n);
    rows.push(row('pool', p.address, p.holding, p.assetId, held, (targets.poolTokens[p.assetId] ?? 0n) * 10n ** BigInt(asset.decimals)));
  }
  return rows;
}

function row(role: WalletReport['role'], wallet: string, holding: string, assetId: string, balance: bigint, target: bigint): WalletReport {
  return { role, wallet, holding, assetId, balance: balance.toString(), target: target.toString(), missing: (target > balance ? target - balance : 0n).toString() };
}

async function rpcCall(chain: SolanaChain, method: string, params: unknown[]): Promise<string> {
  const body = JSON.stringify({ jsonrpc: '2.0', id: 1, method, params });
  const res = await fetch(chain.url, { method: 'POST', headers: { 'content-type': 'application/json' }, body, signal: chain.requestSignal() });
  const reply = (await res.json()) as { result?: string; error?: { message: string } };
  if (!reply.result) throw new Error(`${method}: ${reply.error?.message ?? 'no result'}`);
  return reply.result;
}

/**
 * On a chain with the local faucet, tops every wallet up to its target and records the funding in the
 * ledger once confirmed. Returns what is still missing (empty when fully funded).
 */
export async function fundFromLocalFaucet(db: Db, chain: SolanaChain, treasury: Treasury, assets: AssetRegistry, targets = DEFAULT_FUNDING): Promise<WalletReport[]> {
  const report = await treasuryReport(chain, treasury, assets, targets);
  const sent: { signature: string; r: WalletReport; amount: bigint }[] = [];
  for (const r of report) {
    const missing = BigInt(r.missing);
    // Top up only what fell below half the target: restarts do not churn the faucet.
    if (missing === 0n || missing * 2n < BigInt(r.target)) continue;
    const asset = assets.get(r.assetId)!;
    const signature =
      asset.native
        ? await rpcCall(chain, 'requestAirdrop', [r.wallet, Number(missing) <= Number.MAX_SAFE_INTEGER ? Number(missing) : missing.toString()])
        : await rpcCall(chain, 'localnet_requestTokenAirdrop', [r.wallet, asset.mint, missing.toString()]);
    sent.push({ signature, r, amount: missing });
  }
  const view = new ChainView(chain);
  for (let i = 0; i < 200 && sent.length > 0; i++) {
    const st = await view.statuses(sent.map((s) => s.signature));
    if (st.every((s) => s && s.confirmationStatus !== 'processed')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  for (const s of sent) {
    const account = s.r.role === 'feepayer' ? `feepayer:${s.r.wallet}` : `pool:${s.r.holding}`;
    await recordMovement(db, `funding:${s.signature}`, 'funding', [
      { account: 'external:faucet', assetId: s.r.assetId, amount: -s.amount },
      { account, assetId: s.r.assetId, amount: s.amount },
    ]);
  }
  return (await treasuryReport(chain, treasury, assets, targets)).filter((r) => r.missing !== '0');
}

export function isLocalFaucetChain(chain: SolanaChain): Promise<boolean> {
  return rpcCall(chain, 'localnet_requestTokenAirdrop', ['11111111111111111111111111111111', '11111111111111111111111111111111', '0'])
    .then(() => true)
    .catch((e: Error) => !/Method not found/.test(e.message));
}

