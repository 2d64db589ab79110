import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { type Address, generateKeyPairSigner } from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { loadAssets } from '../../src/config/assets.ts';
import { parsePrice } from '../../src/domain/price.ts';
import { planRebalance } from '../../src/domain/rebalance-plan.ts';
import { LocalFaucetRebalancer } from '../../src/rebalance/local-faucet-rebalancer.ts';
import { RebalanceError } from '../../src/rebalance/rebalancer.ts';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { MINTS, TOKEN_PROGRAM, type TestLocalnet, startTestLocalnet } from '../support/localnet.ts';
import { systemClock } from '../../src/support/clock.ts';

const assets = loadAssets();

describe('LocalFaucetRebalancer (real local chain)', () => {
  let net: TestLocalnet;
  const pools = new Map<string, Address>();

  before(async () => {
    net = await startTestLocalnet();
    for (const id of ['sol', 'usdc', 'usdt', 'bonk']) pools.set(id, (await generateKeyPairSigner()).address);
  });
  after(async () => {
    await net?.close();
  });

  const rebalancer = () => new LocalFaucetRebalancer({ rpcUrl: net.url, clock: systemClock, assets, destination: (id) => pools.get(id)! });

  async function tokenBalance(owner: Address, mint: Address): Promise<bigint> {
    const [ata] = await findAssociatedTokenPda({ owner, mint, tokenProgram: TOKEN_PROGRAM });
    try {
      return BigInt((await net.rpc.getTokenAccountBalance(ata, { commitment: 'confirmed' }).send()).value.amount);
    } catch {
      return 0n;
    }
  }

  it('refills an under-target SPL asset by minting minAmountOut into the pool, confirmed', async () => {
    const before = await tokenBalance(pools.get('usdc')!, MINTS.USDC);
    const res = await rebalancer().rebalance({ fromAssetId: 'sol', toAssetId: 'usdc', amountIn: 66_666_666_666n, minAmountOut: 9_899_999_999n });
    assert.equal(res.amountIn, 0n, 'nothing is sold in embedded mode');
    assert.equal(res.amountOut, 9_899_999_999n);
    assert.ok(res.signature);
    assert.equal((await tokenBalance(pools.get('usdc')!, MINTS.USDC)) - before, 9_899_999_999n);
    const [st] = (await net.rpc.getSignatureStatuses([res.signature as Parameters<typeof net.rpc.getSignatureStatuses>[0][0]]).send()).value;
    assert.ok(st && st.err === null && st.confirmationStatus !== 'processed');
  });

  it('refills SOL with a lamport airdrop to the pool wallet, beyond 2^53 exactly', async () => {
    const owner = pools.get('sol')!;
    const before = (await net.rpc.getBalance(owner, { commitment: 'confirmed' }).send()).value;
    const amount = 9_007_199_254_740_993n; // 2^53 + 1: would be rounded by a double
    const res = await rebalancer().rebalance({ fromAssetId: 'usdc', toAssetId: 'sol', amountIn: 1n, minAmountOut: amount });
    const after = (await net.rpc.getBalance(owner, { commitment: 'confirmed' }).send()).value;
    assert.equal(after - before, amount);
    assert.equal(res.amountOut, amount);
  });

  it('carries out a plan from planRebalance end to end (BONK refilled in whole lots)', async () => {
    const prices = new Map(assets.list.map((a) => [a.assetId, { price: parsePrice(a.referencePriceUsd), decimals: a.decimals }]));
    const moves = planRebalance(
      new Map([['usdc', 300_000n * 10n ** 6n], ['bonk', 0n]]),
      new Map([['usdc', 250_000n * 10n ** 6n], ['bonk', 1_000_000_000n * 10n ** 5n]]),
      prices,
      { lotUsd: parsePrice('1000'), slippageBps: 100, toleranceBps: 1000 },
    );
    assert.deepEqual(moves.map((m) => [m.fromAssetId, m.toAssetId, m.lots]), [['usdc', 'bonk', 20n]]);
    const before = await tokenBalance(pools.get('bonk')!, MINTS.BONK);
    const r = rebalancer();
    for (const m of moves) await r.rebalance(m);
    // 20 lots = $20 000 of BONK at $0.00002 = 10^9 BONK, less 1 %: 9.9·10^8 BONK = 9.9·10^13 base units
    assert.equal((await tokenBalance(pools.get('bonk')!, MINTS.BONK)) - before, 99_000_000_000_000n);
  });

  it("through the chain's shared JSON-RPC path (post): refilled the same, each call counted by the request budget", async () => {
    const chain = new SolanaChain(net.url, systemClock, 50, 5_000, 0);
    const r = new LocalFaucetRebalancer({ rpcUrl: net.url, clock: systemClock, post: (body, methods) => chain.post(body, methods), assets, destination: (id) => pools.get(id)! });
    const before = await tokenBalance(pools.get('usdt')!, MINTS.USDT);
    await r.rebalance({ fromAssetId: 'sol', toAssetId: 'usdt', amountIn: 1n, minAmountOut: 123_456n });
    assert.equal((await tokenBalance(pools.get('usdt')!, MINTS.USDT)) - before, 123_456n);
    const counted = (await chain.budget.requests.get()).values.find((v) => v.labels.method === 'localnet_requestTokenAirdrop' && v.labels.outcome === 'ok');
    assert.equal(counted?.value, 1);
  });

  it('refuses unknown assets and empty refills, and reports a faucet refusal', async () => {
    await assert.rejects(rebalancer().rebalance({ fromAssetId: 'sol', toAssetId: 'doge', amountIn: 1n, minAmountOut: 1n }), (e) => e instanceof RebalanceError && e.code === 'UNKNOWN_ASSET');
    await assert.rejects(rebalancer().rebalance({ fromAssetId: 'sol', toAssetId: 'usdc', amountIn: 1n, minAmountOut: 0n }), (e) => e instanceof RebalanceError && e.code === 'BAD_PLAN');
    const bad = new LocalFaucetRebalancer({ rpcUrl: net.url, clock: systemClock, assets, destination: () => 'not-an-address' });
    await assert.rejects(bad.rebalance({ fromAssetId: 'sol', toAssetId: 'usdc', amountIn: 1n, minAmountOut: 5n }), (e) => e instanceof RebalanceError && e.code === 'FAUCET_REFUSED');
  });
});
