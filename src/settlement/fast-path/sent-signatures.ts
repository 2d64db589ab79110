import type { Signature } from '@solana/kit';
import type { ChainSubscriptions } from '../../chain/chain-subscriptions.ts';
import { RESEND_EVERY_MS } from '../timing.ts';
import { type Clock } from '../../support/clock.ts';

/**
 * When the fate loop reads the statuses of pending transactions over HTTP. With the PubSub socket up,
 * every pending signature is watched (signatureSubscribe at `confirmed`) and the statuses are read when a
 * watched one reached `confirmed` (its notification also wakes the loop), plus once per RESEND_EVERY_MS
 * for what no notification decides (resends, expiry; a safety net besides). With the socket down, they
 * are read at most once per fallback poll interval (a share of the request budget). The read itself
 * stays the authority: a notification only says when to look.
 */
/** What it follows and whom it wakes: a narrow port, built by the context (which it does not import). */
export interface SentSignaturesPort {
  readonly subscriptions: ChainSubscriptions | null;
  /** True while slot notifications arrive (the socket is up). */
  socketLive(): boolean;
  fallbackPollMs(): number;
  /** How many transactions this worker sent that are not settled yet (the outbox's in-flight set). */
  inFlight(): number;
  /** Wakes the fate loop when a watched signature reached `confirmed`. */
  wake(loop: 'transactions'): void;
  readonly clock: Clock;
}

export class SentSignatures {
  private readonly watches = new Map<string, () => void>();
  /** Signatures watched as they were sent, by when: kept through a read of pending ones that did not list them yet. */
  private readonly sentAt = new Map<string, number>();
  /** Watched signatures notified since the last read. */
  private readonly notified = new Set<string>();
  private lastReadAt = 0;

  constructor(private readonly ctx: SentSignaturesPort) {}

  /** True when the statuses of `pending` should be read now (and counts this as that read). */
  due(pending: readonly { signature: string }[]): boolean {
    const now = this.ctx.clock.now();
    const subs = this.ctx.subscriptions;
    if (subs) this.watchOnly(pending.map((t) => t.signature));
    const live = subs !== null && this.ctx.socketLive();
    const every = live ? RESEND_EVERY_MS : this.ctx.fallbackPollMs();
    const notified = live && pending.some((t) => this.notified.has(t.signature));
    if (!notified && now - this.lastReadAt < every) return false;
    this.lastReadAt = now;
    this.notified.clear();
    return true;
  }

  /**
   * Whether a slot's advance may have settled something of this worker's: signatures are watched or were sent
   * and are not settled yet. With nothing in flight, no, socket or not: what another process or an earlier
   * life of this one sent is found by the fate loop's own idle pass (at most two slots apart). Without a
   * socket it answered yes on every slot, so an idle worker read its pending transactions once a slot.
   */
  get mayHaveLanded(): boolean {
    return this.watches.size > 0 || this.ctx.inFlight() > 0;
  }

  /**
   * Watches signatures about to be sent, before they go: watched only at the fate loop's next read of pending
   * ones, a payout that landed first was notified a slot late (the chain notifies an already-committed signature a
   * slot after the subscription), and its order completed 300 ms later on a loaded machine.
   */
  watch(signatures: readonly string[]): void {
    if (!this.ctx.subscriptions) return;
    const now = this.ctx.clock.now();
    for (const s of signatures) this.sentAt.set(s, now);
    this.subscribe(signatures);
  }

  /** Unsubscribes everything (the worker stops). */
  clear(): void {
    this.sentAt.clear();
    this.watchOnly([]);
  }

  /** Watches these signatures and no others (settled ones are dropped). */
  private watchOnly(signatures: string[]): void {
    const keep = new Set(signatures);
    const now = this.ctx.clock.now();
    for (const [s, at] of this.sentAt) if (keep.has(s) || now - at > 2 * RESEND_EVERY_MS) this.sentAt.delete(s);
    for (const [s, unwatch] of this.watches) {
      // One sent a moment ago may be missing from a read of pending ones made before its record.
      if (keep.has(s) || this.sentAt.has(s)) continue;
      unwatch();
      this.watches.delete(s);
      this.notified.delete(s);
    }
    this.subscribe(keep);
  }

  private subscribe(signatures: Iterable<string>): void {
    const subs = this.ctx.subscriptions;
    if (!subs) return;
    for (const s of signatures) {
      if (this.watches.has(s)) continue;
      this.watches.set(
        s,
        subs.watchSignature(s as Signature, () => {
          this.notified.add(s);
          this.ctx.wake('transactions');
        }, 'confirmed'),
      );
    }
  }
}
