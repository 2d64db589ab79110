/**
 * SolanaChain.blockhashAvoiding: the blockhash of Hush's own transactions is none of the open deposits'
 * blockhashes; a burst of payouts shares one fetch, later ones reuse it while it is fresh, and a set that
 * names it gets another. Calls counted by the fault proxy (no faults) in front of the local chain.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { SolanaChain } from '../../src/chain/solana-chain.ts';
import { startRpcFaultProxy, type RpcFaultProxy } from '../../src/localnet/rpc-fault-proxy.ts';
import { sleep, startTestLocalnet, type TestLocalnet } from '../support/localnet.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const SLOT_MS = 100;
let ln: TestLocalnet;
let proxy: RpcFaultProxy;
before(async () => {
  ln = await startTestLocalnet({ slotMs: SLOT_MS });
  proxy = await startRpcFaultProxy(ln.url, systemClock, systemRandom);
});
after(async () => {
  await proxy?.close();
  await ln?.close();
});

test('a burst avoiding the deposits\' blockhash shares one fetch; the result is reused while fresh; a set naming it gets another', async () => {
  const chain = new SolanaChain(proxy.url, systemClock, SLOT_MS, 3000);
  const deposits = await chain.latestBlockhash();
  await sleep(3 * SLOT_MS); // the tip has moved on: the first fetch qualifies
  proxy.reset();
  const burst = await Promise.all(Array.from({ length: 20 }, () => chain.blockhashAvoiding(new Set([deposits.blockhash]))));
  assert.equal(new Set(burst.map((b) => b.blockhash)).size, 1, 'one blockhash for the burst');
  assert.notEqual(burst[0]!.blockhash, deposits.blockhash);
  assert.equal(proxy.counts.get('getLatestBlockhash'), 1, 'one fetch for twenty payouts');

  const again = await chain.blockhashAvoiding(new Set([deposits.blockhash]));
  assert.equal(again.blockhash, burst[0]!.blockhash, 'reused while fresh');
  assert.equal(proxy.counts.get('getLatestBlockhash'), 1);

  assert.equal((await chain.latestBlockhash()).blockhash, deposits.blockhash, 'deposits keep their own cached blockhash');

  await sleep(3 * SLOT_MS);
  const other = await chain.blockhashAvoiding(new Set([deposits.blockhash, burst[0]!.blockhash]));
  assert.ok(![deposits.blockhash, burst[0]!.blockhash].includes(other.blockhash), 'none of the set');
  assert.equal(proxy.counts.get('getLatestBlockhash'), 2);
});

test('never the blockhash deposits are handed, even when no open order names it; a refresh of that cache onto it retires it', async () => {
  // The refresh must land in the slot Hush's own blockhash was fetched in; a slot boundary between the
  // two (100 ms slots, a loaded machine) leaves nothing to check, so the scenario is tried afresh.
  let checked = 0;
  for (let attempt = 0; attempt < 10 && checked === 0; attempt++) {
    const chain = new SolanaChain(proxy.url, systemClock, SLOT_MS, 3000);
    const handedOut = await chain.latestBlockhash();
    // No open order carries it yet, but the next one placed will: a payout signed with it would share it.
    const own = await chain.blockhashAvoiding(new Set());
    assert.notEqual(own.blockhash, handedOut.blockhash, 'not the cached blockhash deposits are handed');
    assert.equal((await chain.blockhashAvoiding(new Set())).blockhash, own.blockhash, 'reused while fresh');
    // Refresh the deposits' cache at once: in the same slot it reaches Hush's own blockhash (both are the
    // latest at `confirmed`), and from then on deposits may carry it, so Hush's own transactions move on.
    let cache = handedOut;
    for (let i = 0; i < 20 && cache.blockhash !== own.blockhash && cache.lastValidBlockHeight <= own.lastValidBlockHeight; i++) {
      cache = await (chain as unknown as { refreshBlockhash(): Promise<typeof own> }).refreshBlockhash();
    }
    if (cache.blockhash !== own.blockhash) continue;
    const next = await chain.blockhashAvoiding(new Set());
    assert.notEqual(next.blockhash, own.blockhash, 'retired once deposits may carry it');
    checked++;
  }
  assert.equal(checked, 1, 'in ten tries, a refresh of the deposits\' cache reached Hush\'s own blockhash at least once');
});
