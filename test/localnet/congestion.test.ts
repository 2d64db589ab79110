/**
 * The congested local chain (src/localnet/leader-queue.ts, congestion-profile.ts): sent transactions compete
 * for each slot's block by compute-unit price against seeded background traffic, wait a few slots when they
 * do not clear, and vanish without a status after that, as on mainnet.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { CONGESTION_DEFAULTS, congestionFromEnv, type CongestionOptions } from '../../src/localnet/congestion-profile.ts';
import { loadConfig } from '../../src/config/config.ts';
import { localnetConfigFromEnv, localnetExtrasFromEnv } from '../../src/localnet/localnet-config.ts';
import { faucetWallet, pricedTransfer, sendWire, statusOf, steppedChain, type SteppedChain } from '../support/stepped-chain.ts';

/** A pool everybody writes (any address: the chain only needs to know it is wanted). */
const HOT = 'SysvarC1ock11111111111111111111111111111111';
const busy: CongestionOptions = { ...CONGESTION_DEFAULTS, profile: 'busy', seed: 11 };

async function withChain(congestion: CongestionOptions | null, body: (c: SteppedChain) => Promise<void>): Promise<void> {
  const c = await steppedChain(congestion);
  try {
    await body(c);
  } finally {
    await c.close();
  }
}

function median(xs: bigint[]): bigint {
  const s = [...xs].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
  return s[Math.floor(s.length / 2)]!;
}

describe('a congested local chain', () => {
  test('a transaction paying above the clearing price lands when its slot closes, with no status before', () =>
    withChain(busy, async (c) => {
      const payer = await faucetWallet(c);
      const tx = await pricedTransfer(c, payer, { microLamports: 50_000_000n });
      const sent = await sendWire(c, tx.wire, { skipPreflight: true });
      assert.equal(sent.result, tx.signature);
      const slot = c.chain.slot;
      assert.equal(await statusOf(c, tx.signature), null, 'waiting in the leader queue: no status yet');
      c.advance();
      assert.equal((await statusOf(c, tx.signature))?.slot, slot);
      const clearing = c.chain.leader!.clearingPrice(slot)!;
      assert.ok(clearing > 0n && clearing < 50_000_000n, `clearing ${clearing}`);
    }));

  test('one paying nothing waits its queue slots and is then gone: a signature, never a status', () =>
    withChain(busy, async (c) => {
      const payer = await faucetWallet(c);
      // The largest compute budget: it cannot squeeze into what is left of a full block either.
      const tx = await pricedTransfer(c, payer, { microLamports: 0n, units: 1_400_000 });
      assert.equal((await sendWire(c, tx.wire, { skipPreflight: true })).result, tx.signature);
      c.advance(busy.queueSlots - 1);
      assert.equal(c.chain.leader!.waiting, 1, 'still waiting within its queue slots');
      c.advance();
      assert.equal(c.chain.leader!.waiting, 0);
      c.advance(40);
      assert.equal(await statusOf(c, tx.signature), null);
      assert.equal(c.chain.getTransaction(tx.signature, 'processed'), null);
    }));

  test('with preflight, a failing transaction is refused at once and never queued', () =>
    withChain(busy, async (c) => {
      const payer = await faucetWallet(c, 10_000_000n);
      const tx = await pricedTransfer(c, payer, { microLamports: 50_000_000n, amount: 50_000_000n });
      const sent = await sendWire(c, tx.wire);
      assert.equal(Number(sent.error?.code), -32002);
      assert.equal(c.chain.leader!.waiting, 0);
    }));

  test('at a drop rate of 1 every send is lost: the RPC answers with its signature, and nothing lands', () =>
    withChain({ ...busy, dropRate: 1 }, async (c) => {
      const payer = await faucetWallet(c);
      const tx = await pricedTransfer(c, payer, { microLamports: 50_000_000n });
      for (let i = 0; i < 5; i++) {
        assert.equal((await sendWire(c, tx.wire, { skipPreflight: true })).result, tx.signature);
        c.advance(2);
      }
      assert.equal(await statusOf(c, tx.signature), null);
    }));

  test('a share of sends is lost at the drop rate, and a rebroadcast gets another chance', () =>
    withChain({ ...busy, dropRate: 0.3 }, async (c) => {
      const payer = await faucetWallet(c);
      const txs = await Promise.all(Array.from({ length: 60 }, (_, i) => pricedTransfer(c, payer, { microLamports: 50_000_000n, amount: 1_000_000n + BigInt(i) })));
      for (const tx of txs) await sendWire(c, tx.wire, { skipPreflight: true });
      c.advance();
      const landedFirst = (await Promise.all(txs.map((t) => statusOf(c, t.signature)))).filter(Boolean).length;
      assert.ok(landedFirst >= 30 && landedFirst <= 54, `${landedFirst} of 60 landed on the first send`);
      for (let round = 0; round < 8; round++) {
        for (const tx of txs) if (!(await statusOf(c, tx.signature))) await sendWire(c, tx.wire, { skipPreflight: true });
        c.advance();
      }
      assert.equal((await Promise.all(txs.map((t) => statusOf(c, t.signature)))).filter(Boolean).length, 60, 'rebroadcasts land the rest');
    }));

  test("an account's writers beyond its write limit wait for the next slot (a local fee market)", () =>
    withChain(busy, async (c) => {
      const payer = await faucetWallet(c, 1_000_000_000_000n);
      // 130 transactions of 100,000 units each, all written by one fee payer: its 12,000,000 take 120 a slot.
      const txs = await Promise.all(Array.from({ length: 130 }, (_, i) => pricedTransfer(c, payer, { microLamports: 50_000_000n, amount: 1_000_000n + BigInt(i) })));
      for (const tx of txs) await sendWire(c, tx.wire, { skipPreflight: true });
      const first = c.chain.slot;
      c.advance(2);
      const slots = (await Promise.all(txs.map((t) => statusOf(c, t.signature)))).map((s) => s?.slot);
      assert.equal(slots.filter((s) => s === first).length, 120);
      assert.equal(slots.filter((s) => s === first + 1n).length, 10);
      assert.ok(c.chain.leader!.clearingPrice(first, [payer.address])! >= 50_000_000n, 'the fee payer cleared at its own writers’ price');
    }));

  test('a hot account costs more to write than the block, in the clearing price and in getRecentPrioritizationFees', () =>
    withChain({ ...busy, hotAccounts: [HOT] }, async (c) => {
      const hot = HOT;
      c.advance(40);
      const slots = c.chain.leader!.clearedSlots();
      const higher = slots.filter((s) => c.chain.leader!.clearingPrice(s, [hot])! > c.chain.leader!.clearingPrice(s)!).length;
      assert.ok(higher >= slots.length * 0.8, `${higher} of ${slots.length} slots dearer for the hot account`);
      const plain = (await c.call('getRecentPrioritizationFees', [[]])).result as { prioritizationFee: bigint }[];
      const forHot = (await c.call('getRecentPrioritizationFees', [[hot]])).result as { prioritizationFee: bigint }[];
      assert.ok(median(forHot.map((f) => f.prioritizationFee)) > median(plain.map((f) => f.prioritizationFee)));
    }));

  test('the per-slot fees follow the market: busy slots pay, calm ones include transactions paying nothing', async () => {
    for (const [profile, paying] of [['busy', true], ['calm', false]] as const) {
      await withChain({ ...busy, profile }, async (c) => {
        c.advance(60);
        const p10 = ((await c.call('getRecentPrioritizationFees', [[], { percentile: 1000 }])).result as { prioritizationFee: bigint }[]).map((f) => f.prioritizationFee);
        const minimums = ((await c.call('getRecentPrioritizationFees', [[]])).result as { prioritizationFee: bigint }[]).map((f) => f.prioritizationFee);
        assert.equal(median(p10) > 0n, paying, `${profile}: median p10 ${median(p10)}`);
        assert.equal(median(minimums) > 0n, paying, `${profile}: median minimum ${median(minimums)}`);
      });
    }
  });

  test('the same seed draws the same market; another seed another', async () => {
    const clearing = async (seed: number) => {
      let out: bigint[] = [];
      await withChain({ ...busy, seed }, async (c) => {
        c.advance(30);
        out = c.chain.leader!.clearedSlots().map((s) => c.chain.leader!.clearingPrice(s)!);
      });
      return out;
    };
    const a = await clearing(5);
    assert.deepEqual(await clearing(5), a);
    assert.notDeepEqual(await clearing(6), a);
  });

  test('localnet_getClearingPrices answers per built slot, and [] on a chain that does not congest', async () => {
    await withChain(busy, async (c) => {
      c.advance(5);
      const prices = (await c.call('localnet_getClearingPrices', [[]])).result as { slot: bigint; clearingPrice: bigint }[];
      assert.equal(prices.length, 5);
      for (const p of prices) assert.equal(p.clearingPrice, c.chain.leader!.clearingPrice(p.slot));
    });
    await withChain(null, async (c) => {
      c.advance(5);
      assert.deepEqual((await c.call('localnet_getClearingPrices', [])).result, []);
    });
  });
});

