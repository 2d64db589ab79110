/**
 * A partner's flood of API-side chain reads does not hold up settlement. With HUSH_RPC_MAX_RPS=10, one key floods
 * deposit hints naming signatures no chain has seen (each makes Hush ask the chain for the transaction); another
 * partner's SOL order, deposit to completed, takes about as long as the same order did without the flood, and no
 * settlement call waits a second for its turn. Were the budget one queue, every settlement call would queue
 * behind the flood's (10/s in all, first come first served). A simulated Hush (test/support/sim-hush.ts): the
 * flood's requests and settlement share its simulated clock, so what is measured is the budget's turns, never the
 * machine's share of CPU.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import bs58 from 'bs58';
import { stream } from '../../sim/world.ts';
import { expectOk } from '../support/api-responses.ts';
import { closeSim } from '../support/sim-close.ts';
import { SOL, startSimHush, type SimAccount, type SimHush, type SimWallet } from '../support/sim-hush.ts';

let h: SimHush;

before(async () => {
  h = await startSimHush({ seed: 101, env: { HUSH_RPC_MAX_RPS: '10' } });
});
after(() => closeSim(h));

/** A SOL order of `acct` (off the menu: paid at the floor), placed (quote, order) but not paid. */
async function place(acct: SimAccount, sender: SimWallet): Promise<{ trackingId: string; transaction: string }> {
  const req = { amount: '123456789', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: h.address() };
  const quote = await h.until('a quote', async () => {
    const r = await acct.client.quote(req);
    return r.status === 200 ? r.body.quote : null;
  }, 20_000, 100);
  return expectOk(await acct.client.order({ quote, senderAddress: req.senderAddress, recipientAddress: req.recipientAddress })).order;
}

/** Sends the deposit straight to the chain and times deposit → completed (simulated ms), read from the store. */
async function settle(order: { trackingId: string; transaction: string }, sender: SimWallet): Promise<number> {
  const started = h.now();
  await h.drive(h.chain.send(sender.signWire(order.transaction).wire));
  await h.until(`${order.trackingId} completed`, async () => {
    const { rows } = await h.db.query<{ status: string }>('SELECT status FROM orders WHERE tracking_id = $1', [order.trackingId]);
    assert.ok(rows[0] && !['failed', 'refunded', 'expired'].includes(rows[0].status), `order ended ${rows[0]?.status}`);
    return rows[0]?.status === 'completed';
  }, 90_000, 50);
  return h.now() - started;
}

/** The settlement lane's budget waits so far (/metrics): how many, and how many took longer than 1 s. */
async function settlementWaits(): Promise<{ count: number; overOneSecond: number }> {
  const res = await h.drive(h.hush.opsApp.inject({ method: 'GET', url: '/metrics', headers: { authorization: `Bearer ${h.world.adminToken}` } }));
  const read = (re: RegExp) => Number(re.exec(res.body)?.[1] ?? NaN);
  const count = read(/^hush_rpc_budget_wait_seconds_count\{lane="settlement"\} (\d+)$/m);
  const withinOne = read(/^hush_rpc_budget_wait_seconds_bucket\{le="1",lane="settlement"\} (\d+)$/m);
  assert.ok(Number.isFinite(count) && Number.isFinite(withinOne), 'the settlement lane is in /metrics');
  return { count, overOneSecond: count - withinOne };
}

test("a flood of one partner's deposit hints does not delay another partner's settlement", async (t) => {
  const partner = await h.createAccount();
  const flooder = await h.createAccount();
  const sender = await h.wallet({ sol: 2n * SOL });
  const floodSender = await h.wallet({ sol: 2n * SOL });

  const alone = await settle(await place(partner, sender), sender);

  // The flooder's own order gives its hints something to name; the partner's second order is placed before the
  // flood (placing is an API call too: the API lane's order among partners is not this test's).
  const target = await place(flooder, floodSender);
  const order = await place(partner, sender);
  let stop = false;
  let answered = 0;
  const statuses = new Map<number, number>();
  const signatures = stream(101, 'flood');
  // Thirty callers, each asking again as soon as it is answered. Their requests are not driven one by one: they
  // run as the clock runs for whatever the test awaits.
  const flood = Array.from({ length: 30 }, async () => {
    while (!stop) {
      const res = await h.hush.app!.inject({
        method: 'POST',
        url: '/transfer/v1/deposit',
        headers: { authorization: `Bearer ${flooder.apiKey}`, 'content-type': 'application/json' },
        payload: JSON.stringify({ trackingId: target.trackingId, signature: bs58.encode(signatures.bytes(64)) }),
      });
      statuses.set(res.statusCode, (statuses.get(res.statusCode) ?? 0) + 1);
      answered++;
    }
  });
  try {
    // Under way: every one of the flood's callers has been answered once, and is asking again.
    await h.until('the flood under way', async () => answered >= 30, 60_000, 20);
    const waitsBefore = await settlementWaits();
    const answeredBefore = answered;
    const queued = h.hush.chain.budget.waiting().api;
    const flooded = await settle(order, sender);
    const waitsAfter = await settlementWaits();
    t.diagnostic(`deposit → completed ${flooded} ms under the flood (${queued} of its calls queued at the start, ${answered - answeredBefore} hints answered meanwhile: ${JSON.stringify([...statuses])}), ${alone} ms without`);
    assert.ok(queued >= 20, `the flood's calls queued for the budget as the deposit went: ${queued}`);
    assert.ok(answered > answeredBefore, 'the flood went on while the order settled');
    assert.ok(waitsAfter.count > waitsBefore.count, 'settlement made budgeted calls during the flood');
    // Behind the flood (30 calls queued at 10/s) each of settlement's calls would wait about 3 s for its turn.
    assert.equal(waitsAfter.overOneSecond - waitsBefore.overOneSecond, 0, `settlement calls that waited over 1 s for the budget during the flood`);
    assert.ok(flooded <= alone + 2_000, `deposit → completed ${flooded} ms under the flood, ${alone} ms without`);
  } finally {
    stop = true;
    await h.drive(Promise.all(flood));
  }
});
