/**
 * A README example (test/support/readme-examples.ts) run as written on a simulated Hush: saved as a module in a
 * directory of its own whose `@hush/sdk` is the built SDK as `npm ci` makes it (node_modules/@hush/sdk/dist)
 * with every client given the simulated Hush's fetch, sleep and clock (HushClientOptions: what a partner's own
 * tests pass), and whose `@solana/kit` is kit with `createSolanaRpc` answering from the simulated chain. The
 * example's text, its imports and the SDK's code are unchanged; its time and network are the simulator's.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { tsImport } from 'tsx/esm/api';
import type { SimHush } from './sim-hush.ts';
import { REPO_ROOT } from './readme-examples.ts';
import { SIM_HUSH_URL } from './sim-sdk.ts';

const HOOK = 'hush.test.sim-readme';

function stub(dir: string, name: string, source: string): void {
  const at = join(dir, 'node_modules', name);
  mkdirSync(at, { recursive: true });
  writeFileSync(join(at, 'package.json'), JSON.stringify({ name, type: 'module', exports: './index.js' }));
  writeFileSync(join(at, 'index.js'), source);
}

/** Imports `source` (an example) against `h` with HUSH_API_KEY = `apiKey`; `close()` removes its directory. */
export async function importOnSim<T>(h: SimHush, source: string, apiKey: string): Promise<{ module: T; close(): void }> {
  const dir = mkdtempSync(join(tmpdir(), 'hush-readme-sim-'));
  const sdk = pathToFileURL(join(REPO_ROOT, 'node_modules/@hush/sdk/dist/index.js')).href;
  const kit = import.meta.resolve('@solana/kit');
  const hook = `globalThis[Symbol.for(${JSON.stringify(HOOK)})]`;
  stub(dir, '@hush/sdk', `import * as sdk from ${JSON.stringify(sdk)};\nexport * from ${JSON.stringify(sdk)};\nexport const createHushClient = (options) => sdk.createHushClient({ ...options, ...${hook}.client });\n`);
  stub(dir, '@solana/kit', `export * from ${JSON.stringify(kit)};\nexport const createSolanaRpc = () => ${hook}.rpc;\n`);
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ type: 'module' }));
  writeFileSync(join(dir, 'example.ts'), source);
  (globalThis as Record<symbol, unknown>)[Symbol.for(HOOK)] = {
    client: { fetch: h.fetch, sleep: (ms: number, signal?: AbortSignal) => h.clock.sleep(ms, signal), now: () => h.now() },
    rpc: h.rpc,
  };
  // The example reads its settings once, at load, as a partner's process would.
  const saved = { HUSH_URL: process.env.HUSH_URL, HUSH_API_KEY: process.env.HUSH_API_KEY };
  Object.assign(process.env, { HUSH_URL: SIM_HUSH_URL, HUSH_API_KEY: apiKey });
  try {
    const module = (await tsImport(pathToFileURL(join(dir, 'example.ts')).href, import.meta.url)) as T;
    return { module, close: () => rmSync(dir, { recursive: true, force: true }) };
  } finally {
    for (const [k, v] of Object.entries(saved)) {
      if (v === undefined) delete process.env[k];
      else process.env[k] = v;
    }
  }
}
