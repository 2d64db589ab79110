/**
 * Issue 43 item 2: an anonymous client held 30,000 connections with unfinished headers and exhausted the
 * process's descriptors. Against a real Hush (real ports, embedded chain, PGlite) with small caps: bounded
 * floods of raw sockets on loopback (127.0.0.0/8 is all this machine, so a test can be many clients) are
 * answered per address (429, issue 50) and held under the total cap by evicting connections without progress
 * (unfinished headers or bodies, idle keep-alives); all counted in /metrics and logged once. Meanwhile a keyed
 * client from another address is served, and /readyz on the ops listener answers.
 */
import assert from 'node:assert/strict';
import { connect, type Socket } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { expectOk, startTestHush, type TestAccount, type TestHush } from '../support/hush-server.ts';
import { fetchFrom } from '../support/http-from.ts';

const MAX = 40;
const PER_IP = 8;
/** Every wait is bounded: a server that never acts fails the test instead of hanging it. */
const WAIT_MS = 15_000;

let t: TestHush;
let acct: TestAccount;
const logLines: string[] = [];

before(async () => {
  t = await startTestHush({ env: { HUSH_MAX_CONNECTIONS: String(MAX), HUSH_MAX_CONNECTIONS_PER_IP: String(PER_IP) }, apiLog: (line) => logLines.push(line) });
  acct = await t.createAccount();
});
after(async () => t?.close());

interface Held {
  socket: Socket;
  /** Resolves when the connection closes (whoever closed it). */
  closed: Promise<void>;
  isClosed(): boolean;
  /** Resolves with what the server sent first (a flood socket expecting `100 Continue`). */
  firstData: Promise<string>;
}

/** Connects from `source` and writes `head` (headers left unfinished, or a request whose body never comes). */
function hold(source: string, head: string): Promise<Held> {
  return new Promise((resolve, reject) => {
    const port = Number(new URL(t.url).port);
    const socket = connect({ host: '127.0.0.1', port, localAddress: source });
    let closed = false;
    const closedP = new Promise<void>((r) => socket.once('close', () => ((closed = true), r())));
    const firstData = new Promise<string>((r) => socket.once('data', (d) => r(d.toString('latin1'))));
    socket.on('error', () => {}); // a refused connection is reset: expected
    socket.once('connect', () => {
      socket.write(head);
      resolve({ socket, closed: closedP, isClosed: () => closed, firstData });
    });
    socket.once('close', () => reject(new Error(`closed before connecting from ${source}`)));
  });
}

const UNFINISHED = 'GET /transfer/v1/tokens HTTP/1.1\r\nHost: x\r\nX-Slow: ';

/** A metric's value on the ops listener's /metrics (0 when absent). */
async function metric(name: string, labels: Record<string, string>): Promise<number> {
  const body = (await t.ops.get('/metrics')).text;
  for (const line of body.split('\n')) {
    if (!line.startsWith(`${name}{`)) continue;
    if (Object.entries(labels).every(([k, v]) => line.includes(`${k}="${v}"`))) return Number(line.slice(line.lastIndexOf(' ') + 1));
  }
  return 0;
}

/**
 * A keyed request from `source`, on a connection of its own that closes after the answer (agent-less
 * node:http): nothing of the test stays open on the partner port between floods.
 */
async function keyedStatus(source: string): Promise<number> {
  return (await fetchFrom(source, `${t.url}/transfer/v1/tokens`, { method: 'GET', headers: { authorization: `Bearer ${acct.apiKey}` } })).status;
}

const partner = (reason?: string): Record<string, string> => (reason ? { listener: 'partner', reason } : { listener: 'partner' });

