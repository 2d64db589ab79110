/**
 * The worker's rebalancing moves follow the operator's HUSH_REBALANCE_LOT_USD and
 * HUSH_REBALANCE_SLIPPAGE_BPS (they were parsed but the defaults were used). The chain's pool balances
 * and the prices are fixed here; the plan itself is property-tested in test/domain.
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { it } from 'node:test';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { loadConfig } from '../../src/config/config.ts';
import { DEFAULT_REBALANCE_POLICY, planRebalance } from '../../src/domain/rebalance-plan.ts';
import { pricedAssets, type RebalanceRequest } from '../../src/rebalance/rebalancer.ts';
import type { Db } from '../../src/store/db.ts';
import { Treasury } from '../../src/treasury/treasury.ts';
import { TreasuryKeys } from '../../src/treasury/treasury-keys.ts';
import { SettlementWorker } from '../../src/settlement/runner.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { processFaultPoints } from '../../src/support/fault-points.ts';

const PRICES: Record<string, { num: bigint; den: bigint }> = { sol: { num: 150n, den: 1n }, usdc: { num: 1n, den: 1n }, usdt: { num: 1n, den: 1n }, bonk: { num: 2n, den: 100_000n } };
const prices = { pairRate: (a: string) => ({ from: { price: PRICES[a]! }, to: { price: PRICES[a]! } }) } as never;

async function movesWith(env: Record<string, string>): Promise<RebalanceRequest[]> {
  const config = loadConfig({ DATA_DIR: '/nonexistent', TREASURY_SEED: randomBytes(32).toString('hex'), ...env });
  const treasury = await Treasury.load(new TreasuryKeys(new Uint8Array(randomBytes(32))), config.assets);
  const requests: RebalanceRequest[] = [];
  const rebalancer = { rebalance: async (r: RebalanceRequest) => (requests.push(r), { signature: null, amountIn: r.amountIn, amountOut: r.minAmountOut }) };
  // SOL pools far above target, USDC far below: SOL is sold for USDC.
  const targets = new Map([['sol', 100n * 10n ** 9n], ['usdc', 100_000n * 10n ** 6n]]);
  const worker = new SettlementWorker(config, {} as Db, new SolanaChain('http://127.0.0.1:9', systemClock, config.localnetSlotMs, 500), treasury, { clock: systemClock, random: systemRandom, faults: processFaultPoints(), rebalancer, prices, inventoryTargets: targets, sweepIntervalMs: 3_600_000 });
  const held = new Map<string, bigint>([['sol', 1_000n * 10n ** 9n], ['usdc', 10_000n * 10n ** 6n]]);
  const balances = new Map<string, { exists: boolean; lamports: bigint; tokenAmount: bigint | null }>();
  for (const [assetId, total] of held) {
    const pools = treasury.pools(assetId);
    for (const p of pools) balances.set(p.holding, assetId === 'sol' ? { exists: true, lamports: total / BigInt(pools.length) + 10_000_000n, tokenAmount: null } : { exists: true, lamports: 2_039_280n, tokenAmount: total / BigInt(pools.length) });
  }
  (worker.context as unknown as { view: { balances: () => Promise<typeof balances> } }).view = { balances: async () => balances };
  await worker.rebalanceTick();
  // The oracle: the plan for the same inventory with the configured policy.
  const inventory = new Map([...held].map(([a, t]) => [a, (t / BigInt(treasury.pools(a).length)) * BigInt(treasury.pools(a).length)]));
  const lotUsd = { num: BigInt(env.HUSH_REBALANCE_LOT_USD ?? '1000'), den: 1n };
  const expected = planRebalance(inventory, targets, pricedAssets(prices, config.assets), { ...DEFAULT_REBALANCE_POLICY, lotUsd, slippageBps: Number(env.HUSH_REBALANCE_SLIPPAGE_BPS ?? 100) });
  assert.deepEqual(requests, expected.map((m) => ({ fromAssetId: m.fromAssetId, toAssetId: m.toAssetId, amountIn: m.amountIn, minAmountOut: m.minAmountOut })));
  return requests;
}

it('rebalancing moves use the configured lot size and slippage', async () => {
  const byDefault = await movesWith({});
  const configured = await movesWith({ HUSH_REBALANCE_LOT_USD: '250', HUSH_REBALANCE_SLIPPAGE_BPS: '300' });
  assert.ok(byDefault.length > 0 && configured.length > 0, 'SOL is sold for USDC');
  assert.equal(byDefault[0]!.fromAssetId, 'sol');
  assert.notDeepEqual(configured, byDefault, 'the configured policy changes the moves');
});
