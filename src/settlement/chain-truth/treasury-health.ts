import { feePayerState, runwayHours, type Reading } from '../../domain/fee-payer-runway.ts';
import { reconcile } from '../../ledger/reconcile.ts';
import { writeFeePayer, writeReconcile } from '../../store/chain-truth-store.ts';
import type { SettlementContext } from '../context.ts';

/** Hours of runway below which the fee payer is low (docs/operations.md "fee_payer_low"): a day to top it up. */
export const MIN_RUNWAY_HOURS = 24;
/** The spending the runway is read from: the last hour's readings. */
const WINDOW_MS = 3_600_000;
/** A full reconcile at most this often (one batched balance read and the ledger's sums). */
export const RECONCILE_EVERY_MS = 5 * 60_000;
/** One ALERT of a kind per this long while the condition lasts. */
const ALERT_EVERY_MS = 10 * 60_000;

/**
 * The treasury's health, continuously (issue 85): the fee payer's balance and runway every pass (one account
 * read), a reconcile of ledger and chain every RECONCILE_EVERY_MS; both written to `chain_truth`, which /metrics
 * and /readyz read (any role), with an ALERT when the fee payer is low or empty or the books differ from the chain.
 */
export class TreasuryHealth {
  private readings: Reading[] = [];
  private readonly alertedAt = new Map<string, number>();
  private reconcileAt = 0;

  constructor(
    private readonly ctx: Pick<SettlementContext, 'db' | 'view' | 'treasury' | 'clock' | 'config' | 'alert' | 'chain'>,
    /** False while a lost store's opening balances wait to be booked (the chain check's). */
    private readonly openingSettled: () => boolean,
  ) {}

  async tick(): Promise<number> {
    const ctx = this.ctx;
    const now = ctx.clock.now();
    const address = ctx.treasury.feePayer.address;
    const lamports = (await ctx.view.balances([address], 'confirmed')).get(address)?.lamports ?? 0n;
    this.readings = [...this.readings.filter((r) => r.at >= now - WINDOW_MS), { at: now, lamports }];
    const runway = runwayHours(this.readings);
    // Judged on two readings a pass apart (the higher): one reading at `confirmed` just after a top-up (the start's
    // funding) can lag it, and an empty fee payer is then shown within two passes (a minute).
    const recent = this.readings.slice(-2);
    const state = recent.length < 2 ? 'ok' : feePayerState(recent[0]!.lamports > lamports ? recent[0]!.lamports : lamports, runway, MIN_RUNWAY_HOURS);
    await writeFeePayer(ctx.db, { lamports, runwayHours: runway, state });
    if (state !== 'ok') {
      this.alertOnce('fee_payer_low', { feePayer: address, lamports: lamports.toString(), runwayHours: runway === null ? null : Math.round(runway * 10) / 10, state }, `ALERT: the fee payer is ${state === 'empty' ? 'empty: no transaction can be sent' : `low: about ${runway?.toFixed(1)} h left`}; top it up (docs/operations.md "fee_payer_low")`);
    }
    // A lost store's opening balances are not booked yet: its differences are those, not a fault.
    if (now >= this.reconcileAt && this.openingSettled()) {
      this.reconcileAt = now + RECONCILE_EVERY_MS;
      await this.reconcile();
    }
    return 0;
  }

  private async reconcile(): Promise<void> {
    const ctx = this.ctx;
    const r = await reconcile(ctx.db, ctx.chain(), ctx.treasury, ctx.config.assets);
    // A moment with transactions in flight or booked meanwhile shows differences that are not real: next time.
    if (!r.consistent || r.pendingTransactions > 0) {
      this.reconcileAt = ctx.clock.now() + 30_000;
      return;
    }
    const differences = Object.fromEntries(r.assets.map((a) => [a.assetId, (BigInt(a.chainTotal) - BigInt(a.ledgerTotal)).toString()]));
    await writeReconcile(ctx.db, r.ok, differences);
    if (!r.ok) this.alertOnce('reconcile_failed', { differences }, 'ALERT: the ledger differs from the chain (docs/operations.md "reconcile_failed")');
  }

  private alertOnce(kind: string, fields: Record<string, unknown>, msg: string): void {
    const now = this.ctx.clock.now();
    if (now - (this.alertedAt.get(kind) ?? Number.NEGATIVE_INFINITY) < ALERT_EVERY_MS) return;
    this.alertedAt.set(kind, now);
    this.ctx.alert(kind, fields, msg);
  }
}
