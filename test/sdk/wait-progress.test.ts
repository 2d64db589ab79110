/**
 * waitForFinal's onProgress against scripted status answers (a unit test of the SDK's polling loop, no
 * server, on the client's own `sleep` and `now`: no timer runs): every answered poll reports once, 304s
 * included, and never adds a request; it waits the interval between polls; `changed` follows status, sequence
 * and privacy (held → released); held counts down to releaseBy on the client's clock. `hush watch` on a
 * terminal: its spinner turns on the same clock and stops with the order. And the CLI's error lines: each known
 * error is one line with a cause and a fix.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SolanaError, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE } from '@solana/kit';
import { createHushClient, HushApiError, HushTransportError, InsufficientFundsError, type StatusRecord, type WaitProgress } from '../../packages/sdk/src/index.ts';
import { errorLine, explainError } from '../../packages/sdk/src/cli-errors.ts';
import { watchOrder } from '../../packages/sdk/src/cli-progress.ts';
import { ManualClock } from '../support/manual-clock.ts';

const T0 = Date.UTC(2026, 10, 21, 10);
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const NONE = { releaseBy: null, releasedWith: null, releasedWithPending: null, heldSeconds: null };

function record(status: string, historyLength: number, privacy: Partial<StatusRecord['privacy']>, final = false): StatusRecord {
  return {
    trackingId: 'trk_1111111111111111111111', status, final, createdAt: iso(0), updatedAt: iso(historyLength), expiration: iso(600_000),
    sourceAssetId: 'usdc', destinationAssetId: 'usdc', amountIn: '10000000', amountOut: '9900000', deposit: null, payouts: [], refund: null, failureReason: null,
    history: Array.from({ length: historyLength }, (_, i) => ({ status: 'x', at: iso(i) })),
    privacy: { standard: true, ...NONE, ...privacy },
  } as unknown as StatusRecord;
}

test('onProgress: one report per answered poll (304s too, no extra request); changed on status, sequence and release; a countdown while held', async () => {
  const releaseBy = iso(120_000);
  const script: (StatusRecord | 304)[] = [
    record('awaiting_deposit', 1, {}),
    304,
    record('deposit_confirmed', 3, { releaseBy }),
    304,
    // Same status, released with its class: a change a status-only watcher would miss.
    { ...record('deposit_confirmed', 3, { releasedWith: 4, heldSeconds: 37 }), updatedAt: iso(50) },
    record('sending', 4, { releasedWith: 4, heldSeconds: 37 }),
    record('completed', 5, { releasedWith: 4, heldSeconds: 37 }, true),
  ];
  let requests = 0;
  const fetch = (async () => {
    const next = script[requests++]!;
    if (next === 304) return new Response(null, { status: 304, headers: { etag: `"e${requests - 1}"` } });
    return new Response(JSON.stringify({ success: true, order: next }), { status: 200, headers: { 'content-type': 'application/json', etag: `"e${requests}"` } });
  }) as typeof globalThis.fetch;
  // The client's clock: it moves only by the waits the client takes.
  let now = T0 + 1_000;
  const waits: number[] = [];
  const sleep = async (ms: number) => {
    waits.push(ms);
    now += ms;
  };
  const client = createHushClient({ baseUrl: 'http://hush.test', apiKey: 'k', fetch, sleep, now: () => now });
  const reports: WaitProgress[] = [];
  const statuses: string[] = [];
  const final = await client.waitForFinal('trk_1111111111111111111111', { intervalMs: 2_000, onProgress: (p) => reports.push(p), onStatus: (s) => statuses.push(s.status) });
  assert.equal(final.status, 'completed');
  assert.equal(requests, script.length, 'no request beyond the polls');
  assert.deepEqual(waits, Array(script.length - 1).fill(2_000), 'the interval between polls, none after the final answer');
  assert.equal(reports.length, script.length, 'one report per answered poll');
  assert.deepEqual(reports.map((r) => r.changed), [true, false, true, false, true, true, true]);
  assert.deepEqual(reports.map((r) => r.sequence), [1, 1, 3, 3, 3, 4, 5]);
  assert.equal(reports[1]!.order, reports[0]!.order, 'a 304 reports the record it confirms');
  // Polled at 5 s and 7 s on the client's clock: releaseBy is 120 s from T0.
  assert.deepEqual(reports.slice(2, 4).map((r) => r.held), [{ releaseBy, secondsLeft: 115 }, { releaseBy, secondsLeft: 113 }]);
  for (const r of reports.slice(2, 4)) assert.equal(r.released, null);
  assert.deepEqual(reports[4]!.held, null);
  assert.deepEqual(reports[4]!.released, { releasedWith: 4, heldSeconds: 37 });
  assert.deepEqual(reports.map((r) => r.elapsedMs), [0, 2_000, 4_000, 6_000, 8_000, 10_000, 12_000]);
  assert.deepEqual(statuses, ['awaiting_deposit', 'deposit_confirmed', 'deposit_confirmed', 'sending', 'completed']);
});

test('between polls it waits as Retry-After asks, in seconds or as a date read on the client\'s clock', async () => {
  const now = T0;
  const refused = (status: number, code: string, retryAfter: string) =>
    new Response(JSON.stringify({ success: false, error: { code, message: code, requestId: 'r' } }), { status, headers: { 'content-type': 'application/json', 'retry-after': retryAfter } });
  const answers = [
    refused(429, 'RATE_LIMITED', new Date(now + 5_000).toUTCString()),
    refused(503, 'SERVICE_UNAVAILABLE', '2'),
    new Response(JSON.stringify({ success: true, order: record('completed', 5, {}, true) }), { status: 200, headers: { 'content-type': 'application/json' } }),
  ];
  const waits: number[] = [];
  const client = createHushClient({ baseUrl: 'http://hush.test', apiKey: 'k', fetch: (async () => answers.shift()!) as typeof globalThis.fetch, sleep: async (ms) => void waits.push(ms), now: () => now });
  const final = await client.waitForFinal('trk_1111111111111111111111', { intervalMs: 1_000 });
  assert.equal(final.status, 'completed');
  assert.deepEqual(waits, [5_000, 2_000], 'the date is 5 s after the client\'s now; 2 s is above the 1 s interval');
});

test('hush watch on a terminal: a spinner on the client\'s clock rewrites one line, each change is a line of its own, and it stops with the order', async () => {
  const clock = new ManualClock(T0);
  const script = [record('awaiting_deposit', 1, {}), record('completed', 5, {}, true)];
  const fetch = (async () => new Response(JSON.stringify({ success: true, order: script.shift() }), { status: 200, headers: { 'content-type': 'application/json' } })) as typeof globalThis.fetch;
  const sleep = (ms: number, signal?: AbortSignal) => clock.sleep(ms, signal);
  const now = () => clock.now();
  const client = createHushClient({ baseUrl: 'http://hush.test', apiKey: 'k', fetch, sleep, now });
  const written: string[] = [];
  let code: number | undefined;
  void watchOrder(client, 'trk_1111111111111111111111', { intervalMs: 1_000, out: { isTTY: true, write: (s) => void written.push(s) }, sleep, now }).then((c) => (code = c));
  for (let turns = 0; code === undefined && turns < 1_000; turns++) {
    await new Promise((r) => setImmediate(r));
    clock.runNext();
  }
  assert.equal(code, 0, 'completed');
  const lines = written.filter((w) => w.endsWith('\n'));
  assert.deepEqual(lines, [`\r\x1b[2K${iso(0)} trk_1111111111111111111111 awaiting_deposit\n`, `\r\x1b[2K${iso(1_000)} trk_1111111111111111111111 completed payout \n`]);
  const frames = written.slice(written.indexOf(lines[0]!) + 1, written.indexOf(lines[1]!));
  // Ten turns of 100 ms in the second between the polls (the last may fall after the poll due with it).
  assert.ok(frames.length >= 9 && frames.length <= 10, `${frames.length} frames`);
  frames.forEach((f, i) => assert.equal(f, `\r\x1b[2K${'⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏'[i]} trk_1111111111111111111111 awaiting_deposit… 0 s so far`));
  assert.equal(written.at(-1), '\r\x1b[2K', 'the spinner\'s line cleared');
  assert.equal(clock.pending, 0, 'no timer left behind');
});

test('HushApiError.message is Hush\'s words, the code apart', () => {
  const e = new HushApiError(410, 'QUOTE_EXPIRED', 'The quote expired at 2026-11-21T10:01:00.000Z', 'req_9', undefined, undefined);
  assert.equal(e.message, 'The quote expired at 2026-11-21T10:01:00.000Z');
  assert.equal(e.code, 'QUOTE_EXPIRED');
  assert.equal(String(e), 'HushApiError [QUOTE_EXPIRED]: The quote expired at 2026-11-21T10:01:00.000Z');
});

test('the CLI explains each known error in one line: cause — fix', () => {
  const ctx = { hushUrl: 'http://127.0.0.1:8787', rpcUrl: 'http://127.0.0.1:8899' };
  const refused = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:8787'), { code: 'ECONNREFUSED' });
  const cases: [unknown, RegExp][] = [
    [new HushTransportError('cannot reach Hush at http://127.0.0.1:8787: fetch failed', undefined, { cause: new TypeError('fetch failed', { cause: refused }) }), /^hush: cannot reach http:\/\/127\.0\.0\.1:8787 \(ECONNREFUSED\) — start it with npm start or set HUSH_URL$/],
    [new HushApiError(401, 'UNAUTHORIZED', 'invalid API key', 'req_1', undefined, undefined), /^hush: UNAUTHORIZED: invalid API key \[request req_1\] — set HUSH_API_KEY to a key of this Hush/],
    [new HushApiError(400, 'AMOUNT_TOO_LOW', 'below min', 'req_2', undefined, undefined), /— raise --amount to at least the asset's min/],
    [new HushApiError(429, 'RATE_LIMITED', 'slow down', 'req_3', undefined, 2), /\(Hush asks to wait 2 s\) \[request req_3\] — wait and run it again/],
    [new SolanaError(SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE, { accounts: null, innerInstructions: null, loadedAccountsDataSize: undefined, logs: null, replacementBlockhash: null, returnData: null, unitsConsumed: 0n } as never), /^hush: the Solana RPC at http:\/\/127\.0\.0\.1:8899 refused: .* — check SOLANA_RPC_URL/],
    [new TypeError('fetch failed', { cause: Object.assign(new Error('getaddrinfo ENOTFOUND rpc'), { code: 'ENOTFOUND' }) }), /^hush: cannot reach the Solana RPC at http:\/\/127\.0\.0\.1:8899 \(ENOTFOUND\) — .*SOLANA_RPC_URL$/],
    [new InsufficientFundsError('Sndr', { shortfalls: ['it holds 0 lamports of SOL, the deposit needs up to 2244280 (…)'] } as never), /^hush: the sender Sndr cannot pay for this deposit: it holds 0 lamports .*; nothing was created — fund Sndr/],
    // webhook-test without a webhook: the fix names the webhook, not a tracking id (issue 43).
    [new HushApiError(404, 'NOT_FOUND', 'This account has no webhook; set one with PUT /transfer/v1/account/webhook', 'req_4', undefined, undefined), /— set the webhook first: hush webhook set https:\/\/…$/],
    [new HushApiError(404, 'NOT_FOUND', 'No API key with id "aaaaaaaaaaaa" on this account', 'req_6', undefined, undefined), /— run `hush account` for this account's key ids$/],
    [new HushApiError(409, 'LAST_ACTIVE_KEY', 'Key k is the only active key of this account', 'req_7', { keyId: 'k' }, undefined), /— create another key first \(hush keys create\)/],
    [new HushApiError(404, 'NOT_FOUND', 'No such order', 'req_5', undefined, undefined), /— check the tracking id \(trk_…\)/],
    [new RangeError('boom\n  at somewhere'), /^hush: unexpected RangeError: boom at somewhere — run it again with HUSH_DEBUG=1 for the stack, and report it$/],
  ];
  for (const [e, expected] of cases) {
    const x = explainError(e, ctx);
    const line = errorLine(x);
    assert.match(line, expected);
    assert.ok(!line.includes('\n'), `one line: ${line}`);
    assert.equal(x.exit, 1);
  }
});