/** Polls `probe` until `ok`, or fails after WAIT_MS with the last value. */
async function until<T>(what: string, probe: () => Promise<T> | T, ok: (v: T) => boolean): Promise<T> {
  const deadline = performance.now() + WAIT_MS;
  for (;;) {
    const v = await probe();
    if (ok(v)) return v;
    if (performance.now() > deadline) assert.fail(`${what}: still ${JSON.stringify(v)} after ${WAIT_MS} ms`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

/** Closes the test's sockets and waits until the server has seen them go. */
async function release(held: Held[]): Promise<void> {
  for (const h of held) h.socket.destroy();
  await Promise.all(held.map((h) => h.closed));
  await until('open partner connections', () => metric('hush_connections_open', partner()), (n) => n === 0);
}

describe('connection limits', () => {
  test('one address keeps at most HUSH_MAX_CONNECTIONS_PER_IP open; the rest are refused at once and counted', async () => {
    const before = await metric('hush_connections_refused_total', partner('per_address'));
    const flood = await Promise.all(Array.from({ length: 100 }, () => hold('127.0.0.1', UNFINISHED)));
    try {
      await until('flood sockets closed by the server', () => flood.filter((h) => h.isClosed()).length, (n) => n >= 100 - PER_IP);
      assert.equal(await metric('hush_connections_refused_total', partner('per_address')), before + 100 - PER_IP);
      assert.equal(await metric('hush_connections_open', partner()), PER_IP);
      // Another client is served meanwhile, and the ops listener answers.
      assert.equal(await keyedStatus('127.0.0.2'), 200);
      expectOk(await t.ops.get('/readyz'));
      assert.equal(flood.filter((h) => h.isClosed()).length, 100 - PER_IP, 'the first connections of the address are kept');
    } finally {
      await release(flood);
    }
  });

  test('a flood from many addresses stays under HUSH_MAX_CONNECTIONS: unfinished connections make room, a keyed client is served, /readyz answers', async () => {
    const evictedBefore = await metric('hush_connections_closed_early_total', partner('unfinished'));
    const sources = Array.from({ length: 10 }, (_, i) => `127.0.1.${i + 1}`);
    const flood = (await Promise.all(sources.map((s) => Promise.all(Array.from({ length: PER_IP }, () => hold(s, UNFINISHED)))))).flat();
    try {
      // 80 connections, 40 places: each past the cap evicts the oldest connection with no request yet.
      await until('flood sockets closed by the server', () => flood.filter((h) => h.isClosed()).length, (n) => n >= flood.length - MAX);
      assert.ok((await metric('hush_connections_open', partner())) <= MAX);
      assert.ok((await metric('hush_connections_closed_early_total', partner('unfinished'))) - evictedBefore >= flood.length - MAX);
      assert.equal(await keyedStatus('127.0.2.1'), 200);
      expectOk(await t.ops.get('/readyz'));
      assert.ok((await metric('hush_connections_open', partner())) <= MAX);
    } finally {
      await release(flood);
    }
  });

  test('a cap full of requests whose body never comes: they count as unfinished, not serving, and make room; a keyed client is served, /readyz answers', async () => {
    const evictedBefore = await metric('hush_connections_closed_early_total', partner('unfinished'));
    // Whole headers, a body that never comes (an unrouted POST is read to its end before its 404). The server
    // says `100 Continue` once it has taken the request, so the test knows.
    const busy = 'POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 100\r\nExpect: 100-continue\r\n\r\n';
    const sources = Array.from({ length: MAX / PER_IP }, (_, i) => `127.0.3.${i + 1}`);
    const held = (await Promise.all(sources.map((s) => Promise.all(Array.from({ length: PER_IP }, () => hold(s, busy)))))).flat();
    try {
      for (const h of held) assert.match(await h.firstData, /^HTTP\/1\.1 100 Continue/);
      assert.equal(await keyedStatus('127.0.3.201'), 200);
      assert.ok((await metric('hush_connections_closed_early_total', partner('unfinished'))) > evictedBefore);
      await until('a body-less request closed by the server', () => held.filter((h) => h.isClosed()).length, (n) => n >= 1);
      expectOk(await t.ops.get('/readyz'));
    } finally {
      await release(held);
    }
  });

  test('at the cap, a keep-alive connection idle after its answer makes room for a new client', async () => {
    const idleBefore = await metric('hush_connections_closed_early_total', partner('idle'));
    const sources = Array.from({ length: MAX / PER_IP }, (_, i) => `127.0.4.${i + 1}`);
    const held = (await Promise.all(sources.map((s) => Promise.all(Array.from({ length: PER_IP }, () => hold(s, 'GET /nowhere HTTP/1.1\r\nHost: x\r\n\r\n')))))).flat();
    try {
      // Each has its answer (404) and keeps its connection open: the cap is full of idle connections.
      for (const h of held) assert.match(await h.firstData, /^HTTP\/1\.1 404 /);
      assert.equal(await metric('hush_connections_open', partner()), MAX);
      assert.equal(await keyedStatus('127.0.4.200'), 200);
      assert.ok((await metric('hush_connections_closed_early_total', partner('idle'))) > idleBefore);
      await until('idle sockets closed by the server', () => held.filter((h) => h.isClosed()).length, (n) => n >= 1);
    } finally {
      await release(held);
    }
  });

  test('refusals and early closes are logged at warn, one line per window, naming the listener and the busiest addresses', () => {
    const warns = logLines.map((l) => JSON.parse(l) as { level: number; msg: string; listener?: string; addresses?: string[] }).filter((r) => r.level === 40 && r.listener === 'partner');
    assert.ok(warns.length >= 1, 'at least one line');
    // Four floods of 100, 80, 41 and 41 sockets within seconds: a handful of lines, not one per socket.
    assert.ok(warns.length <= 6, `${warns.length} lines`);
    assert.match(warns[0]!.msg, /^partner listener: \d+ connection\(s\) refused/);
    assert.ok(warns.some((w) => w.addresses?.includes('127.0.0.1')), 'the refused address is named');
  });
});
