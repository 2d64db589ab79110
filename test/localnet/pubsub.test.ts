/**
 * The local chain's PubSub WebSocket API, driven by an unmodified @solana/kit `createSolanaRpcSubscriptions`
 * client (protocol probes kit cannot express go through a raw `ws` socket): every method, unsubscribe,
 * commitment levels, bad params, and many sockets opened and closed.
 */
import assert from 'node:assert/strict';
import { after, afterEach, before, describe, it } from 'node:test';
import { createServer, type Server } from 'node:net';
import WebSocket from 'ws';
import {
  createSolanaRpcSubscriptions,
  generateKeyPairSigner,
  isSolanaError,
  lamports,
  SOLANA_ERROR__JSON_RPC__INVALID_PARAMS,
  type Address,
  type RpcSubscriptions,
  type SolanaRpcSubscriptionsApi,
} from '@solana/kit';
import { findAssociatedTokenPda } from '@solana-program/token';
import { startLocalnet } from '../../src/localnet/start-localnet.ts';
import { fundedWallet, makeTempDir, MINTS, removeDir, pollUntil, requestTokenAirdrop, send, sleep, startTestLocalnet, TOKEN_PROGRAM, transferTx, type TestLocalnet } from '../support/localnet.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const SYSTEM_PROGRAM = '11111111111111111111111111111111';

let net: TestLocalnet;
let subs: RpcSubscriptions<SolanaRpcSubscriptionsApi>;

before(async () => {
  net = await startTestLocalnet({ slotMs: 50 });
  subs = createSolanaRpcSubscriptions(net.net.wsUrl);
});
after(async () => {
  await net.close();
});

/** Collects notifications from a kit subscription until `done` says enough, or fails after the timeout. */
async function collect<T>(iterable: AsyncIterable<T>, done: (items: T[]) => boolean, timeoutMs = 15_000): Promise<T[]> {
  const items: T[] = [];
  const timer = sleep(timeoutMs).then(() => 'timeout' as const);
  const it = iterable[Symbol.asyncIterator]();
  while (!done(items)) {
    const next = await Promise.race([it.next(), timer]);
    if (next === 'timeout') throw new Error(`timed out after ${items.length} notifications`);
    if (next.done) break;
    items.push(next.value);
  }
  return items;
}

/** A raw socket that records every message and answers requests by id. */
async function rawSocket(url = net.net.wsUrl) {
  const ws = new WebSocket(url);
  await new Promise((res, rej) => (ws.once('open', res), ws.once('error', rej)));
  const messages: any[] = [];
  ws.on('message', (d) => messages.push(JSON.parse(d.toString())));
  let nextId = 1;
  return {
    ws,
    messages,
    async request(method: string, params?: unknown): Promise<any> {
      const id = nextId++;
      ws.send(JSON.stringify({ jsonrpc: '2.0', id, method, ...(params === undefined ? {} : { params }) }));
      return pollUntil(async () => messages.find((m) => m.id === id), { what: `answer to ${method}` });
    },
    async raw(text: string): Promise<any> {
      const before = messages.length;
      ws.send(text);
      return pollUntil(async () => messages.length > before && messages[messages.length - 1], { what: 'an answer' });
    },
  };
}

const pubsub = () => net.net.pubsub;

