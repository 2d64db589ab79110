/** Summaries of the benches' samples. */

/** The p-quantile (nearest rank) of `xs`. */
export const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.max(0, Math.ceil(s.length * p) - 1))]!;
};

/** The middle value (the mean of the two middle ones for an even count), so no single round decides it. */
export function median(values: number[]): number {
  const v = [...values].sort((a, b) => a - b);
  const mid = Math.floor(v.length / 2);
  return v.length % 2 === 1 ? v[mid]! : (v[mid - 1]! + v[mid]!) / 2;
}

/** A ratio's median over rounds, with its range when there are several. */
export function roundsRatio(values: number[]): { median: number; text: string } {
  const m = median(values);
  const range = values.length > 1 ? ` (rounds ${Math.min(...values).toFixed(2)}–${Math.max(...values).toFixed(2)})` : '';
  return { median: m, text: `${m.toFixed(2)}${range}` };
}
