import { Worker } from 'node:worker_threads';
import type { Address } from '@solana/kit';
import { deriveDepositIdentity, type DepositIdentity } from './deposit-identity.ts';

const TARGET = 512;
const BATCH = 64;

/**
 * Deposit identities ready before orders ask for them, derived on a worker thread: an owner's public key
 * and the PDA search for its token account cost ~0.2 ms, the largest share of creating an order. When the
 * pool of an asset runs dry (a burst, or the worker is gone) the order derives its own inline, so this
 * only ever moves work, it never changes what is derived.
 */
export class DepositIdentities {
  private readonly ready = new Map<string, DepositIdentity[]>();
  private readonly inFlight = new Set<string>();
  /** Assets orders have taken from: only their pools grow to the full target. */
  private readonly used = new Set<string>();
  private worker: Worker | null = null;

  constructor(
    private readonly depositMaster: Uint8Array,
    private readonly opts: { target?: number; threaded?: boolean } = {},
  ) {
    if (opts.threaded === false) return;
    try {
      // Node 20 loads a worker's entry before `--import` hooks apply, so a small bootstrap registers tsx
      // and then imports the TypeScript entry.
      const tsx = import.meta.resolve('tsx/esm/api');
      const entry = new URL('./deposit-identity-worker.ts', import.meta.url).href;
      const bootstrap = `import(${JSON.stringify(tsx)}).then((m) => { m.register(); return import(${JSON.stringify(entry)}); })`;
      const worker = new Worker(bootstrap, { eval: true, workerData: { depositMaster }, execArgv: [] });
      worker.unref();
      worker.on('message', (m: { key: string; identities: DepositIdentity[] }) => {
        this.inFlight.delete(m.key);
        const q = this.ready.get(m.key) ?? [];
        q.push(...m.identities);
        this.ready.set(m.key, q);
        this.top(m.key);
      });
      worker.on('error', () => this.stopWorker());
      worker.on('exit', () => (this.worker = null));
      this.worker = worker;
    } catch {
      this.worker = null;
    }
  }

  private get target(): number {
    return this.opts.target ?? TARGET;
  }

  /**
   * Starts an asset's pool with one batch (e.g. every configured asset at start); it grows to the full
   * target once orders take from it, so a start does not derive thousands for assets nobody sends.
   */
  prime(mint: Address, tokenProgram: Address): void {
    const key = `${mint}:${tokenProgram}`;
    if (!this.ready.has(key)) this.ready.set(key, []);
    this.top(key);
  }

  take(mint: Address, tokenProgram: Address): DepositIdentity {
    const key = `${mint}:${tokenProgram}`;
    this.used.add(key);
    const q = this.ready.get(key);
    const id = q?.pop();
    if (!q) this.ready.set(key, []);
    this.top(key);
    return id ?? deriveDepositIdentity(this.depositMaster, mint, tokenProgram);
  }

  private top(key: string): void {
    const q = this.ready.get(key);
    const target = this.used.has(key) ? this.target : Math.min(BATCH, this.target);
    if (!this.worker || !q || this.inFlight.has(key) || q.length >= target) return;
    const [mint, tokenProgram] = key.split(':');
    this.inFlight.add(key);
    this.worker.postMessage({ key, mint, tokenProgram, count: BATCH });
  }

  /** How many are ready for an asset (tests, metrics). */
  available(mint: Address, tokenProgram: Address): number {
    return this.ready.get(`${mint}:${tokenProgram}`)?.length ?? 0;
  }

  private stopWorker(): void {
    const w = this.worker;
    this.worker = null;
    this.inFlight.clear();
    void w?.terminate();
  }

  async close(): Promise<void> {
    const w = this.worker;
    this.worker = null;
    await w?.terminate();
  }
}
