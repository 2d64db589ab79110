/**
 * docs/spec.md §12 and the console's liquidity (GET /admin/v1/liquidity): one definition per column and no amount in
 * two of them — pools (on chain), pending (recorded outgoing transactions), owed (funded open orders, held ones
 * aside), held (what waits on an operator) — and free = pools − pending − owed − held. Checked on a simulated Hush
 * against the chain (the pools' balances) and the store (the held orders' amounts), with three orders held.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { Address } from '@solana/kit';
import type { AssetLiquidity } from '../../src/admin/console-reports.ts';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { ScreeningList, place, usdcOf } from '../support/sim-screening.ts';

const USDC = (n: number) => BigInt(n) * 1_000_000n;

describe('liquidity adds up', () => {
  const list = new ScreeningList();
  let h: SimHush;
  let acct: SimAccount;

  before(async () => {
    h = await startSimHush({ seed: 29, env: { ...list.env(500) } });
    acct = await h.createAccount();
  });
  after(async () => {
    await closeSim(h);
    list.remove();
  });

  const liquidity = async (assetId: string) =>
    (expectOk(await h.ops.get('/admin/v1/liquidity')) as unknown as { assets: AssetLiquidity[] }).assets.find((a) => a.assetId === assetId)!;

  test('three held orders are counted once, in held; free is pools less the other three columns; pools are the chain\'s', async () => {
    const before = await liquidity('usdc');
    assert.equal(before.held, '0');
    const amounts = [USDC(12), USDC(13), USDC(14)];
    const held: bigint[] = [];
    for (const amount of amounts) {
      const sender = await h.wallet({ sol: 100_000_000n, usdc: USDC(50) });
      const placed = await place(h, acct.client, { amount: amount.toString(), sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address as Address, recipientAddress: h.address() });
      await list.block(h, sender.address);
      await h.deposit(placed.order, sender);
      await h.waitForOrder(acct.client, placed.trackingId, ['held'], 30_000);
      held.push(BigInt(placed.amountOut));
    }
    // The pass that settles deposits and sweeps is done with them: nothing of theirs is pending.
    await h.advance(5_000);

    const now = await liquidity('usdc');
    const { rows } = await h.db.query<{ total: string }>(`SELECT coalesce(sum(amount_out), 0)::text AS total FROM orders WHERE status = 'held' AND destination_asset_id = 'usdc'`);
    assert.equal(now.held, rows[0]!.total, 'held: the held orders\' amounts, as the store has them');
    assert.equal(BigInt(now.held), held.reduce((a, b) => a + b, 0n));
    assert.equal(now.owed, before.owed, 'a held order is not also owed');
    let onChain = 0n;
    for (const p of h.hush.treasury.allPools().filter((x) => x.assetId === 'usdc')) onChain += (await usdcOf(h, p.address)) ?? 0n;
    assert.equal(BigInt(now.pools), onChain, 'pools: what the USDC pools hold on chain');
    const rest = BigInt(now.pools) - BigInt(now.pending) - BigInt(now.owed) - BigInt(now.held);
    assert.equal(BigInt(now.free), rest > 0n ? rest : 0n, 'free = pools − pending − owed − held');
    assert.ok(rest > 0n, 'the pools cover it: free is the difference, not the floor');
  });
});
