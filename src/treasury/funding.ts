import type { AssetRegistry } from '../config/assets.ts';
import type { SolanaChain } from '../chain/solana-chain.ts';
import type { Db } from '../store/db.ts';
import { recordMovement } from '../store/settlement/record-movements.ts';
import { ChainView } from '../chain/chain-view.ts';
import { faultPoint } from '../support/fault-points.ts';
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
 * ledger once confirmed. Returns what is still missing (empty when fully funded). Each airdrop is kept in
 * `funding_airdrops` from the moment its signature is known until its ledger entry is written; the
 * settling at the end covers every row, so it also settles what a crashed earlier start left there.
 */
export async function fundFromLocalFaucet(db: Db, chain: SolanaChain, treasury: Treasury, assets: AssetRegistry, targets = DEFAULT_FUNDING): Promise<WalletReport[]> {
  const report = await treasuryReport(chain, treasury, assets, targets);
  const sent: string[] = [];
  for (const r of report) {
    const missing = BigInt(r.missing);
    // Top up only what fell below half the target: restarts do not churn the faucet.
    if (missing === 0n || missing * 2n < BigInt(r.target)) continue;
    const asset = assets.get(r.assetId)!;
    const signature =
      asset.native
        ? await rpcCall(chain, 'requestAirdrop', [r.wallet, Number(missing) <= Number.MAX_SAFE_INTEGER ? Number(missing) : missing.toString()])
        : await rpcCall(chain, 'localnet_requestTokenAirdrop', [r.wallet, asset.mint, missing.toString()]);
    const account = r.role === 'feepayer' ? `feepayer:${r.wallet}` : `pool:${r.holding}`;
    await db.query('INSERT INTO funding_airdrops (signature, account, asset_id, amount) VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING', [signature, account, r.assetId, missing.toString()]);
    sent.push(signature);
  }
  const view = new ChainView(chain);
  for (let i = 0; i < 200 && sent.length > 0; i++) {
    const st = await view.statuses(sent);
    if (st.every((s) => s && s.confirmationStatus !== 'processed')) break;
    await new Promise((r) => setTimeout(r, 100));
  }
  faultPoint('funding-confirmed');
  await settleFundingAirdrops(db, chain);
  return (await treasuryReport(chain, treasury, assets, targets)).filter((r) => r.missing !== '0');
}

/** An airdrop the chain has not seen this long after it was asked for never landed. */
const AIRDROP_GIVE_UP_S = 300;

/**
 * Puts every recorded airdrop that landed on the ledger (and forgets it in the same transaction); forgets
 * those that failed, or that the chain still does not know long after they were asked for.
 */
async function settleFundingAirdrops(db: Db, chain: SolanaChain): Promise<void> {
  const { rows } = await db.query<{ signature: string; account: string; asset_id: string; amount: string; stale: boolean }>(
    `SELECT signature, account, asset_id, amount::text, created_at < now() - make_interval(secs => $1) AS stale FROM funding_airdrops ORDER BY created_at`,
    [AIRDROP_GIVE_UP_S],
  );
  if (rows.length === 0) return;
  const statuses = await new ChainView(chain).statuses(rows.map((r) => r.signature));
  for (const [i, r] of rows.entries()) {
    const st = statuses[i];
    const landed = st && st.err === null && st.confirmationStatus !== 'processed';
    if (!landed && !(st && st.err) && !(st === null && r.stale)) continue; // still on its way
    await db.transaction(async (tx) => {
      if (landed) {
        const amount = BigInt(r.amount);
        await recordMovement(tx, `funding:${r.signature}`, 'funding', [
          { account: 'external:faucet', assetId: r.asset_id, amount: -amount },
          { account: r.account, assetId: r.asset_id, amount },
        ]);
      }
      await tx.query('DELETE FROM funding_airdrops WHERE signature = $1', [r.signature]);
    });
  }
}

export function isLocalFaucetChain(chain: SolanaChain): Promise<boolean> {
  return rpcCall(chain, 'localnet_requestTokenAirdrop', ['11111111111111111111111111111111', '11111111111111111111111111111111', '0'])
    .then(() => true)
    .catch((e: Error) => !/Method not found/.test(e.message));
}

