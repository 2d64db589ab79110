/**
 * waitForFinal's onProgress against scripted status answers (a unit test of the SDK's polling loop, no
 * server): every answered poll reports once, 304s included, and never adds a request; `changed` follows
 * status, sequence and privacy (held → released); held counts down to releaseBy. And the CLI's error
 * lines: each known error is one line with a cause and a fix.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { SolanaError, SOLANA_ERROR__JSON_RPC__SERVER_ERROR_SEND_TRANSACTION_PREFLIGHT_FAILURE } from '@solana/kit';
import { createHushClient, HushApiError, HushTransportError, InsufficientFundsError, type StatusRecord, type WaitProgress } from '../../packages/sdk/src/index.ts';
import { errorLine, explainError } from '../../packages/sdk/src/cli-errors.ts';

const T0 = Date.now();
const iso = (ms: number) => new Date(T0 + ms).toISOString();
const NONE = { releaseBy: null, releasedWith: null, heldSeconds: null };

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
  const client = createHushClient({ baseUrl: 'http://hush.test', apiKey: 'k', fetch });
  const reports: WaitProgress[] = [];
  const statuses: string[] = [];
  const final = await client.waitForFinal('trk_1111111111111111111111', { intervalMs: 1, onProgress: (p) => reports.push(p), onStatus: (s) => statuses.push(s.status) });
  assert.equal(final.status, 'completed');
  assert.equal(requests, script.length, 'no request beyond the polls');
  assert.equal(reports.length, script.length, 'one report per answered poll');
  assert.deepEqual(reports.map((r) => r.changed), [true, false, true, false, true, true, true]);
  assert.deepEqual(reports.map((r) => r.sequence), [1, 1, 3, 3, 3, 4, 5]);
  assert.equal(reports[1]!.order, reports[0]!.order, 'a 304 reports the record it confirms');
  for (const r of reports.slice(2, 4)) {
    assert.equal(r.held?.releaseBy, releaseBy);
    assert.ok(r.held!.secondsLeft > 100 && r.held!.secondsLeft <= 120, String(r.held!.secondsLeft));
    assert.equal(r.released, null);
  }
  assert.deepEqual(reports[4]!.held, null);
  assert.deepEqual(reports[4]!.released, { releasedWith: 4, heldSeconds: 37 });
  assert.ok(reports.every((r, i) => i === 0 || r.elapsedMs >= reports[i - 1]!.elapsedMs));
  assert.deepEqual(statuses, ['awaiting_deposit', 'deposit_confirmed', 'deposit_confirmed', 'sending', 'completed']);
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
