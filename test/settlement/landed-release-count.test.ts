/**
 * Issue 54, end to end: a release whose payouts land wider apart than an outside reader's burst span is
 * several releases on the chain, and the order's privacy.releasedWith (status record and signed receipt)
 * says what the chain shows, never what Hush meant to send together. One payout of a release of three is
 * held at a JSON-RPC proxy in front of the real local chain until the other two have landed and the chain
 * has moved past the burst span; the bursts are then counted from the payouts' landing slots by the rule
 * the bench's adversary applies (docs/privacy.md), independently of Hush.
 */
import assert from 'node:assert/strict';
import { createServer, request, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { generateKeyPairSigner, getAddressEncoder, type Address, type KeyPairSigner } from '@solana/kit';
import { expectOk, fundedSender, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { benchSpanSlots, chainBursts } from '../support/chain-bursts.ts';
import { pollUntil, startTestLocalnet, type TestLocalnet } from '../support/localnet.ts';
import { chainAt, depositWithRefresh, fetchLanded, holdingOf, placeOrder, waitForOrder, type Chain, type PlacedOrder } from '../support/settlement.ts';

const SLOT_MS = 50;
/** The bench's burst span (bench/privacy/run.ts) for this chain and the spread of 0.4 s: 53 slots. */
const SPAN_SLOTS = benchSpanSlots(400, SLOT_MS);

/** A pass-through JSON-RPC proxy that holds every sendTransaction whose transaction names `key` until release(). */
async function startHoldingProxy(target: string) {
  const to = new URL(target);
  let key: Buffer | null = null;
  let release: () => void = () => {};
  let released = new Promise<void>((r) => (release = r));
  let held = 0;
  const read = async (req: IncomingMessage) => {
    const chunks: Buffer[] = [];
    for await (const c of req) chunks.push(c as Buffer);
    return Buffer.concat(chunks);
  };
  const holds = (raw: Buffer): boolean => {
    if (!key) return false;
    try {
      const body = JSON.parse(raw.toString('utf8')) as { method?: string; params?: unknown[] } | { method?: string; params?: unknown[] }[];
      return (Array.isArray(body) ? body : [body]).some((c) => c.method === 'sendTransaction' && typeof c.params?.[0] === 'string' && Buffer.from(c.params[0], 'base64').includes(key!));
    } catch {
      return false;
    }
  };
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await read(req);
      if (holds(raw)) {
        held++;
        await released;
      }
      const up = request({ host: to.hostname, port: to.port, method: req.method, path: req.url, headers: { ...req.headers, host: to.host } }, (r) => {
        res.writeHead(r.statusCode ?? 502, r.headers);
        r.pipe(res);
      });
      up.on('error', () => res.destroy());
      up.end(raw);
    })();
  });
  await new Promise<void>((ok) => server.listen(0, '127.0.0.1', ok));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    hold(address: Address) {
      key = Buffer.from(getAddressEncoder().encode(address));
      released = new Promise<void>((r) => (release = r));
    },
    held: () => held,
    release: () => release(),
    close: () => new Promise<void>((ok) => (server.closeAllConnections(), server.close(() => ok()))),
  };
}

