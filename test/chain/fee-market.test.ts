/**
 * The fee market (src/chain/fee-market.ts): getRecentPrioritizationFees over a transaction's accounts, in
 * the percentile form where the endpoint takes it and the agave form where it refuses it, one call per
 * account set and slot however many transactions ask.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { callUrl, FeeMarket, type RpcCall } from '../../src/chain/fee-market.ts';
import { ChainUnavailableError, JsonRpcError } from '../../src/chain/json-rpc.ts';
import { CONGESTION_DEFAULTS } from '../../src/localnet/congestion-profile.ts';
import { buildRpcServer } from '../../src/localnet/rpc-server.ts';
import { estimateComputeUnitPrice, MARKET_PERCENTILE_BPS } from '../../src/domain/fee-estimate.ts';
import { ManualClock } from '../support/manual-clock.ts';
import { steppedChain } from '../support/stepped-chain.ts';

const SLOT_MS = 400;

/** An endpoint that answers two slots of fees and records what it was asked; `refusePercentile` as stock agave does. */
function endpoint(opts: { refusePercentile?: boolean; down?: boolean } = {}) {
  const asked: unknown[][] = [];
  const call: RpcCall = async (method, params) => {
    asked.push(params);
    if (opts.down) throw new ChainUnavailableError('RPC unreachable');
    assert.equal(method, 'getRecentPrioritizationFees');
    if (params.length > 1 && opts.refusePercentile) throw new JsonRpcError(method, -32602, 'Invalid params: invalid length 2, expected at most 1');
    return [
      { slot: 10, prioritizationFee: params.length > 1 ? 7000 : 0 },
      { slot: 11, prioritizationFee: params.length > 1 ? 9000 : 5000 },
    ];
  };
  return { asked, call };
}

describe('the fee market', () => {
  test('asks with the percentile and answers per slot in that form', async () => {
    const e = endpoint();
    const market = new FeeMarket(e.call, new ManualClock(0), { slotMs: SLOT_MS });
    const fees = await market.recentFees(['B', 'A', 'B']);
    assert.deepEqual(fees, { slots: [{ slot: 10n, fee: 7000n }, { slot: 11n, fee: 9000n }], percentileBps: MARKET_PERCENTILE_BPS });
    assert.deepEqual(e.asked, [[['A', 'B'], { percentile: MARKET_PERCENTILE_BPS }]], 'each account once, in one order');
  });

  test('one call per account set and slot, however many transactions ask, at once or later in the slot', async () => {
    const e = endpoint();
    const clock = new ManualClock(0);
    const market = new FeeMarket(e.call, clock, { slotMs: SLOT_MS });
    await Promise.all(Array.from({ length: 50 }, () => market.recentFees(['payer', 'pool'])));
    clock.advance(SLOT_MS - 1);
    await market.recentFees(['pool', 'payer']);
    assert.equal(e.asked.length, 1);
    await market.recentFees(['payer', 'other-pool']);
    assert.equal(e.asked.length, 2, 'another set is another question');
    clock.advance(1);
    await market.recentFees(['payer', 'pool']);
    assert.equal(e.asked.length, 3, 'a slot later, asked again');
  });

  test('an endpoint that refuses the percentile is asked in the agave form, and not offered it again for an hour', async () => {
    const e = endpoint({ refusePercentile: true });
    const clock = new ManualClock(0);
    const market = new FeeMarket(e.call, clock, { slotMs: SLOT_MS });
    assert.deepEqual(await market.recentFees(['A']), { slots: [{ slot: 10n, fee: 0n }, { slot: 11n, fee: 5000n }], percentileBps: null });
    assert.equal(market.percentileServed, false);
    clock.advance(SLOT_MS);
    await market.recentFees(['A']);
    assert.deepEqual(e.asked.map((p) => p.length), [2, 1, 1]);
    clock.advance(3_600_000);
    await market.recentFees(['A']);
    assert.deepEqual(e.asked.map((p) => p.length), [2, 1, 1, 2, 1], 'offered again after the hour');
  });

  test('a chain that cannot be asked rejects, and the next asker tries again', async () => {
    const e = endpoint({ down: true });
    const market = new FeeMarket(e.call, new ManualClock(0), { slotMs: SLOT_MS });
    await assert.rejects(market.recentFees(['A']), ChainUnavailableError);
    await assert.rejects(market.recentFees(['A']), ChainUnavailableError);
    assert.equal(e.asked.length, 2);
    assert.equal(market.percentileServed, true, 'an unreachable chain refused nothing');
  });

  test('with percentileBps null it asks the agave form only', async () => {
    const e = endpoint();
    await new FeeMarket(e.call, new ManualClock(0), { slotMs: SLOT_MS, percentileBps: null }).recentFees(['A']);
    assert.deepEqual(e.asked, [[['A']]]);
  });

  test('against a busy local chain: the percentile form, and a price that clears most recent slots', async () => {
    const c = await steppedChain({ ...CONGESTION_DEFAULTS, profile: 'busy', seed: 4 });
    const server = buildRpcServer(c.chain);
    try {
      c.advance(40);
      const fetchFn = async (_url: string, init?: RequestInit) => {
        const res = await server.inject({ method: 'POST', url: '/', payload: String(init?.body ?? ''), headers: { 'content-type': 'application/json' } });
        return new Response(res.body, { status: res.statusCode, headers: { 'content-type': 'application/json' } });
      };
      const clock = new ManualClock(0);
      const market = new FeeMarket(callUrl('http://chain.test', clock, 5_000, fetchFn), clock, { slotMs: SLOT_MS });
      const fees = await market.recentFees([c.chain.faucet.address]);
      assert.equal(fees.percentileBps, MARKET_PERCENTILE_BPS);
      assert.equal(fees.slots.at(-1)!.slot, c.chain.slot - 1n, 'up to the confirmed slot');
      const price = estimateComputeUnitPrice({ level: 'fast', market: fees, own: [], tipSlot: c.chain.slot, computeUnits: 100_000, baseFeeLamports: 10_000n, capLamports: 10_000_000n, fallbackPrice: 1_000n });
      const recent = c.chain.leader!.clearedSlots().slice(-20);
      const cleared = recent.filter((s) => price.microLamportsPerCu > c.chain.leader!.clearingPrice(s)!).length;
      assert.ok(cleared >= recent.length / 2, `${price.microLamportsPerCu} cleared ${cleared} of the last ${recent.length} slots`);
    } finally {
      await server.close();
      await c.close();
    }
  });
});
