/**
 * The compute budget of the deposit transaction the sender signs (docs/spec.md §9: nothing in it marks it as
 * Hush's beyond what an ordinary wallet payment to a new address shows). Wallets set the limit from a
 * simulation plus a margin, and the price from the fee market, so both vary from one payment to the next;
 * Hush's own transactions use one fixed limit and a price per purpose, and a deposit carrying those same values
 * would tie it to Hush's side. So a deposit's limit is what its shape consumes times a margin drawn per order,
 * and its price is drawn from the fee market's deposit level up to half again above it (src/services/deposit-fees.ts:
 * never below the level, or a busy hour would leave the low draws unlanded). The draw is seeded per order by a keyed hash the
 * caller makes (an unkeyed one of public data would let anyone recompute it), so every transaction of one
 * order (a refresh) carries the same budget.
 */

/**
 * The base of a deposit's limit: measured on the runtime at 14,475 units for SOL and 14,346 for an SPL
 * token when the deposit account's address is found at the first bump seed, its sealed record's memo included
 * (424 units: one length, so one cost); 20,000 leaves room for
 * program upgrades on a real cluster before the margin, since a deposit that runs out of units fails and
 * costs the sender a fee.
 */
const DEPOSIT_UNITS = { native: 20_000, token: 20_000 } as const;
/**
 * The associated-token program searches the account's bump seed again on chain, 1,500 units per seed it
 * tries (measured: exactly +1,500 per step from bump 255 down, for SOL and SPL alike). One deposit owner in
 * 2^n needs n more tries, so a fixed limit fails a few deposits in every thousand.
 */
const UNITS_PER_BUMP_TRY = 1_500;

/** Two uniform draws in [0, 1) from a 32-byte seed (an address's bytes are uniformly distributed). */
export function drawsFromSeed(seed: Uint8Array): [number, number] {
  const v = new DataView(seed.buffer, seed.byteOffset, seed.byteLength);
  return [v.getUint32(0) / 2 ** 32, v.getUint32(4) / 2 ** 32];
}

export function depositComputeBudget(
  native: boolean,
  priceMicroLamports: bigint,
  draws: [number, number],
  /** 255 less the deposit account's bump seed: the seeds tried before it. */
  extraBumpTries: number,
): { computeUnitLimit: number; computeUnitPriceMicroLamports: bigint } {
  const need = (native ? DEPOSIT_UNITS.native : DEPOSIT_UNITS.token) + UNITS_PER_BUMP_TRY * extraBumpTries;
  // A margin of 10–50 %, as wallets pad a simulation.
  const computeUnitLimit = Math.ceil(need * (1.1 + 0.4 * draws[0]));
  // 100–150 % of the level's price, to the micro-lamport.
  const scale = BigInt(Math.floor(1000 + 500 * draws[1]));
  return { computeUnitLimit, computeUnitPriceMicroLamports: (priceMicroLamports * scale) / 1000n };
}