describe('PubSub WebSocket API (kit client)', () => {
  // Every test aborts its subscriptions: kit then unsubscribes, and the server must be back to none.
  afterEach(async () => {
    await pollUntil(async () => pubsub().hub.subscriptionCount === 0, { what: 'kit unsubscribed everything' });
  });

  it('slotSubscribe: consecutive slots with parent and root, then unsubscribe stops them', async () => {
    const abort = new AbortController();
    const stream = await subs.slotNotifications().subscribe({ abortSignal: abort.signal });
    const got = await collect(stream, (x) => x.length >= 3);
    for (let i = 1; i < got.length; i++) assert.equal(got[i]!.slot, got[i - 1]!.slot + 1n);
    for (const n of got) {
      assert.equal(n.parent, n.slot - 1n);
      assert.ok(n.root <= n.slot);
    }
    abort.abort();
    await pollUntil(async () => pubsub().hub.subscriptionCount === 0, { what: 'slot subscription gone' });
  });

  it('accountSubscribe base64: lamports at confirmed, context slot, one notification per change', async () => {
    const target = (await generateKeyPairSigner()).address;
    const abort = new AbortController();
    const stream = await subs.accountNotifications(target, { commitment: 'confirmed', encoding: 'base64' }).subscribe({ abortSignal: abort.signal });
    // kit buffers only once iteration has started: iterate first, then cause the change.
    const got = collect(stream, (x) => x.length >= 1);
    const sig = await net.rpc.requestAirdrop(target, lamports(1_000_000n)).send();
    const [n] = await got;
    assert.equal(n!.value.lamports, 1_000_000n);
    assert.equal(n!.value.owner, SYSTEM_PROGRAM);
    assert.deepEqual(n!.value.data, ['', 'base64']);
    const [st] = (await net.rpc.getSignatureStatuses([sig]).send()).value;
    assert.equal(n!.context.slot, st!.slot, 'notified for the slot that changed it');
    abort.abort();
  });

  it('accountSubscribe jsonParsed and base64 of a token account', async () => {
    const owner = (await generateKeyPairSigner()).address;
    const [ata] = await findAssociatedTokenPda({ owner, mint: MINTS.USDC, tokenProgram: TOKEN_PROGRAM });
    const abort = new AbortController();
    const parsed = await subs.accountNotifications(ata, { commitment: 'confirmed', encoding: 'jsonParsed' }).subscribe({ abortSignal: abort.signal });
    const binary = await subs.accountNotifications(ata, { commitment: 'processed', encoding: 'base64' }).subscribe({ abortSignal: abort.signal });
    const gotParsed = collect(parsed, (x) => x.length >= 1);
    const gotBinary = collect(binary, (x) => x.length >= 1);
    await requestTokenAirdrop(net.url, owner, MINTS.USDC, 2_500_000n);
    const [p] = await gotParsed;
    const data = p!.value.data as { program: string; parsed: { type: string; info: { owner: string; mint: string; tokenAmount: { amount: string; decimals: number } } } };
    assert.equal(data.program, 'spl-token');
    assert.equal(data.parsed.type, 'account');
    assert.equal(data.parsed.info.owner, owner);
    assert.equal(data.parsed.info.mint, MINTS.USDC);
    assert.equal(data.parsed.info.tokenAmount.amount, '2500000');
    assert.equal(p!.value.owner, TOKEN_PROGRAM);
    const [b] = await gotBinary;
    const [text, encoding] = b!.value.data as unknown as [string, string];
    assert.equal(encoding, 'base64');
    assert.equal(Buffer.from(text, 'base64').length, 165);
    assert.ok(b!.context.slot <= p!.context.slot);
    abort.abort();
  });

  it('signatureSubscribe: one notification at the commitment, then the server drops it', async () => {
    const wallet = await fundedWallet(net.rpc);
    const before = pubsub().hub.subscriptionCount;
    const tx = await transferTx(net.rpc, wallet, (await generateKeyPairSigner()).address, 1_000_000n);
    const abort = new AbortController();
    const stream = await subs.signatureNotifications(tx.signature, { commitment: 'finalized' }).subscribe({ abortSignal: abort.signal });
    assert.equal(pubsub().hub.subscriptionCount, before + 1);
    const got = collect(stream, (x) => x.length >= 1);
    await send(net.rpc, tx.wire);
    const [n] = await got;
    assert.deepEqual(n!.value, { err: null });
    const [st] = (await net.rpc.getSignatureStatuses([tx.signature]).send()).value;
    assert.equal(st!.confirmationStatus, 'finalized', 'not notified before finalized');
    await pollUntil(async () => pubsub().hub.subscriptionCount === before, { what: 'the one-shot subscription removed by the server' });
    abort.abort();
  });

  it('signatureSubscribe for a signature that landed before the subscription is notified too', async () => {
    const wallet = await fundedWallet(net.rpc);
    const sig = await net.rpc.requestAirdrop(wallet.address, lamports(5000n)).send();
    const abort = new AbortController();
    const stream = await subs.signatureNotifications(sig, { commitment: 'processed' }).subscribe({ abortSignal: abort.signal });
    const [n] = await collect(stream, (x) => x.length >= 1, 5000);
    assert.deepEqual(n!.value, { err: null });
    abort.abort();
  });

  it('logsSubscribe: mentions and all', async () => {
    const wallet = await fundedWallet(net.rpc);
    const abort = new AbortController();
    const mentions = await subs.logsNotifications({ mentions: [wallet.address] }, { commitment: 'confirmed' }).subscribe({ abortSignal: abort.signal });
    const all = await subs.logsNotifications('all', { commitment: 'processed' }).subscribe({ abortSignal: abort.signal });
    const tx = await transferTx(net.rpc, wallet, (await generateKeyPairSigner()).address, 1_000_000n);
    const gotMentions = collect(mentions, (x) => x.length >= 1);
    const gotAll = collect(all, (x) => x.some((n) => n.value.signature === tx.signature));
    await send(net.rpc, tx.wire);
    const [m] = await gotMentions;
    assert.equal(m!.value.signature, tx.signature);
    assert.equal(m!.value.err, null);
    assert.ok(m!.value.logs.includes(`Program ${SYSTEM_PROGRAM} invoke [1]`), m!.value.logs.join('\n'));
    const seen = await gotAll;
    assert.ok(seen.length >= 1);
    abort.abort();
    await pollUntil(async () => pubsub().hub.subscriptionCount === 0, { what: 'log subscriptions gone after abort' });
  });

  it('bad params answer a JSON-RPC error through kit', async () => {
    await assert.rejects(
      subs.logsNotifications({ mentions: [SYSTEM_PROGRAM as Address, MINTS.USDC] } as unknown as { mentions: [Address] }).subscribe({ abortSignal: new AbortController().signal }),
      (e) => isSolanaError(e, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS),
    );
    await assert.rejects(
      subs.accountNotifications('not-an-address' as Address).subscribe({ abortSignal: new AbortController().signal }),
      (e) => isSolanaError(e, SOLANA_ERROR__JSON_RPC__INVALID_PARAMS),
    );
  });
});

