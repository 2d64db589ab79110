/**
 * bench:api's screening figures (docs/spec.md §12): what screening adds to one quote, in process (the quote
 * service alone: no HTTP, store or chain, so the difference is screening's), p50/p99 over QUOTES quotes each:
 * off; lists (50 000 addresses, in memory); the HTTP provider against a local fake risk API (answers at once),
 * uncached (TTL 0: two calls per quote) and cached (the same two addresses, answered from the cache).
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateKeyPairSigner } from '@solana/kit';
import { loadConfig } from '../../src/config/config.ts';
import { addressFromBytes } from '../../src/domain/address-codec.ts';
import { ProviderScreening } from '../../src/screening/cached-screening.ts';
import { HttpProvider } from '../../src/screening/http-provider.ts';
import { ListProvider } from '../../src/screening/list-provider.ts';
import { SCREENING_OFF, type Screening } from '../../src/screening/screening-port.ts';
import { QuoteService } from '../../src/services/quote-service.ts';
import type { AccountRecord } from '../../src/store/accounts-store.ts';
import { systemClock } from '../../src/support/clock.ts';
import { systemRandom } from '../../src/support/random.ts';

const QUOTES = Number(process.env.BENCH_SCREENING_QUOTES ?? 2000);

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

export async function screeningCostLines(): Promise<string[]> {
  const dir = mkdtempSync(join(tmpdir(), 'hush-bench-screening-'));
  const server = createServer((req, res) => res.writeHead(200, { 'content-type': 'application/json' }).end(JSON.stringify({ address: req.url, risk: 'low', blocked: false })));
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  try {
    const config = loadConfig({ DATA_DIR: dir, SOLANA_RPC_URL: 'http://127.0.0.1:9' });
    const account = { id: 'acc_bench', feeCapBps: 100, feeRecipients: [], status: 'active', rateLimits: null } as unknown as AccountRecord;
    const request = { amount: '5000000', sourceAssetId: 'usdc', destinationAssetId: 'usdc', senderAddress: (await generateKeyPairSigner()).address, recipientAddress: (await generateKeyPairSigner()).address };
    const listed: string[] = [];
    for (let i = 0; i < 50_000; i++) listed.push(addressFromBytes(randomBytes(32)));
    writeFileSync(join(dir, 'list.txt'), listed.join('\n'));
    const lists = new ListProvider([join(dir, 'list.txt')], systemClock);
    await lists.refresh();
    if (lists.loaded()[0]?.addresses.size !== 50_000) throw new Error('the bench list did not load whole');
    const describe = () => ({ enabled: true, lists: [], http: null, onError: 'hold' as const });
    const variants: [string, Screening][] = [
      ['off', SCREENING_OFF],
      ['lists (50 000 addresses)', new ProviderScreening(lists, null, describe, systemClock)],
      // The per-account risk-API budget (issue 50) would refuse most uncached quotes of one account: this
      // line measures what a call costs, not the budget, so the budget is set out of reach.
      ['HTTP provider, uncached', new ProviderScreening(null, new HttpProvider(url, 'k', systemClock), describe, systemClock, 0, 1e9)],
      ['HTTP provider, cached', new ProviderScreening(null, new HttpProvider(url, 'k', systemClock), describe, systemClock)],
    ];
    const lines = [`screening cost per quote (in process, ${QUOTES} quotes each; a local fake risk API answering at once):`];
    let offP50 = 0;
    for (const [name, screening] of variants) {
      const service = new QuoteService(config, new Uint8Array(32).fill(7), systemClock, systemRandom, undefined, undefined, undefined, undefined, screening);
      for (let i = 0; i < 200; i++) await service.quote(account, request);
      const ms: number[] = [];
      for (let i = 0; i < QUOTES; i++) {
        const t0 = performance.now();
        await service.quote(account, request);
        ms.push(performance.now() - t0);
      }
      ms.sort((a, b) => a - b);
      const p50 = percentile(ms, 50);
      if (name === 'off') offP50 = p50;
      const d = p50 - offP50;
      const added = name === 'off' ? '' : `  (${d >= 0 ? '+' : ''}${d.toFixed(3)} ms at p50 against off)`;
      lines.push(`  ${name.padEnd(28)} p50 ${p50.toFixed(3)} ms  p99 ${percentile(ms, 99).toFixed(3)} ms${added}`);
    }
    return lines;
  } finally {
    server.closeAllConnections();
    server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  for (const line of await screeningCostLines()) console.log(line);
}
