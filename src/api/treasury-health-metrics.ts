import { Gauge, type Metric } from 'prom-client';
import type { TreasuryHealthRow } from '../store/chain-truth-store.ts';

/**
 * The chain check's and the treasury's health on /metrics (docs/operations.md): what a worker last wrote to
 * `chain_truth`, read once per scrape (every gauge of one scrape shares the read), in any role. The fee payer's
 * balance is exact: it is public on chain, unlike a pool's free inventory, whose figure the API rounds.
 */
export function treasuryHealthMetrics(read: () => Promise<TreasuryHealthRow | null>, now: () => number): Metric[] {
  let last: { at: number; row: Promise<TreasuryHealthRow | null> } | null = null;
  const row = () => {
    const at = now();
    if (!last || at - last.at > 1000) last = { at, row: read().catch(() => null) };
    return last.row;
  };
  const gauge = (name: string, help: string, set: (g: Gauge, r: TreasuryHealthRow) => void, labelNames: string[] = []) =>
    new Gauge({
      name,
      help,
      labelNames,
      registers: [],
      async collect() {
        const r = await row();
        if (r) set(this, r);
      },
    });
  return [
    gauge('hush_store_behind_chain', '1 while payouts are paused because the chain shows transactions of Hush the store cannot explain (docs/operations.md "store_behind_chain")', (g, r) => g.set(r.paused ? 1 : 0)),
    gauge('hush_fee_payer_lamports', "The fee payer's balance at the worker's last reading", (g, r) => r.feePayerLamports !== null && g.set(Number(r.feePayerLamports))),
    gauge('hush_fee_payer_runway_hours', "Hours the fee payer lasts at the last hour's spending (+Inf: nothing spent)", (g, r) => r.feePayerState !== null && g.set(r.runwayHours ?? Number.POSITIVE_INFINITY)),
    gauge('hush_reconcile_ok', '1 when the last still reconcile found ledger and chain equal, 0 when it did not', (g, r) => r.reconcileOk !== null && g.set(r.reconcileOk ? 1 : 0)),
    gauge('hush_reconcile_difference', 'Chain less ledger per asset at the last still reconcile (base units)', (g, r) => {
      for (const [asset, d] of Object.entries(r.differences)) g.set({ asset }, Number(d));
    }, ['asset']),
  ];
}