describe('PubSub WebSocket API (protocol)', () => {
  // Closing a socket drops its subscriptions: after each test none are left.
  afterEach(async () => {
    await pollUntil(async () => pubsub().hub.subscriptionCount === 0, { what: 'closed sockets dropped their subscriptions' });
  });

  it('errors for bad input, never a crash', async () => {
    const baseSubs = pubsub().hub.subscriptionCount;
    const baseSockets = pubsub().socketCount;
    const s = await rawSocket();
    assert.equal((await s.raw('{nope')).error.code, -32700);
    assert.equal((await s.request('fooSubscribe', [])).error.code, -32601);
    assert.equal((await s.request('accountSubscribe', [])).error.code, -32602);
    assert.equal((await s.request('accountSubscribe', [SYSTEM_PROGRAM, { encoding: 'base64+zstd' }])).error.code, -32602);
    assert.equal((await s.request('accountSubscribe', [SYSTEM_PROGRAM, { commitment: 'soon' }])).error.code, -32602);
    assert.equal((await s.request('signatureSubscribe', ['abc'])).error.code, -32602);
    assert.equal((await s.request('logsSubscribe', ['some'])).error.code, -32602);
    assert.equal((await s.request('slotSubscribe', { a: 1 })).error.code, -32602);
    const unknown = await s.request('slotUnsubscribe', [987654]);
    assert.deepEqual(unknown.error, { code: -32602, message: 'Invalid subscription id.' });
    const id = (await s.request('slotSubscribe')).result;
    assert.equal(typeof id, 'number');
    assert.equal((await s.request('accountUnsubscribe', [id])).error.code, -32602, 'an id of another kind is not unsubscribed');
    assert.equal((await s.request('slotUnsubscribe', [id])).result, true);
    assert.equal((await s.request('slotUnsubscribe', [id])).error.code, -32602, 'only once');
    const other = await rawSocket();
    const theirs = (await other.request('slotSubscribe')).result;
    assert.equal((await s.request('slotUnsubscribe', [theirs])).error.code, -32602, "another socket's subscription is not ours to drop");
    s.ws.close();
    other.ws.close();
    await pollUntil(async () => pubsub().hub.subscriptionCount === baseSubs && pubsub().socketCount === baseSockets, { what: 'sockets and subscriptions gone' });
  });

  it('notifications carry the validator shape; unsubscribe stops them', async () => {
    const s = await rawSocket();
    const target = (await generateKeyPairSigner()).address;
    const id = (await s.request('accountSubscribe', [target, { encoding: 'base64', commitment: 'processed' }])).result;
    await net.rpc.requestAirdrop(target, lamports(7_000_000n)).send();
    const n = await pollUntil(async () => s.messages.find((m) => m.method === 'accountNotification'), { what: 'accountNotification' });
    assert.deepEqual(Object.keys(n).sort(), ['jsonrpc', 'method', 'params']);
    assert.equal(n.params.subscription, id);
    assert.deepEqual(Object.keys(n.params.result).sort(), ['context', 'value']);
    assert.deepEqual(Object.keys(n.params.result.context), ['slot']);
    assert.deepEqual(n.params.result.value, { data: ['', 'base64'], executable: false, lamports: 7_000_000, owner: SYSTEM_PROGRAM, rentEpoch: 18446744073709551615, space: 0 });
    assert.equal((await s.request('accountUnsubscribe', [id])).result, true);
    const count = s.messages.filter((m) => m.method === 'accountNotification').length;
    await net.rpc.requestAirdrop(target, lamports(1_000n)).send();
    await sleep(300);
    assert.equal(s.messages.filter((m) => m.method === 'accountNotification').length, count, 'nothing after unsubscribe');
    s.ws.close();
  });

  it('account notifications at processed, confirmed and finalized arrive in that order for the same slot', async () => {
    const s = await rawSocket();
    const target = (await generateKeyPairSigner()).address;
    const ids: Record<string, number> = {};
    for (const c of ['processed', 'confirmed', 'finalized']) ids[c] = (await s.request('accountSubscribe', [target, { encoding: 'base64', commitment: c }])).result;
    const sig = await net.rpc.requestAirdrop(target, lamports(3_000_000n)).send();
    await pollUntil(async () => s.messages.filter((m) => m.method === 'accountNotification').length >= 3, { what: 'three notifications', timeoutMs: 15_000 });
    const notes = s.messages.filter((m) => m.method === 'accountNotification');
    assert.deepEqual(notes.map((m) => m.params.subscription), [ids.processed, ids.confirmed, ids.finalized]);
    const [st] = (await net.rpc.getSignatureStatuses([sig]).send()).value;
    for (const m of notes) {
      assert.equal(BigInt(m.params.result.context.slot), st!.slot);
      assert.equal(m.params.result.value.lamports, 3_000_000);
    }
    s.ws.close();
  });

  it('signatureSubscribe with enableReceivedNotification; a failed transaction notifies its error (logs and signature)', async () => {
    const s = await rawSocket();
    const wallet = await fundedWallet(net.rpc, 10_000_000n);
    const ok = await transferTx(net.rpc, wallet, (await generateKeyPairSigner()).address, 1_000_000n);
    const okId = (await s.request('signatureSubscribe', [ok.signature, { commitment: 'processed', enableReceivedNotification: true }])).result;
    await send(net.rpc, ok.wire);
    await pollUntil(async () => s.messages.filter((m) => m.params?.subscription === okId).length === 2, { what: 'received + processed' });
    assert.deepEqual(
      s.messages.filter((m) => m.params?.subscription === okId).map((m) => m.params.result.value),
      ['receivedSignature', { err: null }],
    );

    // More than the wallet holds, sent without preflight: it lands with an error and pays its fee.
    const bad = await transferTx(net.rpc, wallet, (await generateKeyPairSigner()).address, 50_000_000n);
    const sigId = (await s.request('signatureSubscribe', [bad.signature, { commitment: 'confirmed' }])).result;
    const logsId = (await s.request('logsSubscribe', [{ mentions: [wallet.address] }, { commitment: 'processed' }])).result;
    await send(net.rpc, bad.wire, { skipPreflight: true });
    const sigNote = await pollUntil(async () => s.messages.find((m) => m.params?.subscription === sigId), { what: 'signature error notification' });
    const logNote = await pollUntil(async () => s.messages.find((m) => m.params?.subscription === logsId), { what: 'logs notification' });
    assert.deepEqual(sigNote.params.result.value.err, { InstructionError: [0, { Custom: 1 }] });
    assert.equal(logNote.params.result.value.signature, bad.signature);
    assert.deepEqual(logNote.params.result.value.err, sigNote.params.result.value.err);
    s.ws.close();
  });

  it('many sockets opened and closed (some mid-stream, some killed) leak nothing', async () => {
    // The kit client of the first suite keeps its socket; everything beyond it must go.
    const baseSubs = pubsub().hub.subscriptionCount;
    const baseClients = pubsub().hub.clientCount;
    const baseSockets = pubsub().socketCount;
    const sockets = await Promise.all(Array.from({ length: 40 }, () => rawSocket()));
    const target = (await generateKeyPairSigner()).address;
    for (const s of sockets) {
      await s.request('slotSubscribe');
      await s.request('accountSubscribe', [target, { encoding: 'base64', commitment: 'processed' }]);
      await s.request('logsSubscribe', ['all']);
    }
    assert.equal(pubsub().hub.subscriptionCount, baseSubs + 120);
    await pollUntil(async () => sockets.every((s) => s.messages.some((m) => m.method === 'slotNotification')), { what: 'every socket streaming' });
    sockets.forEach((s, i) => (i % 2 === 0 ? s.ws.close() : s.ws.terminate()));
    await net.rpc.requestAirdrop(target, lamports(1_000_000n)).send();
    await pollUntil(
      async () => pubsub().hub.subscriptionCount === baseSubs && pubsub().hub.clientCount === baseClients && pubsub().socketCount === baseSockets,
      { what: 'all subscriptions dropped' },
    );
    // The chain keeps going with nobody listening.
    const slot = await net.rpc.getSlot({ commitment: 'processed' }).send();
    await pollUntil(async () => (await net.rpc.getSlot({ commitment: 'processed' }).send()) > slot, { what: 'slots advance' });
  });
});

