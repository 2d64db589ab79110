/**
 * What an operator reads (issue 37): one info record per order transition, with the tracking id, from and
 * to and nothing else (no amounts, no addresses), exactly once each; one request record per request at info,
 * except status polls and health checks, which are at debug. A real in-process Hush, a real send.
 */
import assert from 'node:assert/strict';
import { after, before, test } from 'node:test';
import { generateKeyPairSigner } from '@solana/kit';
import { startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { SOL, chainAt, newWallet, placeOrder, signAndSend, waitForOrder } from '../support/settlement.ts';

const records: { level: string; fields: Record<string, unknown>; msg: string }[] = [];
const apiLines: { level: number; msg: string; req?: { method: string; url: string } }[] = [];
let t: TestHush;
let acct: TestAccount;

before(async () => {
  t = await startTestHush({
    records: (level, fields, msg) => records.push({ level, fields, msg }),
    apiLog: (line) => apiLines.push(JSON.parse(line)),
  });
  acct = await t.createAccount();
});
after(async () => {
  await t?.close();
});

test('a send logs each transition once at info: trackingId, from, to, and no amount or address', async () => {
  const chain = chainAt(t.chainUrl);
  const sender = await newWallet(chain, { sol: 2n * SOL });
  const recipient = (await generateKeyPairSigner()).address;
  const placed = await placeOrder(acct.client, { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender.address, recipientAddress: recipient });
  await signAndSend(chain, placed.order.transaction, sender);
  const rec = await waitForOrder(acct.client, placed.trackingId, ['completed'], 90_000);

  const mine = records.filter((r) => r.msg === 'order transition' && r.fields.trackingId === placed.trackingId);
  assert.ok(mine.length >= 2, `transition records: ${JSON.stringify(mine)}`);
  for (const r of mine) {
    assert.equal(r.level, 'info');
    assert.deepEqual(Object.keys(r.fields).sort(), ['from', 'to', 'trackingId']);
    const text = JSON.stringify(r);
    for (const secretish of [placed.amountIn.toString(), placed.amountOut.toString(), sender.address, recipient, placed.depositAccount]) {
      assert.ok(!text.includes(secretish), `a transition record carries no amount or address: ${text}`);
    }
  }
  // Every status the history lists after the first, each reached once, in order, from the one before.
  const history: string[] = rec.history.map((h: { status: string }) => h.status);
  assert.deepEqual(
    mine.map((r) => `${r.fields.from}>${r.fields.to}`),
    history.slice(1).map((s, i) => `${history[i]}>${s}`),
  );
});

test('request records: info for quote and order, none at info for status polls', () => {
  const completed = apiLines.filter((l) => l.msg === 'request completed');
  const info = (method: string, url: RegExp) => completed.filter((l) => l.level === 30 && l.req?.method === method && url.test(l.req.url));
  assert.equal(info('POST', /^\/transfer\/v1\/quote$/).length, 1, JSON.stringify(completed.slice(0, 5)));
  assert.equal(info('POST', /^\/transfer\/v1\/order$/).length, 1);
  assert.deepEqual(info('GET', /^\/transfer\/v1\/status\//), [], 'status polls are below info');
  assert.equal(apiLines.filter((l) => l.msg === 'incoming request').length, 0, "Fastify's second line per request is off");
});
