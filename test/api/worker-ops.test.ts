/**
 * A worker process serves no partner API, but its ops listener (HUSH_OPS_PORT) is probed and scraped like any role's:
 * /healthz, /readyz (store and chain), /metrics (Prometheus, orders by status), the SPEC error shape
 * elsewhere. Real child process, embedded chain, PGlite.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { spawnHush } from '../support/hush-process.ts';
import { makeTempDir, pollUntil, removeDir } from '../support/localnet.ts';

test('HUSH_ROLE=worker with HUSH_OPS_PORT: /healthz, /readyz, /metrics, and nothing else; an API on its chain logs no RPC key', { timeout: 360_000 }, async () => {
  const dataDir = makeTempDir('hush-worker-ops-');
  const worker = await spawnHush({ DATA_DIR: dataDir, HUSH_ROLE: 'worker', PORT: '0', HUSH_OPS_PORT: '0', LOCALNET_PORT: '0', HUSH_DRAIN_GRACE_MS: '0' }, { label: 'worker' });
  try {
    assert.equal(worker.url, null, 'no partner API');
    const ops = worker.opsUrl;
    await pollUntil(async () => worker.output().includes(`hush: ops listener at ${ops}: /healthz, /readyz, /metrics`), { what: 'the ops line', timeoutMs: 60_000 });
    const health = await fetch(`${ops}/healthz`);
    assert.equal(health.status, 200);
    assert.ok(health.headers.get('x-request-id'));
    const ready = await fetch(`${ops}/readyz`);
    assert.equal(ready.status, 200);
    // feePayer: once the worker has read the fee payer (its first pass).
    const { feePayer, ...readiness } = (await ready.json()) as Record<string, unknown>;
    assert.deepEqual(readiness, { success: true, store: 'ok', chain: 'ok', settlement: 'ok', screening: 'off' });
    assert.ok(feePayer === undefined || feePayer === 'ok', `feePayer ${String(feePayer)}`);
    const metrics = await (await fetch(`${ops}/metrics`)).text();
    assert.match(metrics, /^hush_orders\{status="completed"\} \d+$/m);
    assert.match(metrics, /^hush_http_request_duration_seconds_count\{[^}]*route="\/healthz"[^}]*\} [1-9]/m);
    // A worker's webhook deliveries are served on its ops port, every outcome from the start.
    for (const outcome of ['delivered', 'rejected', 'unreachable', 'refused', 'dropped']) assert.match(metrics, new RegExp(`^hush_webhook_deliveries_total\\{outcome="${outcome}"\\} \\d+$`, 'm'));
    assert.match(metrics, /^hush_webhook_events_given_up_total \d+$/m);
    const partner = await fetch(`${ops}/transfer/v1/tokens`);
    assert.equal(partner.status, 404);
    const body = (await partner.json()) as { success: boolean; error: { code: string } };
    assert.equal(body.success, false);
    assert.equal(body.error.code, 'NOT_FOUND');

    // An API process on this worker's chain, through an RPC URL that carries a provider key (path and
    // query, as providers do): the startup line names the endpoint, never the key.
    const secret = 'sk_live_0123456789abcdef';
    const apiDir = makeTempDir('hush-api-on-worker-chain-');
    try {
      const api = await spawnHush(
        { DATA_DIR: apiDir, HUSH_ROLE: 'api', PORT: '0', SOLANA_RPC_URL: `${worker.chainUrl}/v2/${secret}?api-key=${secret}`, HUSH_DRAIN_GRACE_MS: '0' },
        { label: 'api' },
      );
      try {
        assert.equal(api.chainUrl, `${worker.chainUrl}/…`);
        assert.ok(!api.output().includes(secret), api.output());
      } finally {
        assert.equal((await api.stop('SIGTERM')).code, 0);
      }
    } finally {
      removeDir(apiDir);
    }
  } finally {
    const exit = await worker.stop('SIGTERM');
    assert.equal(exit.code, 0);
    removeDir(dataDir);
  }
});