describe('choosing congestion', () => {
  test('LOCALNET_CONGESTION picks a profile (off by default) and its knobs; anything else is refused by name', () => {
    assert.equal(congestionFromEnv({}), null);
    assert.equal(congestionFromEnv({ LOCALNET_CONGESTION: 'off' }), null);
    assert.deepEqual(congestionFromEnv({ LOCALNET_CONGESTION: 'spike', LOCALNET_CONGESTION_SEED: '9', LOCALNET_DROP_RATE: '0.1', LOCALNET_QUEUE_SLOTS: '8', LOCALNET_HOT_ACCOUNTS: 'a, b' }), {
      profile: 'spike',
      seed: 9,
      dropRate: 0.1,
      queueSlots: 8,
      hotAccounts: ['a', 'b'],
    });
    assert.throws(() => congestionFromEnv({ LOCALNET_CONGESTION: 'mainnet' }), /LOCALNET_CONGESTION/);
    assert.throws(() => congestionFromEnv({ LOCALNET_CONGESTION: 'busy', LOCALNET_DROP_RATE: '1.5' }), /LOCALNET_DROP_RATE/);
    assert.deepEqual(localnetConfigFromEnv({ LOCALNET_LAGGING_PORT: '0' }).lagging, { port: 0, slots: 4 });
    assert.throws(() => localnetConfigFromEnv({ LOCALNET_LAGGING_PORT: '0', LOCALNET_LAG_SLOTS: '20' }), /LOCALNET_LAG_SLOTS/);
  });

  test("Hush's embedded chain is given the same variables, and reads them as `npm run localnet` does", () => {
    const env = { LOCALNET_CONGESTION: 'busy', LOCALNET_DROP_RATE: '0.1', LOCALNET_LAGGING_PORT: '0', HUSH_SLOT_MS: '400' };
    const config = loadConfig(env);
    assert.deepEqual(config.localnetEnv, { LOCALNET_CONGESTION: 'busy', LOCALNET_DROP_RATE: '0.1', LOCALNET_LAGGING_PORT: '0' });
    assert.deepEqual(localnetExtrasFromEnv(config.localnetEnv!), { congestion: { ...CONGESTION_DEFAULTS, profile: 'busy', dropRate: 0.1 }, lagging: { port: 0, slots: 4 } });
  });
});
