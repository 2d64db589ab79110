/**
 * How long the fee payer lasts (docs/operations.md "fee_payer_low"): what it spent over the readings kept (the
 * falls between consecutive readings: a top-up is no spending), at that rate, against what it holds.
 */

/** Below this the fee payer cannot be trusted to pay one more transaction's fee and rent (a token account's rent is ~0.002 SOL). */
export const FEE_PAYER_EMPTY_LAMPORTS = 5_000_000n;

export interface Reading {
  at: number;
  lamports: bigint;
}

/** Hours left at the spending the readings show; null when they show none (or span no time). */
export function runwayHours(readings: readonly Reading[]): number | null {
  if (readings.length < 2) return null;
  let spent = 0n;
  for (let i = 1; i < readings.length; i++) {
    const fall = readings[i - 1]!.lamports - readings[i]!.lamports;
    if (fall > 0n) spent += fall;
  }
  const spanMs = readings[readings.length - 1]!.at - readings[0]!.at;
  if (spent === 0n || spanMs <= 0) return null;
  const perHour = (Number(spent) * 3_600_000) / spanMs;
  return Number(readings[readings.length - 1]!.lamports) / perHour;
}

/** empty: below FEE_PAYER_EMPTY_LAMPORTS; low: fewer hours left than `minRunwayHours`; else ok. */
export function feePayerState(lamports: bigint, runway: number | null, minRunwayHours: number): 'ok' | 'low' | 'empty' {
  if (lamports < FEE_PAYER_EMPTY_LAMPORTS) return 'empty';
  return runway !== null && runway < minRunwayHours ? 'low' : 'ok';
}
