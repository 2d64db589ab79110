import type { ChainSubscriptions } from '../../chain/chain-subscriptions.ts';
import type { ChainView } from '../../chain/chain-view.ts';
import type { Clock } from '../../support/clock.ts';

/**
 * The slot the deposit watch and the fate loop follow. With a PubSub socket up it comes from slot
 * notifications (no request at all) and each new slot wakes the watch; without one (socket down, or no
 * subscriptions) it is polled over HTTP at most once per `pollEveryMs` (bounded polling), the last
 * answer reused meanwhile. Its value is only compared for change: a notified slot is the processed one,
 * whose advance is when `confirmed` advances too.
 */
export class SlotClock {
  private notified = -1n;
  private notifiedAt = 0;
  private polled = { slot: -1n, at: 0 };
  private polling: Promise<bigint> | null = null;
  private unsubscribe: (() => void) | null = null;

  constructor(
    private readonly view: () => ChainView,
    private readonly subs: ChainSubscriptions | null,
    private readonly pollEveryMs: () => number,
    private readonly clock: Clock,
  ) {}

  /** Subscribes to slots; `onAdvance` runs on each new notified slot. */
  start(onAdvance: () => void): void {
    if (!this.subs || this.unsubscribe) return;
    this.unsubscribe = this.subs.onSlot((slot) => {
      if (slot <= this.notified) return;
      this.notified = slot;
      this.notifiedAt = this.clock.now();
      onAdvance();
    });
  }

  stop(): void {
    this.unsubscribe?.();
    this.unsubscribe = null;
  }

  /** True while slots arrive over the socket (no polling needed). */
  get live(): boolean {
    return this.subs?.state === 'connected' && this.notified >= 0n;
  }

  /** The latest slot known without a call, and when it was seen (null before the first). */
  known(): { slot: bigint; at: number } | null {
    if (this.live) return { slot: this.notified, at: this.notifiedAt };
    return this.polled.slot >= 0n ? { slot: this.polled.slot, at: this.polled.at } : null;
  }

  /** The latest slot: notified, or polled (reused within pollEveryMs). */
  async current(): Promise<bigint> {
    if (this.live) return this.notified;
    if (this.clock.now() - this.polled.at < this.pollEveryMs()) return this.polled.slot;
    this.polling ??= this.view()
      .slot('confirmed')
      .then((slot) => ((this.polled = { slot, at: this.clock.now() }), slot))
      .finally(() => (this.polling = null));
    return this.polling;
  }
}
