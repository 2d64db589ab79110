/**
 * A release whose payouts land wider apart than an outside reader's burst span is several releases on the
 * chain, and the order's privacy.releasedWith (status record and signed receipt) says what the chain shows,
 * never what Hush meant to send together. On a simulated Hush (test/support/sim-hush.ts), one payout of a
 * release of three is held at the provider (test/support/sim-rpc-faults.ts: its sends wait there, and reach
 * the chain at the release even when Hush gave up on them) until the other two have landed and the chain has
 * moved past the burst span; the bursts are then counted from the payouts' landing slots by the rule the
 * bench's adversary applies (docs/privacy.md), independently of Hush.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { getAddressEncoder, type Address } from '@solana/kit';
import { associatedTokenAddress } from '../../src/domain/associated-token-address.ts';
import { MINTS, TOKEN_PROGRAM } from '../../sim/chain-users.ts';
import { expectOk } from '../support/api-responses.ts';
import { benchSpanSlots, chainBursts } from '../support/chain-bursts.ts';
import { closeSim } from '../support/sim-close.ts';
import { startSimHush, type SimAccount, type SimHush } from '../support/sim-hush.ts';
import { depositTogether, payoutSlots, placeUsdc, releasedWith, usdcSender, type SimOrder } from '../support/sim-privacy.ts';
import { rpcStandIn, type RpcStandIn } from '../support/sim-rpc-faults.ts';

const SLOT_MS = 400;
/** The bench's burst span (bench/privacy/run.ts) for this chain and the spread of 0.4 s. */
const SPAN_SLOTS = benchSpanSlots(400, SLOT_MS);

/** Whether a request sends a transaction that names `account` (its 32 bytes in the wire transaction). */
function sendsNaming(account: Address): (body: string) => boolean {
  const bytes = Buffer.from(getAddressEncoder().encode(account));
  return (body) => {
    try {
      const parsed = JSON.parse(body) as { method?: string; params?: unknown[] } | { method?: string; params?: unknown[] }[];
      return (Array.isArray(parsed) ? parsed : [parsed]).some((c) => c.method === 'sendTransaction' && typeof c.params?.[0] === 'string' && Buffer.from(c.params[0], 'base64').includes(bytes));
    } catch {
      return false;
    }
  };
}

describe('releasedWith counts where the payouts landed', () => {
  let h: SimHush;
  let acct: SimAccount;
  let provider: RpcStandIn;
  before(async () => {
    h = await startSimHush({ seed: 61, env: { HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_K: '3', HUSH_PRIVACY_MAX_DELAY_S: '20', HUSH_RPC_TIMEOUT_MS: '1000' } });
    provider = rpcStandIn(h);
    acct = await h.createAccount();
  });
  after(async () => {
    provider?.release();
    await closeSim(h);
  });

  test('a release of three whose third payout lands past the burst span says 2, 2 and 1, as the chain does, in its status and receipt', async () => {
    const orders: SimOrder[] = [];
    const senders = [await usdcSender(h), await usdcSender(h), await usdcSender(h)];
    for (const sender of senders) orders.push(await placeUsdc(h, acct, '1000000', { sender }));
    const late = orders[2]!;
    provider.hold(sendsNaming(associatedTokenAddress(late.recipient, MINTS.usdc as Address, TOKEN_PROGRAM)));
    await depositTogether(h, acct.client, orders);
    // The two others land; the third's send waits at the provider.
    const early = [];
    for (const o of orders.slice(0, 2)) early.push(await h.waitForOrder(acct.client, o.trackingId, ['completed'], 120_000));
    const earlySlots = [...(await payoutSlots(h, early)).values()];
    assert.ok(provider.held() > 0, "the third payout's send was held");
    const past = earlySlots.reduce((a, b) => (a > b ? a : b)) + BigInt(SPAN_SLOTS) + 5n;
    await h.until('the chain past the burst span', async () => BigInt(await h.chain.call<number>('getSlot', [{ commitment: 'confirmed' }])) > past, 60_000);
    provider.release();
    const recs = [];
    for (const o of orders) recs.push(await releasedWith(h, acct.client, o, 300_000));
    // Hush sent them as one release of three.
    const { rows } = await h.drive(h.db.query<{ size: number }>('SELECT class_release_size AS size FROM orders WHERE tracking_id = ANY($1)', [orders.map((o) => o.trackingId)]));
    assert.deepEqual(rows.map((r) => r.size), [3, 3, 3], 'one release of three');
    const slots = await payoutSlots(h, recs);
    const bursts = chainBursts(slots, SPAN_SLOTS);
    const [a, b, c] = orders.map((o) => bursts.get(o.trackingId));
    assert.equal(c, 1, `the held payout landed alone (slots ${[...slots.values()]})`);
    assert.deepEqual([a, b], [2, 2], `the two early payouts landed as one burst (slots ${[...slots.values()]})`);
    for (const [i, o] of orders.entries()) {
      assert.equal(recs[i].privacy.releasedWith, bursts.get(o.trackingId), `${o.trackingId}: status says what the chain shows`);
      const receipt = await h.until(`the receipt of ${o.trackingId}`, async () => {
        const res = await acct.client.request('GET', `/transfer/v1/status/${o.trackingId}/receipt`);
        return res.status === 200 ? (expectOk(res) as { receipt: { document: { releasedWith: number | null } } }).receipt : null;
      }, 60_000);
      assert.equal(receipt.document.releasedWith, bursts.get(o.trackingId), `${o.trackingId}: the receipt says what the chain shows`);
    }
  });
});
