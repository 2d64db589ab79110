import type { ChainView } from '../chain/chain-view.ts';
import type { Log } from './deps.ts';
import type { Clock } from '../support/clock.ts';
import { signatureOfWire } from '../chain/wire-price.ts';

export type { FaultPoint, FaultPoints } from '../support/fault-points.ts';


/**
 * Sending recorded transactions. The record comes first, always (insertChainTx, startPayouts, …): a
 * transaction reaches the chain only after its signed bytes are in chain_txs, so a crash at any point
 * leaves either nothing or a record the settle loop resends or settles. Sending never throws: what did
 * not go is resent by the settle loop while its blockhash lives.
 */
export class Outbox {
  /** When each signature was last sent, for the settle loop's resends. */
  readonly lastSent = new Map<string, number>();

  constructor(
    private readonly view: () => ChainView,
    private readonly log: Log,
    /**
     * Called once a send returned: the fate loop then watches the new signatures at once (a signature
     * subscribed after it was committed is notified a slot late), whatever its idle back-off.
     */
    private readonly onSent: () => void = () => {},
    private readonly clock: Clock,
    /** Told the signatures this worker sends for the first time (the fee port counts how long each took to land). */
    private readonly firstSent: (signatures: string[]) => void = () => {},
    /** Told each signature sent again (the fee port leaves a rebroadcast landing out of its slow-landing floor). */
    private readonly sentAgain: (signature: string) => void = () => {},
  ) {}

  /** Sends recorded transactions in one RPC batch; never throws (the settle loop resends what did not go). */
  async sendBatch(txs: { signature: string; wire: string }[]): Promise<void> {
    if (txs.length === 0) return;
    const now = this.clock.now();
    this.firstSent(txs.filter((t) => !this.lastSent.has(t.signature)).map((t) => t.signature));
    for (const t of txs) this.lastSent.set(t.signature, now);
    try {
      const errors = await this.view().sendMany(txs.map((t) => t.wire));
      const failed = errors.filter((e) => e !== null);
      if (failed.length > 0) this.log({ failed: failed.length, first: failed[0] }, 'send failed; will retry');
    } catch (e) {
      this.log({ err: e }, 'send failed; will retry');
    }
    this.onSent();
  }

  async sendAll(wires: string[]): Promise<void> {
    // A resend was marked `resent` before it comes here: only a first send is told.
    const first = wires.flatMap((w) => {
      try {
        const s = signatureOfWire(w);
        return this.lastSent.has(s) ? [] : [s];
      } catch {
        return [];
      }
    });
    if (first.length > 0) this.firstSent(first);
    await Promise.all(
      wires.map(async (w) => {
        try {
          await this.view().send(w);
        } catch (e) {
          // The settle loop resends while the blockhash is valid.
          this.log({ err: e }, 'send failed; will retry');
        }
      }),
    );
    if (wires.length > 0) this.onSent();
  }

  /** Milliseconds since a signature was last sent by this worker (since the epoch: never). */
  msSinceSent(signature: string): number {
    return this.clock.now() - (this.lastSent.get(signature) ?? 0);
  }

  settled(signature: string): void {
    this.lastSent.delete(signature);
  }

  resent(signature: string): void {
    this.lastSent.set(signature, this.clock.now());
    this.sentAgain(signature);
  }
}
