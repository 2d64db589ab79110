import type { Worker } from 'node:worker_threads';
import { typescriptWorker } from '../support/typescript-worker.ts';
import type { Address } from '@solana/kit';
import { deriveDepositIdentity, type DepositIdentity } from './deposit-identity.ts';
import { newTrackingId } from '../domain/tracking-id.ts';
import type { Random } from '../support/random.ts';

const TARGET = 512;
const BATCH = 64;

/**
 * The process's derivation thread, shared by every DepositIdentities in it (one in a running Hush; a test or
 * bench process starts many Hushes, and a thread's start — tsx registered in it, then the entry's modules —
 * costs about 0.9 s of CPU). Unref'd: it never keeps the process alive; it is started again after an error.
 */
interface SharedThread {
  worker: Worker;
  /** Each instance's handler of its own batches, by the instance's number. */
  handlers: Map<number, (m: { key: string; identities: DepositIdentity[] }) => void>;
}
let shared: SharedThread | null = null;
let instances = 0;

function sharedThread(): SharedThread {
  if (shared) return shared;
  const worker = typescriptWorker(new URL('./deposit-identity-worker.ts', import.meta.url));
  const thread: SharedThread = { worker, handlers: new Map() };
  worker.on('message', (m: { owner: number; key: string; identities: DepositIdentity[] }) => thread.handlers.get(m.owner)?.(m));
  const lost = () => {
    if (shared === thread) shared = null;
    for (const h of thread.handlers.values()) h({ key: '', identities: [] });
    thread.handlers.clear();
  };
  worker.on('error', lost);
  worker.on('exit', lost);
  // After the listeners: a 'message' listener added later refs the thread again (the process would never end).
  worker.unref();
  shared = thread;
  return thread;
}

/**
 * Deposit identities derived ahead on a worker thread, in a process that holds the treasury seed (the
 * deposit identity mint of roles worker and all): an owner's public key and the PDA search for its token
 * account cost ~0.2 ms each. `take` derives inline when an asset's pool is empty; `drain` never does.
 */
export class DepositIdentities {
  private readonly ready = new Map<string, DepositIdentity[]>();
  private readonly inFlight = new Set<string>();
  /** Assets orders have taken from: only their pools grow to the full target. */
  private readonly used = new Set<string>();
  private thread: SharedThread | null = null;
  private readonly id = ++instances;

  constructor(
    private readonly depositMaster: Uint8Array,
    /** The tracking ids are drawn from it (here, never on the thread). */
    private readonly random: Random,
    private readonly opts: { target?: number; threaded?: boolean } = {},
  ) {
    if (opts.threaded === false) return;
    try {
      const thread = sharedThread();
      thread.handlers.set(this.id, (m) => {
        // The thread was lost (its batches with it): this instance derives inline from now on.
        if (m.key === '') return this.detach();
        this.inFlight.delete(m.key);
        const q = this.ready.get(m.key) ?? [];
        q.push(...m.identities);
        this.ready.set(m.key, q);
        this.top(m.key);
      });
      this.thread = thread;
    } catch {
      this.thread = null;
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
    return id ?? deriveDepositIdentity(this.depositMaster, mint, tokenProgram, this.trackingId());
  }

  /**
   * Up to `max` identities already derived, none derived here (the mint's loop, which must not hold its
   * thread for inline derivation); the asset's pool then refills to the full target.
   */
  drain(mint: Address, tokenProgram: Address, max: number): DepositIdentity[] {
    const key = `${mint}:${tokenProgram}`;
    this.used.add(key);
    const q = this.ready.get(key) ?? [];
    const out = q.splice(Math.max(0, q.length - max));
    this.ready.set(key, q);
    // No thread (a host that decides the order of every event: the simulator): what is asked for is derived
    // here and now, a batch at most, and nothing ahead that no order may ever take.
    if (this.opts.threaded === false) {
      while (out.length < Math.min(max, BATCH)) out.push(deriveDepositIdentity(this.depositMaster, mint, tokenProgram, this.trackingId()));
      return out;
    }
    this.top(key);
    return out;
  }

  private top(key: string): void {
    const q = this.ready.get(key);
    const target = this.used.has(key) ? this.target : Math.min(BATCH, this.target);
    if (!q || this.inFlight.has(key) || q.length >= target) return;
    const [mint, tokenProgram] = key.split(':');
    if (!this.thread) return;
    this.inFlight.add(key);
    this.thread.worker.postMessage({ owner: this.id, master: this.depositMaster, key, mint, tokenProgram, trackingIds: Array.from({ length: BATCH }, () => this.trackingId()) });
  }

  private trackingId(): string {
    return newTrackingId((n) => this.random.int(n));
  }

  /** How many are ready for an asset (tests, metrics). */
  available(mint: Address, tokenProgram: Address): number {
    return this.ready.get(`${mint}:${tokenProgram}`)?.length ?? 0;
  }

  private detach(): void {
    this.thread?.handlers.delete(this.id);
    this.thread = null;
    this.inFlight.clear();
  }

  /** Stops asking the shared thread (which lives on, unref'd, for the process's next instance). */
  async close(): Promise<void> {
    this.detach();
  }
}
