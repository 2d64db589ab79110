import type { AssetRegistry } from '../config/assets.ts';
import { DEPOSIT_IDENTITY_TARGET } from '../config/config.ts';
import { DepositIdentities } from './deposit-identities.ts';
import type { Db } from '../store/db.ts';
import { countDepositIdentities, depositIdentitySpans, insertDepositIdentities } from '../store/deposit-identities-store.ts';
import type { Clock, Timer } from '../support/clock.ts';
import type { Random } from '../support/random.ts';

/**
 * Identities kept ready per asset in the store (DEPOSIT_IDENTITY_TARGET, HUSH_DEPOSIT_IDENTITY_TARGET). An API on two cores creates up to ~2,000 orders/s
 * (docs/decisions.md, bench:api), so this covers two seconds of that peak on one asset, while a refill
 * adds up to REFILL_BATCH per asset per tick (thread-bound, ~5,000/s): the pool runs dry only under a
 * burst above the refill rate lasting seconds, and then orders are refused 503 (Retry-After 1), never
 * served an identity no worker can sweep.
 */
export { DEPOSIT_IDENTITY_TARGET };
const REFILL_BATCH = 512;
/** Between refills while an asset is below target; once every pool is full, the store is asked once a second. */
const TICK_MS = 100;
const IDLE_MS = 1_000;

/**
 * The worker's half of deposit identities (docs/spec.md §10, key custody): derives them from the deposit
 * master, off the event loop, and keeps each asset's pool in the store at the target. The API claims them
 * (DepositIdentityPool) and never sees the deposit master.
 */
export class DepositIdentityMint {
  private readonly deriver: DepositIdentities;
  private timer: Timer | null = null;
  private running = false;

  constructor(
    private readonly db: Db,
    depositMaster: Uint8Array,
    private readonly assets: AssetRegistry,
    private readonly clock: Clock,
    /** The identities' tracking ids are drawn from it. */
    random: Random,
    private readonly opts: { target?: number; tickMs?: number; threaded?: boolean } = {},
  ) {
    this.deriver = new DepositIdentities(depositMaster, random, { target: REFILL_BATCH, threaded: opts.threaded });
    for (const a of assets.list) this.deriver.prime(a.mint, a.tokenProgram);
  }

  private get target(): number {
    return this.opts.target ?? DEPOSIT_IDENTITY_TARGET;
  }

  /** One refill: each asset below its target gets what the thread has ready, up to the gap. Returns how many were stored. */
  async topUp(): Promise<number> {
    // Spans, not a count: a count scans the pool every pass (issue 56, docs/performance.md).
    const counts = await depositIdentitySpans(this.db, this.assets.list);
    let added = 0;
    for (const a of this.assets.list) {
      const gap = this.target - (counts.get(`${a.mint}:${a.tokenProgram}`) ?? 0);
      if (gap <= 0) continue;
      const ids = this.deriver.drain(a.mint, a.tokenProgram, Math.min(gap, REFILL_BATCH));
      await insertDepositIdentities(this.db, a.mint, a.tokenProgram, ids);
      added += ids.length;
    }
    return added;
  }

  /**
   * Resolves once every asset's pool holds at least `min` (a start waits for it, so the first orders of a
   * fresh deployment are not refused while the thread derives its first batches).
   */
  async filled(min = 64, timeoutMs = 30_000): Promise<void> {
    const deadline = this.clock.now() + timeoutMs;
    for (;;) {
      const counts = await countDepositIdentities(this.db);
      if (this.assets.list.every((a) => (counts.get(`${a.mint}:${a.tokenProgram}`) ?? 0) >= Math.min(min, this.target))) return;
      if (this.clock.now() > deadline) throw new Error('deposit identities: the pool was not filled in time');
      await this.clock.sleep(20);
    }
  }

  /** Refills one after another (never two at once, which would both read the same counts), sooner while any pool is short. */
  start(): this {
    if (this.running) return this;
    this.running = true;
    const pass = () => {
      this.timer = null;
      void this.topUp().then((added) => added, () => 0).then((added) => {
        if (!this.running) return;
        this.timer = this.clock.after(added > 0 ? (this.opts.tickMs ?? TICK_MS) : IDLE_MS, pass);
      });
    };
    pass();
    return this;
  }

  async stop(): Promise<void> {
    this.running = false;
    this.timer?.cancel();
    this.timer = null;
    await this.deriver.close();
  }
}
