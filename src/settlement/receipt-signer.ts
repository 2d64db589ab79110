import type { AssetRegistry } from '../config/assets.ts';
import { receiptSigningBytes, type ReceiptDocument } from '../domain/receipt.ts';
import type { Db } from '../store/db.ts';
import type { OrderRecord } from '../store/orders-store.ts';
import { insertReceipts } from '../store/receipts/insert-receipts.ts';
import { publishReceiptKey } from '../store/receipts/receipt-keys.ts';
import { countLandedReleases } from '../store/settlement/count-landed-releases.ts';
import { unreceiptedOrders } from '../store/receipts/unreceipted-orders.ts';
import { screeningResultsFor, type ScreeningLogEntry } from '../store/screening-log-store.ts';
import type { ReceiptKey } from '../treasury/receipt-key.ts';
import { RECEIPT_PASS_MS } from './timing.ts';
import type { Clock, Timer } from '../support/clock.ts';

/** Orders signed per pass; a pass runs every RECEIPT_PASS_MS while there are any, so a backlog drains at 50/s. */
const BATCH = 50;

/** The receipt of a final order, as signed (docs/spec.md §12). */
export function receiptDocument(o: OrderRecord, assets: AssetRegistry, screening: readonly ScreeningLogEntry[], keyId: string, issuedAt: Date): ReceiptDocument {
  const mint = (id: string) => assets.get(id)?.mint ?? '';
  return {
    type: 'hush.disclosure_receipt',
    version: 1,
    trackingId: o.trackingId,
    status: o.status,
    source: { assetId: o.sourceAssetId, mint: mint(o.sourceAssetId) },
    destination: { assetId: o.destinationAssetId, mint: mint(o.destinationAssetId) },
    amountIn: o.amountIn.toString(),
    amountOut: o.amountOut.toString(),
    sender: o.sender,
    recipient: o.recipient,
    deposit: o.deposit ? { signature: o.deposit.signature, amount: o.deposit.amount, confirmedAt: o.deposit.confirmedAt ?? null } : null,
    payouts: o.payouts.map((p) => ({ signature: p.signature, amount: p.amount })),
    // Issue 54: the burst its payout landed in on the chain (null: not released with its class).
    releasedWith: o.classRelease?.landedSize ? o.classRelease.landedSize : null,
    refund: o.refund ? { signature: o.refund.signature, amount: o.refund.amount, reason: o.refund.reason } : null,
    createdAt: o.createdAt.toISOString(),
    finalAt: o.updatedAt.toISOString(),
    // Issue 49: what the partner reads says clear or held, never which list, provider or version (the admin log keeps them).
    screening: screening.map((e) => ({ stage: e.stage, result: partnerResult(e), at: e.at, list: null, version: null })),
    issuedAt: issuedAt.toISOString(),
    keyId,
  };
}

/**
 * A screening decision as a partner may read it (docs/spec.md §12): `clear`, `held by screening`, or `not
 * checked` (the provider did not answer and HUSH_SCREENING_ON_ERROR=allow let it pass); an operator's
 * resolution as its action. Never the list, the provider or the version.
 */
export function partnerResult(e: Pick<ScreeningLogEntry, 'stage' | 'result' | 'reason'>): string {
  if (e.stage === 'resolution' || e.result === 'clear') return e.result;
  return e.result === 'error' && e.reason?.endsWith('(HUSH_SCREENING_ON_ERROR=allow)') ? 'not checked' : 'held by screening';
}

/**
 * Signs each final order's disclosure receipt once, where the receipt key is (the settling roles): the
 * API holds no key and serves what was signed. One indexed store read per pass while idle, no chain call.
 */
export class ReceiptSigner {
  private timer: Timer | null = null;
  private running: Promise<number> | null = null;

  constructor(
    private readonly db: Db,
    private readonly key: ReceiptKey,
    private readonly assets: AssetRegistry,
    private readonly log: (obj: Record<string, unknown>, msg: string) => void,
    /** The burst span in slots (burstSpanSlots): a release's landed payouts no further apart are one burst. */
    private readonly spanSlots: number,
    private readonly clock: Clock,
  ) {}

  async start(): Promise<void> {
    await publishReceiptKey(this.db, this.key.keyId);
    this.timer = this.clock.every(RECEIPT_PASS_MS, () => void this.pass());
  }

  async stop(): Promise<void> {
    this.timer?.cancel();
    this.timer = null;
    await this.running?.catch(() => {});
  }

  /** One pass (tests call it): returns how many receipts it signed. Never two at once. */
  pass(): Promise<number> {
    this.running ??= this.signBatch()
      .catch((e: unknown) => {
        this.log({ err: e }, 'receipt signing failed');
        return 0;
      })
      .finally(() => (this.running = null));
    return this.running;
  }

  private async signBatch(): Promise<number> {
    // A released order is receipted once its release is counted from where its payouts landed (issue 54).
    await countLandedReleases(this.db, this.spanSlots);
    const orders = await unreceiptedOrders(this.db, BATCH);
    // One read of the pass's screening decisions and one statement storing its receipts (two per order before).
    const screening = await screeningResultsFor(this.db, orders.map((o) => o.trackingId));
    const receipts = [];
    for (const o of orders) {
      const document = receiptDocument(o, this.assets, screening.get(o.trackingId) ?? [], this.key.keyId, this.clock.date());
      receipts.push({ orderId: o.id, keyId: this.key.keyId, document: JSON.stringify(document), signature: await this.key.sign(receiptSigningBytes(document)) });
    }
    return (await insertReceipts(this.db, receipts)).size;
  }
}
