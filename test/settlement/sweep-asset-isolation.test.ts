/**
 * The sweep pass (src/settlement/steps/sweep.ts) takes each asset on its own: an asset whose sweep fails (here
 * one the configuration no longer has, which throws before anything is locked) is logged, and the assets
 * listed beside it are still swept. Before, the failure left the pass, and every asset after it waited for
 * ever. The late-deposit pass (steps/late-deposits.ts) likewise: a candidate of such an asset neither fails
 * the plan of the others nor stops the sweeps after its own. Real store (both engines); the chain's part is
 * a stand-in that records what it was asked.
 */
import assert from 'node:assert/strict';
import { it } from 'node:test';
import type { Address } from '@solana/kit';
import type { AccountBalance } from '../../src/chain/chain-view.ts';
import { LateDeposits, type LateDepositsDeps } from '../../src/settlement/steps/late-deposits.ts';
import { Sweeps, type SweepDeps } from '../../src/settlement/steps/sweep.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';
import { forEachEngine } from '../support/databases.ts';
import { orderIn } from '../support/settlement-fixtures.ts';

forEachEngine('a sweep pass, asset by asset', (ctx) => {
  it('an asset that cannot be swept is logged; the others are still read for their sweep', async () => {
    const suffix = Math.random().toString(36).slice(2, 8);
    const [gone, kept] = [`gone${suffix}`, `kept${suffix}`];
    // Deposits of both, confirmed and past their transactions' life (the fixtures' height is 1,000).
    const orders = [await orderIn(ctx.db, 'completed', { sourceAssetId: gone, destinationAssetId: gone }), await orderIn(ctx.db, 'completed', { sourceAssetId: kept, destinationAssetId: kept })];
    const read: string[][] = [];
    const logged: { assetId?: unknown; msg: string }[] = [];
    const deps = {
      db: ctx.db,
      clock: systemClock,
      random: systemRandom,
      slotMs: 400,
      maxRps: 0,
      running: () => true,
      log: (obj: Record<string, unknown>, msg: string) => logged.push({ assetId: obj.assetId, msg }),
      asset: (id: string) => {
        if (id !== kept) throw new Error(`unknown asset ${id}`);
        return { assetId: kept, native: false };
      },
      view: {
        blockHeight: async () => 10_000n,
        // Every account reads as gone: the plan has nothing to sweep, so no transaction is built.
        balances: async (accounts: string[]) => (read.push(accounts), new Map<string, AccountBalance>()),
      },
      chain: () => ({ latestBlockhash: async () => ({ blockhash: 'bh', lastValidBlockHeight: 20_000n }) }),
      treasury: { pools: () => [{ address: 'pool' as Address, holding: 'holding' as Address }] },
    } as unknown as SweepDeps;
    const swept = await new Sweeps(deps, () => 0, 5_000).tick();
    assert.equal(swept, 0);
    const keptAccount = orders[1]!.order.depositAccount;
    assert.ok(read.some((accounts) => accounts.includes(keptAccount)), `the configured asset's deposit was read for its sweep: ${JSON.stringify(read)}`);
    assert.deepEqual(logged.filter((l) => l.assetId === gone).map((l) => l.msg), ['sweep of an asset failed; the other assets are swept']);
  });

  it('late funds: a candidate of an asset gone from the configuration fails only its own sweep', async () => {
    const suffix = Math.random().toString(36).slice(2, 8);
    const [gone, kept] = [`gone${suffix}`, `kept${suffix}`];
    const expired = await orderIn(ctx.db, 'expired', { sourceAssetId: gone, destinationAssetId: gone });
    const asked: string[] = [];
    const logged: { assetId?: unknown; msg: string }[] = [];
    const deps = {
      db: ctx.db,
      clock: systemClock,
      random: systemRandom,
      log: (obj: Record<string, unknown>, msg: string) => logged.push({ assetId: obj.assetId, msg }),
      asset: (id: string) => {
        asked.push(id);
        if (id !== kept) throw new Error(`unknown asset ${id}`);
        return { assetId: kept, native: false };
      },
      // The expired order's deposit address holds lamports and is no token account: a closed wrapped-SOL
      // deposit address would be late funds, which asks whether the asset is SOL.
      view: { balances: async (accounts: string[]) => new Map(accounts.map((a) => [a, { exists: true, lamports: 10n ** 9n, tokenAmount: null } as AccountBalance])) },
      treasury: {
        pools: (id: string) => {
          throw new Error(`stop here: the sweep of ${id} got as far as its pools`);
        },
      },
    } as unknown as LateDepositsDeps;
    const step = new LateDeposits(deps);
    const claimed = (await step.claim(deps))!;
    assert.ok(claimed.claimed.some((r) => r.id === expired.id), 'the expired order is a candidate');
    const plan = step.plan(claimed.claimed, claimed.reads);
    assert.equal(plan.find((p) => p.r.id === expired.id)?.late, false, 'an unknown asset is not SOL: its lamports are not taken for late funds');

    // Two accounts with late tokens, the gone asset's first: its sweep fails, the next one is still tried.
    const row = (id: string, assetId: string) => ({ r: { id, tracking_id: `t${id}`, deposit_account: `acct${id}` as Address, deposit_owner: `owner${id}` as Address, source_asset_id: assetId }, ownerLamports: 0n, late: true });
    assert.equal(await step.commit(deps, [row('1', gone), row('2', kept)]), 2);
    assert.deepEqual(logged.map((l) => [l.assetId, l.msg]), [
      [gone, 'late funds found; their sweep failed, retried on a later pass'],
      [kept, 'late funds found; their sweep failed, retried on a later pass'],
    ]);
  });
});