describe('PubSub port', () => {
  const listen = (port: number) =>
    new Promise<Server | null>((resolve) => {
      const srv = createServer();
      srv.once('error', () => resolve(null));
      srv.listen(port, '127.0.0.1', () => resolve(srv));
    });
  const close = (srv: Server) => new Promise((r) => srv.close(r));

  it('RPC port + 1 by default; a taken derived port moves (logged), a taken LOCALNET_WS_PORT fails the start cleanly', async (t) => {
    const blocker = (await listen(0))!;
    const taken = (blocker.address() as { port: number }).port;
    const rpcPort = taken - 1;
    const probe = await listen(rpcPort);
    if (!probe) {
      await close(blocker);
      return t.skip(`port ${rpcPort} is in use`);
    }
    await close(probe);
    const dataDir = makeTempDir();
    const logs: string[] = [];
    try {
      const moved = await startLocalnet({ host: '127.0.0.1', port: rpcPort, slotMs: 50, dataDir }, systemClock, systemRandom, (m) => logs.push(m));
      assert.equal(moved.url, `http://127.0.0.1:${rpcPort}`);
      assert.notEqual(moved.pubsub.port, taken);
      assert.ok(logs.some((l) => l.includes(`port ${taken} is in use`)), logs.join('\n'));
      const s = await rawSocket(moved.wsUrl);
      assert.equal(typeof (await s.request('slotSubscribe')).result, 'number');
      s.ws.close();
      await moved.close();

      await assert.rejects(startLocalnet({ host: '127.0.0.1', port: rpcPort, wsPort: taken, slotMs: 50, dataDir }, systemClock, systemRandom), /EADDRINUSE/);
      const again = await listen(rpcPort);
      assert.ok(again, 'the RPC port was released after the failed start');
      await close(again);

      await close(blocker);
      const derived = await startLocalnet({ host: '127.0.0.1', port: rpcPort, slotMs: 50, dataDir }, systemClock, systemRandom);
      assert.equal(derived.wsUrl, `ws://127.0.0.1:${taken}`);
      await derived.close();
    } finally {
      if (blocker.listening) await close(blocker);
      removeDir(dataDir);
    }
  });
});
