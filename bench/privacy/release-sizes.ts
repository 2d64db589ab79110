/**
 * Where a row's 1-in-n guess sits, by release size: the share of its orders released in each band of sizes,
 * and the points of the guess (the mean of 1/n over the orders, in percent) each band adds. bench:privacy's
 * rows print it beside their 1-in-n guess and bench:privacy-bound --bench-span for the ideal, so the two are
 * compared band by band (docs/privacy.md, "The λ = 1 gap to the ideal").
 */
export interface SizeBand {
  label: string;
  /** Share of the orders released in a release of this band's sizes. */
  share: number;
  /** What those orders add to the mean of 1/n over all the orders. */
  points: number;
}

/** The bands: alone, 2–9 (below the target), 10 to the target less one, the target and more. */
export function releaseSizeBands(sizes: readonly number[], target: number): SizeBand[] {
  const n = Math.max(1, sizes.length);
  const band = (label: string, from: number, to: number): SizeBand => {
    const own = sizes.filter((s) => s >= from && s <= to);
    return { label, share: own.length / n, points: own.reduce((a, s) => a + 1 / Math.max(1, s), 0) / n };
  };
  const top = Math.max(2, target);
  return [
    band('alone', -Infinity, 1),
    ...(top > 2 ? [band(`2–${Math.min(9, top - 1)}`, 2, Math.min(9, top - 1))] : []),
    ...(top > 10 ? [band(`10–${top - 1}`, 10, top - 1)] : []),
    band(`${top}+`, top, Infinity),
  ];
}

/** "alone 0.6 % of orders (0.62 points), 2–9 1.0 % (0.27), …" */
export function bandsLine(bands: readonly SizeBand[]): string {
  return bands.map((b, i) => `${b.label} ${(100 * b.share).toFixed(1)} %${i === 0 ? ' of orders' : ''} (${(100 * b.points).toFixed(2)}${i === 0 ? ' points' : ''})`).join(', ');
}
