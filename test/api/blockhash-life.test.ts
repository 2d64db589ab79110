/**
 * A handed-out deposit transaction keeps ≥ 75 % of its blockhash life, even where slots are fast (50 ms: a
 * blockhash lives 7.5 s, half the cache's 15 s limit), where the cache's own bound is a quarter of the life:
 * the chain client on a real local chain, both on a clock the test moves, no Hush around it. The same through
 * the order API at mainnet's slots (the `blockhashExpiresAtSlot` partners are given): test/api/chain-faults.test.ts,
 * on its simulated Hush.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { LocalChain } from '../../src/localnet/local-chain.ts';
import { buildRpcServer } from '../../src/localnet/rpc-server.ts';
import { seededRandom } from '../../src/support/random.ts';
import { ManualClock } from '../support/manual-clock.ts';

/** A blockhash's life in blocks (one per slot on the local chain). */
const LIFE_SLOTS = 150;
/** 75 % nominal, less the slot `confirmed` lags the tip and the slot an answer may span. */
const MIN_LIFE_LEFT = 0.73;

test('at 50 ms slots, blockhashes handed out over several blockhash lives each keep ≥ 75 % of their life', async (t) => {
  const SLOT_MS = 50;
  const clock = new ManualClock(Date.UTC(2026, 0, 1));
  const chain = await LocalChain.open({ dataDir: null, slotMs: SLOT_MS, clock, random: seededRandom(7) });
  const rpc = buildRpcServer(chain);
  const fetchFn = async (_url: string, init?: RequestInit) => {
    const res = await rpc.inject({ method: 'POST', url: '/', payload: String(init?.body ?? ''), headers: { 'content-type': 'application/json' } });
    return new Response(res.body, { status: res.statusCode, headers: { 'content-type': 'application/json' } });
  };
  chain.start();
  const client = new SolanaChain('http://chain.test', clock, SLOT_MS, 5_000, 0, fetchFn);
  client.startBackgroundRefresh();
  try {
    const lives: number[] = [];
    // An order every 230 ms for four lives (30 s), off the beat of the slots and of the 5 s background refresh.
    for (let i = 0; i < 130; i++) {
      const before = chain.slot;
      // A refresh, when the cache is stale, is answered by the chain's handlers with the clock still.
      const b = await client.latestBlockhash({ lane: 'api' });
      lives.push(Number(b.expiresAtSlot - before) / LIFE_SLOTS);
      clock.advance(230);
    }
    t.diagnostic(`life left at hand-out: min ${Math.min(...lives).toFixed(3)} over ${lives.length} hand-outs, ${chain.slot} slots`);
    assert.ok(Math.min(...lives) >= MIN_LIFE_LEFT, `a blockhash was handed out with ${(Math.min(...lives) * 100).toFixed(1)} % of its life left`);
    // The bound is the cache's, not a refresh on every call: most hand-outs come from the cache.
    assert.ok(new Set(lives).size < lives.length / 2, 'hand-outs share cached blockhashes');
  } finally {
    client.stop();
    chain.close();
    await rpc.close();
  }
});
