/**
 * Run as its own process (test/api/promise-hooks.test.ts): node:test's runner switches Node's promise
 * hooks on in every process it runs a test in, so the question "does Hush switch them on?" is asked here.
 * Starts a real Hush on its embedded chain, serves a keyed quote, an order (a blockhash: the API lane) and a
 * deposit hint (a getTransaction: the API lane), then prints what a promise continuation's async id was
 * before and after: 0 while the hooks are off.
 */
import { executionAsyncId } from 'node:async_hooks';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import bs58 from 'bs58';
import { loadConfig } from '../../src/config/config.ts';
import { startHush } from '../../src/runtime/start-hush.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const probe = () => Promise.resolve().then(() => executionAsyncId());
const before = await probe();
const dataDir = mkdtempSync(join(tmpdir(), 'hush-hooks-probe-'));
const hush = await startHush(loadConfig({ ...process.env, PORT: '0', HOST: '127.0.0.1', LOCALNET_PORT: '0', LOCALNET_SLOT_MS: '50', DATA_DIR: dataDir, HUSH_DEPOSIT_IDENTITY_TARGET: '64', HUSH_SLOT_MS: '50' }), { clock: systemClock, random: systemRandom, logger: false, log: () => {} });
const statuses: number[] = [];
try {
  const url = hush.url!.replace('[::1]', '127.0.0.1');
  const headers = { authorization: `Bearer ${hush.demo!.apiKey}`, 'content-type': 'application/json' };
  const post = async (path: string, body: unknown) => {
    const r = await fetch(`${url}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    statuses.push(r.status);
    return (await r.json()) as Record<string, any>;
  };
  const [sender, recipient] = [(await generateKeyPairSigner()).address, (await generateKeyPairSigner()).address];
  const request = { amount: '100000000', sourceAssetId: 'sol', destinationAssetId: 'sol', senderAddress: sender, recipientAddress: recipient };
  let quoted: Record<string, any> = {};
  // The pools fill while the start's funding lands: quotes answer 503 until then.
  // Until a deadline, not a count of tries: a loaded machine's funding takes longer than 200 tries of 100 ms.
  const deadline = Date.now() + 90_000;
  while (!quoted.quote && Date.now() < deadline) {
    quoted = await post('/transfer/v1/quote', request);
    if (!quoted.quote) (statuses.pop(), await new Promise((r) => setTimeout(r, 100)));
  }
  if (!quoted.quote) throw new Error(`no quote within 90 s of the start: ${JSON.stringify(quoted)}`);
  const ordered = await post('/transfer/v1/order', { quote: quoted.quote, senderAddress: sender, recipientAddress: recipient });
  await post('/transfer/v1/deposit', { trackingId: ordered.order?.trackingId, signature: bs58.encode(randomBytes(64)) });
} finally {
  await hush.close();
  rmSync(dataDir, { recursive: true, force: true });
}
process.stdout.write(`${JSON.stringify({ before, after: await probe(), statuses })}\n`);