describe('releasedWith counts where the payouts landed', () => {
  let net: TestLocalnet;
  let proxy: Awaited<ReturnType<typeof startHoldingProxy>>;
  let t: TestHush;
  let acct: TestAccount;
  let chain: Chain;
  before(async () => {
    net = await startTestLocalnet({ slotMs: SLOT_MS });
    proxy = await startHoldingProxy(net.url);
    t = await startTestHush({
      env: { SOLANA_RPC_URL: proxy.url, LOCALNET_SLOT_MS: String(SLOT_MS), HUSH_PAYOUT_DELAY_S: '0.2-0.6', HUSH_PRIVACY_K: '3', HUSH_PRIVACY_MAX_DELAY_S: '20', HUSH_RPC_TIMEOUT_MS: '1000' },
    });
    acct = await t.createAccount();
    chain = chainAt(net.url);
  });
  after(async () => {
    proxy?.release();
    await t?.close();
    await proxy?.close();
    await net?.close();
  });

  test('a release of three whose third payout lands past the burst span says 2, 2 and 1 (or 1, 1, 1), as the chain does, in its status and receipt', async () => {
    const orders: { placed: PlacedOrder; sender: KeyPairSigner; recipient: Address }[] = [];
    for (let i = 0; i < 3; i++) {
      const sender = await fundedSender(t, { usdc: 100_000_000n });
      const recipient = (await generateKeyPairSigner()).address;
      orders.push({ placed: await placeOrder(acct.client, { amount: '1000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: sender.address, recipientAddress: recipient }), sender, recipient });
    }
    const late = orders[2]!;
    proxy.hold(await holdingOf(late.recipient, 'usdc'));
    await Promise.all(orders.map((o) => depositWithRefresh(acct.client, chain, o.placed, o.sender)));
    // The two others land; the third's send waits at the proxy.
    const early = await Promise.all(orders.slice(0, 2).map((o) => waitForOrder(acct.client, o.placed.trackingId, ['completed'], 40_000)));
    const earlySlots = await Promise.all(early.map(async (r) => (await fetchLanded(chain, r.payouts[0].signature)).slot));
    assert.ok(proxy.held() > 0, "the third payout's send was held");
    const past = earlySlots.reduce((a, b) => (a > b ? a : b)) + BigInt(SPAN_SLOTS) + 5n;
    await pollUntil(async () => (await chain.rpc.getSlot({ commitment: 'confirmed' }).send()) > past, { timeoutMs: 20_000, what: 'the chain past the burst span' });
    proxy.release();
    const recs = await Promise.all(
      orders.map((o) =>
        pollUntil(
          async () => {
            const rec = await waitForOrder(acct.client, o.placed.trackingId, ['completed'], 40_000);
            return rec.privacy.releasedWith !== null ? rec : null;
          },
          { timeoutMs: 30_000, what: 'releasedWith counted' },
        ),
      ),
    );
    // Hush sent them as one release of three.
    const { rows } = await t.db.query<{ size: number }>(`SELECT class_release_size AS size FROM orders WHERE tracking_id = ANY($1)`, [orders.map((o) => o.placed.trackingId)]);
    assert.deepEqual(rows.map((r) => r.size), [3, 3, 3], 'one release of three');
    const slots = new Map<string, bigint>();
    for (const [i, r] of recs.entries()) slots.set(orders[i]!.placed.trackingId, (await fetchLanded(chain, r.payouts[0].signature)).slot);
    const bursts = chainBursts(slots, SPAN_SLOTS);
    // The held payout is a burst of its own. The two others are one burst of two unless a loaded machine sent
    // them more than the span apart (then three of one): either way Hush must say what the chain shows, below.
    const [a, b, c] = orders.map((o) => bursts.get(o.placed.trackingId));
    assert.equal(c, 1, `the held payout landed alone (slots ${[...slots.values()]})`);
    assert.ok(a === b && (a === 2 || a === 1), `the two early payouts: ${a}, ${b} (slots ${[...slots.values()]})`);
    for (const [i, o] of orders.entries()) {
      assert.equal(recs[i].privacy.releasedWith, bursts.get(o.placed.trackingId), `${o.placed.trackingId}: status says what the chain shows`);
      const receipt = await pollUntil(
        async () => {
          const res = await acct.client.request('GET', `/transfer/v1/status/${o.placed.trackingId}/receipt`);
          return res.status === 200 ? (expectOk(res) as unknown as { receipt: { document: { releasedWith: number | null } } }).receipt : null;
        },
        { timeoutMs: 15_000, what: 'the receipt' },
      );
      assert.equal(receipt.document.releasedWith, bursts.get(o.placed.trackingId), `${o.placed.trackingId}: the receipt says what the chain shows`);
    }
  });
});
